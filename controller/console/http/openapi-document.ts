import { z } from 'zod';
import { ApiErrorSchema, PaginationSchema } from '../../../schemas/common.js';
import type { RouteCatalog, RouteDoc } from './route-catalog.js';

type Json = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document from the route catalog and the zod schemas the routes validate
 * with, so the document can't drift from what the server accepts.
 */
export function buildOpenApiDocument(catalog: RouteCatalog, serverUrl: string): Json {
  const components: Record<string, unknown> = {};
  const toSchema = (schema: z.ZodType, io: 'input' | 'output'): unknown => {
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
    const defs = (json['$defs'] ?? {}) as Record<string, unknown>;
    delete json['$defs'];
    delete json['$schema'];
    const rewrite = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as unknown;
    for (const [name, def] of Object.entries(defs)) {
      components[name] ??= rewrite(def);
    }
    return rewrite(json);
  };

  const errorSchema = toSchema(ApiErrorSchema, 'output');
  const errorResponses = (route: RouteDoc): Record<string, unknown> =>
    Object.fromEntries(errorStatuses(route).map((status) => [String(status), { description: ERROR_DESCRIPTIONS[status], content: { 'application/json': { schema: errorSchema } } }]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of catalog.routes) {
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const params = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const operation: Json = {
      tags: [route.tag],
      summary: route.summary,
      operationId: operationId(route),
      security: route.url.startsWith('/console/v1') ? [{ ServiceApiKey: [] }] : [],
      'x-permission': route.permission,
      parameters: [
        ...params,
        ...(route.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: q.type } })),
        ...(route.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: false, description: h.description, schema: { type: 'string' } })),
      ],
      responses: {
        [String(route.successStatus ?? 200)]: { description: 'Success', content: { 'application/json': { schema: envelope(route, toSchema) } } },
        ...Object.fromEntries(
          (route.otherSuccess ?? []).map((other) => [
            String(other.status),
            { description: other.description, content: { 'application/json': { schema: envelope(other.response ? { response: other.response } : route, toSchema) } } },
          ]),
        ),
        ...errorResponses(route),
      },
    };
    if (route.body) {
      operation['requestBody'] = { required: !route.bodyOptional, content: { 'application/json': { schema: toSchema(route.body, 'input') } } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'flagops console API',
      version: '1.0.0',
      description: 'Management API of the embedded flagops console. Every /console/v1 endpoint needs the SERVICE-API-KEY header.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { ServiceApiKey: { type: 'apiKey', in: 'header', name: 'SERVICE-API-KEY' } },
      schemas: components,
    },
    paths,
  };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: a malformed URL, query, header or body, or a field that breaks a rule (errors[] names each).',
  401: 'Missing, unknown or deactivated SERVICE-API-KEY.',
  403: "The key's role lacks the permission this route needs, the key is an SDK key, the change is outside the key's environments or target apps, or a rule forbids this user the action.",
  404: 'No such entity, review, key or role.',
  409: 'The change conflicts with the current state (a version mismatch, an existing id, a review in another state).',
  413: 'The request body is larger than the accepted size.',
  414: 'A path parameter is too long for the router.',
  415: 'The request body is not application/json.',
  429: 'Rate limit of the key exceeded (when the console runs with --rate-limit); Retry-After says when to retry.',
  431: 'The request headers or URL are too large.',
  500: 'Unexpected server error (the body carries no internals).',
  503: 'The console is shutting down, or its database is not reachable for a moment: retry (another replica, or after a short wait; Retry-After says when).',
};

/**
 * The error statuses a route can answer with, every one in the API's error envelope: what the
 * framework sends for any request of its shape, plus what the console's own checks send.
 */
function errorStatuses(route: RouteDoc): number[] {
  const keyed = route.url.startsWith('/console/v1');
  const withParams = route.url.includes('/:');
  const parsesBody = route.method !== 'GET';
  const writes = parsesBody && keyed;
  return [
    400,
    ...(keyed ? [401, 403] : []),
    ...(keyed || withParams ? [404] : []),
    ...(writes ? [409] : []),
    ...(parsesBody ? [413] : []),
    ...(withParams ? [414] : []),
    ...(parsesBody ? [415] : []),
    ...(keyed ? [429] : []),
    431,
    500,
    503,
  ];
}

function envelope(route: Pick<RouteDoc, 'response' | 'list'>, toSchema: (s: z.ZodType, io: 'input' | 'output') => unknown): Json {
  const properties: Json = { message: { type: 'string' } };
  const required = ['message'];
  if (route.response) {
    const data = toSchema(route.response, 'output');
    properties['data'] = route.list ? { type: 'array', items: data } : data;
    required.push('data');
  }
  if (route.list) {
    properties['pagination'] = toSchema(PaginationSchema, 'output');
    required.push('pagination');
  }
  return { type: 'object', properties, required };
}

function operationId(route: RouteDoc): string {
  const words = `${route.method.toLowerCase()} ${route.url.replace('/console/v1/', '').replace(/:([A-Za-z]+)/g, 'by $1')}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}
