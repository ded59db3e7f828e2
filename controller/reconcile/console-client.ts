import type { z } from 'zod';
import type { PaginationSchema } from '../../schemas/common.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { domainErrorOf } from '../error-table.js';
import { UpstreamError, type FieldError } from '../errors.js';
import { sharedHttpClient, type HttpResponse, type SendHttp } from '../net/http-client.js';

export type JsonObject = Record<string, unknown>;

export interface ConsoleClientOptions {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** Sent as SERVICE-API-KEY; never logged. */
  apiKey: string;
  /** Page size of list reads (the console caps it at 1000). */
  pageSize?: number;
  signal?: AbortSignal;
  /** Replaceable for tests; the process's kept-alive HTTP client by default. */
  send?: SendHttp;
}

export type Pagination = z.infer<typeof PaginationSchema>;

export interface Envelope<T> {
  message: string;
  data?: T;
  pagination?: Pagination;
}

export interface RequestOptions {
  /** Expected current version: sent as If-Match. */
  ifMatch?: number;
  query?: Record<string, string>;
}

/**
 * A typed client of the console's HTTP API (/console/v1), as any outside client would use it: the
 * reconciler and the bridge reach the console only through this, never through its database.
 */
export class ConsoleClient {
  readonly baseUrl: string;
  private readonly send: SendHttp;
  private readonly pageSize: number;

  constructor(private readonly options: ConsoleClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.send = options.send ?? sharedHttpClient.send;
    this.pageSize = options.pageSize ?? 1000;
  }

  /** The same user's client without the abort signal: the requests that clean up after an interruption. */
  detached(): ConsoleClient {
    return new ConsoleClient({ ...this.options, signal: undefined });
  }

  /** Sends one request; resolves with the response envelope, throws a domain error for any non-2xx. */
  async request<T = JsonObject>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Envelope<T>> {
    // Paths are appended to the base URL, so a console served under a prefix (https://host/flags) keeps
    // it; a URL or `//host` (a hostile `nextPage`) would take the key to another server, and is refused.
    if (!path.startsWith('/') || path.startsWith('//')) throw new UpstreamError(`console ${this.baseUrl}: ${JSON.stringify(path.slice(0, 200))} is not a path on it; no request was sent.`);
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { 'SERVICE-API-KEY': this.options.apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch !== undefined) headers['if-match'] = `"${options.ifMatch}"`;
    const what = `${method} ${url.pathname}`;
    let response: HttpResponse;
    try {
      response = await this.send({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: this.options.signal });
    } catch (error) {
      const cause = (error as { code?: unknown }).code ?? (error as Error).message;
      throw new UpstreamError(`console ${this.baseUrl} is unreachable (${what}: ${String(cause)}).`);
    }
    let json: unknown;
    try {
      json = response.text === '' ? {} : JSON.parse(response.text);
    } catch {
      throw new UpstreamError(`console answered ${what} with ${response.status} and a body that is not JSON.`);
    }
    if (response.status < 200 || response.status >= 300) {
      const error = json as { message?: unknown; errors?: unknown };
      const message = typeof error.message === 'string' ? error.message : `HTTP ${response.status}`;
      const errors = Array.isArray(error.errors) ? (error.errors as FieldError[]) : [];
      throw domainErrorOf(response.status, `console: ${what}: ${message}`, errors);
    }
    return json as Envelope<T>;
  }

  /** Every item of a list endpoint, following `pagination.nextPage` until it is null. */
  async listAll<T = JsonObject>(path: string): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}page=1&limit=${this.pageSize}`;
    while (next !== null) {
      if (seen.has(next)) throw new UpstreamError(`console pagination of ${path} loops at ${next}.`);
      seen.add(next);
      const page: Envelope<T[]> = await this.request<T[]>('GET', next);
      if (!Array.isArray(page.data)) throw new UpstreamError(`console answered GET ${path} without a data list.`);
      items.push(...page.data);
      next = page.pagination?.nextPage ?? null;
    }
    return items;
  }

  /** List path of a kind: /console/v1/gates, /console/v1/experiments/assignment_sources, ... */
  static listPath(entry: EntitySchemaEntry): string {
    return `/console/v1/${entry.apiPath ?? entry.folder}`;
  }

  static itemPath(entry: EntitySchemaEntry, id: string): string {
    return `/console/v1/${entry.itemPath ?? entry.apiPath ?? entry.folder}/${encodeURIComponent(id)}`;
  }

  listEntities(entry: EntitySchemaEntry): Promise<JsonObject[]> {
    return this.listAll(ConsoleClient.listPath(entry));
  }

  async getEntity(entry: EntitySchemaEntry, id: string): Promise<JsonObject> {
    return (await this.request('GET', ConsoleClient.itemPath(entry, id))).data ?? {};
  }

  async createEntity(entry: EntitySchemaEntry, body: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    return (await this.request('POST', ConsoleClient.listPath(entry), body, options)).data ?? {};
  }

  /** Full update (POST {id}): fields left out take their defaults. */
  async updateEntity(entry: EntitySchemaEntry, id: string, body: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    return (await this.request('POST', ConsoleClient.itemPath(entry, id), body, options)).data ?? {};
  }

  async patchEntity(entry: EntitySchemaEntry, id: string, body: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    return (await this.request('PATCH', ConsoleClient.itemPath(entry, id), body, options)).data ?? {};
  }

  async deleteEntity(entry: EntitySchemaEntry, id: string, options: RequestOptions = {}): Promise<void> {
    await this.request('DELETE', ConsoleClient.itemPath(entry, id), undefined, options);
  }
}
