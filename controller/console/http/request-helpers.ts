import type { z } from 'zod';
import type { PaginationSchema } from '../../../schemas/common.js';
import type { FastifyRequest } from 'fastify';
import { AuthenticationError, InputError, NotAllowedError, type FieldError } from '../../errors.js';
import type { Actor } from '../permissions.js';
import type { QueryParam } from './route-catalog.js';
import { isPlainObject } from '../../core/is-plain-object.js';

/** Largest page a list returns; documented in docs/api.md and the OpenAPI document. */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

/** The paging parameters every list takes. */
export const PAGING_QUERY: QueryParam[] = [
  { name: 'page', type: 'integer', description: 'Page number, from 1 (default 1).' },
  { name: 'limit', type: 'integer', description: `Items per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` },
];

/** As in bodies (json-tree-problem): PostgreSQL's text refuses U+0000, so no store is asked about it. */
const NUL_MESSAGE = 'contains the NUL character (U+0000), which is refused';
const hasNul = (value: unknown): boolean => (typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\0')));

/**
 * A route answers only the query parameters it declares: an unknown one (a misspelt `dryRun`, a
 * filter another list has) is a 400 naming it, never silently ignored, so a typo can't turn a dry
 * run into a real write or a filtered list into everything. `refused` gives the message for a
 * parameter the client may expect here; `what` says whether the route is a list.
 */
export function checkQueryParams(query: unknown, declared: readonly QueryParam[], what: 'list' | 'route', refused?: Readonly<Record<string, string>>): void {
  let errors: FieldError[] | undefined;
  // for...in, not Object.keys: the query of most requests is empty, and then this allocates nothing.
  const values = (query ?? {}) as Record<string, unknown>;
  for (const property in values) {
    if (declared.some((q) => q.name === property)) {
      if (hasNul(values[property])) (errors ??= []).push({ property, errorMessage: NUL_MESSAGE });
      continue;
    }
    const errorMessage = refused !== undefined && Object.hasOwn(refused, property) ? (refused[property] as string) : `is not a query parameter of this ${what}; known: ${declared.map((q) => q.name).join(', ') || 'none'}`;
    (errors ??= []).push({ property, errorMessage });
  }
  if (errors) throw new InputError('Invalid query.', errors);
}

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

/**
 * A positive integer query parameter; absent is the default, but an empty one (`?limit=`) is a 400
 * like any other text that isn't a number. Past Number.MAX_SAFE_INTEGER a number can't be held
 * exactly (page 2^53+1 would be read as 2^53), so it is refused instead of rounded.
 */
function positiveInt(value: unknown, property: string, errors: FieldError[], fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    errors.push({ property, errorMessage: 'must be a positive integer' });
    return fallback;
  }
  const n = Number(text);
  if (n > max) {
    errors.push({ property, errorMessage: `must be at most ${max}` });
    return fallback;
  }
  return n;
}

export function parsePaging(query: Record<string, unknown>): Paging {
  const errors: FieldError[] = [];
  const page = positiveInt(query['page'], 'page', errors, 1);
  const limit = positiveInt(query['limit'], 'limit', errors, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (errors.length > 0) throw new InputError('Invalid query.', errors);
  return { page, limit, offset: (page - 1) * limit };
}

export type Pagination = z.infer<typeof PaginationSchema>;

/** Builds the pagination object; next/previous keep the request's other query parameters. */
export function pagination(path: string, query: Record<string, unknown>, paging: Paging, total: number): Pagination {
  const at = (page: number): string => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (k !== 'page' && k !== 'limit' && v !== undefined) params.set(k, String(v));
    params.set('page', String(page));
    params.set('limit', String(paging.limit));
    return `${path}?${params.toString()}`;
  };
  return {
    itemsPerPage: paging.limit,
    pageNumber: paging.page,
    totalItems: total,
    nextPage: paging.offset + paging.limit < total ? at(paging.page + 1) : null,
    previousPage: paging.page > 1 ? at(paging.page - 1) : null,
    all: path,
  };
}

/**
 * A boolean flag (`dryRun`): absent is false; otherwise exactly a boolean, the reference API's type: `true` or
 * `false` in a query, JSON's true or false in a body. Anything else, an empty `?dryRun=` included,
 * is a 400: a flag read as false by mistake would write for real.
 */
export function parseBooleanFlag(value: unknown, property: string, from: 'query' | 'body'): boolean {
  if (value === undefined) return false;
  const [yes, no] = from === 'query' ? ['true', 'false'] : [true, false];
  if (value === yes) return true;
  if (value === no) return false;
  throw new InputError(from === 'query' ? 'Invalid query.' : 'Invalid request body.', [{ property, errorMessage: 'must be true or false' }]);
}

/** `If-Match: "3"` (or `3`, or `W/"3"`) → 3. */
export function parseIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(text);
  if (!match) throw new InputError('Invalid If-Match header.', [{ property: 'If-Match', errorMessage: 'must be an entity version, e.g. "3"' }]);
  const version = Number(match[1]);
  // Beyond this a version can't be compared exactly ("not 1e+23"); no entity gets that far.
  if (!Number.isSafeInteger(version)) throw new InputError('Invalid If-Match header.', [{ property: 'If-Match', errorMessage: `must be an entity version, at most ${Number.MAX_SAFE_INTEGER}` }]);
  return version;
}

/** Longest path parameter any route accepts: entity ids are at most 100 characters, review and key ids and role names shorter. */
export const MAX_PATH_PARAM = 100;

/** The parameter names of a route pattern: `/gates/:id/rules/:ruleID` → id, ruleID. */
export function pathParamNames(url: string): string[] {
  return [...url.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
}

/**
 * A path parameter no route could match names itself (400) instead of answering "not found".
 * `names` are the route's own (`pathParamNames`): looked up one by one, since the router's params
 * object has no prototype and listing its entries costs more than the rest of this check.
 */
export function checkPathParams(params: unknown, names: readonly string[]): void {
  if (names.length === 0) return;
  const values = (params ?? {}) as Record<string, unknown>;
  let errors: FieldError[] | undefined;
  for (const name of names) {
    const value = values[name];
    if (typeof value === 'string' && value.length > MAX_PATH_PARAM) (errors ??= []).push({ property: name, errorMessage: `must be at most ${MAX_PATH_PARAM} characters long` });
    else if (hasNul(value)) (errors ??= []).push({ property: name, errorMessage: NUL_MESSAGE });
  }
  if (errors) throw new InputError('Invalid path parameter.', errors);
}

/**
 * The body rules every route shares, before its own schema: a route without a body accepts none (an
 * empty body or `{}` carries nothing and passes); a route whose body is required refuses a missing
 * or `null` one, and an optional body is left out, never `null`; a body is always an object. So a request that names a field
 * the route ignores, or sends nothing where something is needed, is a 400 and changes nothing.
 */
export function checkBodyPresence(body: unknown, rule: { takesBody: boolean; optional: boolean }): void {
  if (!rule.takesBody) {
    if (body === undefined || isEmptyObject(body)) return;
    const errors: FieldError[] =
      isPlainObject(body)
        ? Object.keys(body).map((property) => ({ property, errorMessage: 'is not a known field: this action takes no body' }))
        : [{ property: '(body)', errorMessage: 'must be empty: this action takes no body' }];
    throw new InputError('This action takes no request body.', errors);
  }
  if (body === null || (body === undefined && !rule.optional)) {
    throw new InputError('Invalid request body.', [{ property: '(body)', errorMessage: rule.optional ? 'must be an object, or left out' : 'must be an object' }]);
  }
  // No route takes an array, a string or a number: refused here, so every route says it alike.
  if (body !== undefined && (typeof body !== 'object' || Array.isArray(body))) {
    throw new InputError('Request body must be a JSON object.', [{ property: '(body)', errorMessage: 'must be a JSON object' }]);
  }
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

export function actorOf(request: FastifyRequest): Actor {
  const actor = (request as FastifyRequest & { actor?: Actor }).actor;
  if (!actor) throw new AuthenticationError('Not authenticated.');
  return actor;
}

export function requirePermission(actor: Actor, permission: string): void {
  if (!actor.permissions.has(permission)) {
    throw new NotAllowedError(`This key's role (${actor.role}) lacks the '${permission}' permission.`);
  }
}

export function stringParam(request: FastifyRequest, name: string): string {
  return String((request.params as Record<string, unknown>)[name] ?? '');
}

export function queryOf(request: FastifyRequest): Record<string, unknown> {
  return (request.query ?? {}) as Record<string, unknown>;
}
