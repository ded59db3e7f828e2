import type { z } from 'zod';
import type { PaginationSchema } from '../../schemas/common.js';

export type Pagination = z.infer<typeof PaginationSchema>;
export type Json = Record<string, unknown>;

/** One violated constraint, as the API's error envelope names it. */
export interface FieldProblem {
  property: string;
  errorMessage: string;
}

/** A zod error's issues as the API's field errors, for checks made before a request is sent. */
export const zodProblems = (error: z.ZodError): FieldProblem[] => error.issues.map((i) => ({ property: i.path.join('.'), errorMessage: i.message }));

/** A non-2xx answer of the console API, with its message and field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Envelope<T> {
  message: string;
  data: T;
  pagination?: Pagination;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

export interface Api {
  request<T = Json>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<Envelope<T>>;
  get<T = Json>(path: string, options?: RequestOptions): Promise<Envelope<T>>;
}

/** Path under /console/v1 with its query; empty query values are left out. */
export function apiPath(path: string, query: RequestOptions['query'] = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const text = params.toString();
  return `/console/v1/${path.replace(/^\/+/, '')}${text ? `?${text}` : ''}`;
}

/** A client of the public console API; the key travels only in the SERVICE-API-KEY header. */
export function createApi(key: string, onUnauthorized: () => void): Api {
  const request = async <T,>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Envelope<T>> => {
    const headers: Record<string, string> = { 'SERVICE-API-KEY': key, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(apiPath(path, options.query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: options.signal });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, `The console did not answer: ${(error as Error).message}`);
    }
    const text = await response.text();
    let json: Json = {};
    try {
      json = text ? (JSON.parse(text) as Json) : {};
    } catch {
      json = { message: text.slice(0, 300) };
    }
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      const errors = Array.isArray(json['errors']) ? (json['errors'] as FieldProblem[]) : [];
      throw new ApiError(response.status, typeof json['message'] === 'string' ? json['message'] : `HTTP ${response.status}`, errors);
    }
    return json as unknown as Envelope<T>;
  };
  return { request, get: (path, options) => request('GET', path, undefined, options) };
}
