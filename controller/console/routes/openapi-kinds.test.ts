/**
 * /openapi.json lists every route of every entity kind, each write with its request body schema
 * (the very zod schema the route validates with) and each read with the kind's response schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ALL_KINDS } from '../kinds/all-kinds.js';
import type { KindDef } from '../kinds/kind-def.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

type Json = Record<string, unknown>;

let c: TestConsole;
let doc: { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };
beforeAll(async () => {
  c = createTestConsole();
  const res = await c.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(() => c.close());

interface ExpectedRoute {
  path: string;
  method: string;
  body?: z.ZodType;
  bodyRequired?: boolean;
  list?: boolean;
  /** Whether the success response has `data`: the kind's response, or another schema (views, actions' `respond`). */
  data?: boolean | z.ZodType;
}

function routesOf(def: KindDef): ExpectedRoute[] {
  const list = `/console/v1/${def.path}`;
  const item = `/console/v1/${def.itemPath ?? def.path}/{${def.idField}}`;
  const routes: ExpectedRoute[] = [
    { path: list, method: 'get', list: true, data: true },
    { path: list, method: 'post', body: def.schemas.create, bodyRequired: true, data: true },
    { path: item, method: 'get', data: true },
    { path: `${item}/versions`, method: 'get', list: true, data: true },
  ];
  if (def.schemas.update) routes.push({ path: item, method: 'post', body: def.schemas.update, bodyRequired: true, data: true });
  if (def.schemas.patch) routes.push({ path: item, method: 'patch', body: def.schemas.patch, bodyRequired: true, data: true });
  if (def.deletable) routes.push({ path: item, method: 'delete' });
  for (const [name, action] of Object.entries(def.actions ?? {})) {
    const path = `${item}/${(action.path ?? name).replace(/:(\w+)/g, '{$1}')}`;
    const data = action.respond === undefined ? true : action.respond === null ? false : action.respond.schema;
    routes.push({ path, method: (action.method ?? 'PUT').toLowerCase(), body: action.body, bodyRequired: action.body !== undefined && action.bodyOptional !== true, data });
  }
  for (const view of Object.values(def.views ?? {})) routes.push({ path: `${item}/${view.path}`, method: 'get', list: view.list === true, data: view.schema });
  return routes;
}

const resolve = (schema: Json): Json => {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const target = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  expect(target, ref).toBeDefined();
  return target as Json;
};

const shapeKeys = (schema: z.ZodType): string[] => Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape).sort();

describe.each(ALL_KINDS.map((def) => [def.kind, def] as const))('OpenAPI: %s', (_kind, def) => {
  it.each(routesOf(def).map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s is documented', (_label, route) => {
    const operation = doc.paths[route.path]?.[route.method] as Json | undefined;
    expect(operation, `${route.method} ${route.path}`).toBeDefined();
    const op = operation as Json;
    expect(op['tags']).toEqual([def.tag]);
    expect(op['security']).toEqual([{ ServiceApiKey: [] }]);
    const responses = op['responses'] as Record<string, { content?: Record<string, { schema: Json }> }>;
    const success = responses[route.method === 'post' && route.path === `/console/v1/${def.path}` ? '201' : '200'];
    expect(success, 'success response').toBeDefined();
    const envelope = success?.content?.['application/json']?.schema as Json;
    const properties = envelope['properties'] as Record<string, Json>;
    if (route.data) {
      const data = properties['data'] as Json;
      const item = route.list ? (data['items'] as Json) : data;
      expect(Object.keys(resolve(item)['properties'] as Json).sort()).toEqual(shapeKeys(route.data === true ? def.schemas.response : route.data));
    } else expect(properties['data']).toBeUndefined();
    if (route.list) expect(properties['pagination']).toEqual({ $ref: '#/components/schemas/Pagination' });
    const requestBody = op['requestBody'] as { required: boolean; content: Record<string, { schema: Json }> } | undefined;
    if (route.body === undefined) {
      expect(requestBody).toBeUndefined();
      return;
    }
    expect(requestBody, 'request body').toBeDefined();
    expect(requestBody?.required).toBe(route.bodyRequired);
    const body = resolve(requestBody?.content['application/json']?.schema as Json);
    expect(Object.keys(body['properties'] as Json).sort()).toEqual(shapeKeys(route.body));
  });

  it('documents no route the kind does not serve', () => {
    const expected = new Set(routesOf(def).map((r) => `${r.method} ${r.path}`));
    const prefixes = [`/console/v1/${def.path}`, `/console/v1/${def.itemPath ?? def.path}/{${def.idField}}`];
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path === prefixes[0] || path.startsWith(`${prefixes[1]}`))
      .flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => (op['tags'] as string[])[0] === def.tag).map(([method]) => `${method} ${path}`));
    expect(new Set(documented)).toEqual(expected);
  });
});

describe('OpenAPI: the reference API\'s endpoints of the kinds', () => {
  it.each([
    ['get', '/console/v1/experiments/{id}/versions', undefined],
    ['post', '/console/v1/prompts', 'PromptCreate'],
    ['patch', '/console/v1/experiments/assignment_source/{name}', 'AssignmentSourcePartialUpdate'],
    ['patch', '/console/v1/holdouts/{id}', 'HoldoutPartialUpdate'],
  ])('%s %s', (method, path, bodyId) => {
    const op = doc.paths[path]?.[method] as Json;
    expect(op).toBeDefined();
    const schema = ((op['requestBody'] as Json | undefined)?.['content'] as Record<string, { schema: Json }> | undefined)?.['application/json']?.schema;
    if (bodyId === undefined) {
      expect((op['parameters'] as Json[]).map((p) => p['name'])).toEqual(['id', 'page', 'limit']);
    } else expect(schema).toEqual({ $ref: `#/components/schemas/${bodyId}` });
  });

  it('assignment source bodies document dryRun; holdout bodies bound passPercentage to 0–10', () => {
    for (const id of ['AssignmentSourceCreateRequest', 'AssignmentSourceFullUpdate', 'AssignmentSourcePartialUpdate']) {
      expect((doc.components.schemas[id]?.['properties'] as Json)['dryRun']).toMatchObject({ type: 'boolean' });
    }
    expect((doc.components.schemas['HoldoutPartialUpdate']?.['properties'] as Json)['passPercentage']).toMatchObject({ minimum: 0, maximum: 10 });
    expect((doc.components.schemas['AssignmentSourcePartialUpdate']?.['properties'] as Json)['scheduledReloadHour']).toMatchObject({ anyOf: [{ type: 'integer', minimum: 0, maximum: 23 }, { type: 'null' }] });
  });
});
