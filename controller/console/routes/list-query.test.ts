/**
 * Every list answers only the query parameters it declares in /openapi.json: an unknown filter is a
 * 400 naming it (not an unfiltered list), and each declared parameter stays accepted. Keys and roles
 * are lists like every other, in the paged envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

interface Operation {
  parameters?: { name: string; in: string; schema: { type: string } }[];
  responses: Record<string, { content?: { 'application/json': { schema: { properties?: Record<string, unknown> } } } }>;
}

let c: TestConsole;
let lists: { url: string; query: { name: string; type: string }[] }[];

beforeAll(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { id: 'some_gate', name: 'some gate' })).statusCode).toBe(201);
  const doc = (await c.call('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
  lists = Object.entries(doc.paths)
    .filter(([, ops]) => ops['get']?.responses['200']?.content?.['application/json'].schema.properties?.['pagination'] !== undefined)
    .map(([path, ops]) => ({
      url: path.replace(/\{[A-Za-z]+\}/g, 'some_gate'),
      query: (ops['get']?.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, type: p.schema.type })),
    }));
});
afterAll(() => c.close());

/** A value each declared parameter accepts. */
const sample = (name: string, type: string): string => (type === 'integer' ? '1' : type === 'boolean' ? 'true' : name === 'status' ? 'pending' : 'x');

describe('list query parameters', () => {
  it('covers every list, keys, roles, reviews, audit logs and versions included', () => {
    const urls = lists.map((l) => l.url);
    for (const url of ['/console/v1/gates', '/console/v1/gates/some_gate/versions', '/console/v1/reviews', '/console/v1/gates/some_gate/reviews', '/console/v1/audit_logs', '/console/v1/keys', '/console/v1/roles']) {
      expect(urls).toContain(url);
    }
  });

  it('an unknown parameter is a 400 naming it, on every list', async () => {
    for (const { url } of lists) {
      const res = await c.call('GET', `${url}?creatorNam=nobody&page=1`);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().errors, url).toEqual([{ property: 'creatorNam', errorMessage: expect.stringMatching(/^is not a query parameter of this list; known: page, limit/) }]);
    }
  });

  it('a filter another kind has is unknown here: ?creatorName on gates', async () => {
    const res = await c.call('GET', '/console/v1/gates?creatorName=nobody');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].property).toBe('creatorName');
    expect((await c.call('GET', '/console/v1/experiments?creatorName=nobody')).json().data).toEqual([]);
  });

  it('every declared parameter stays accepted', async () => {
    for (const { url, query } of lists) {
      const search = new URLSearchParams(query.map((q) => [q.name, sample(q.name, q.type)]));
      const res = await c.call('GET', `${url}?${search.toString()}`);
      // Only the gate exists: another kind's versions of 'some_gate' are a 404, never a 400.
      const expected = url.includes('some_gate') && !url.startsWith('/console/v1/gates/') ? [200, 404] : [200];
      expect(expected, `${url}?${search.toString()}: ${res.body}`).toContain(res.statusCode);
    }
  });

  it('keys and roles answer the paged list envelope', async () => {
    for (const [url, total] of [['/console/v1/keys', 1], ['/console/v1/roles', 4]] as const) {
      const first = (await c.call('GET', `${url}?limit=1`)).json() as { data: unknown[]; pagination: Record<string, unknown> };
      expect(first.data, url).toHaveLength(1);
      expect(first.pagination, url).toMatchObject({ itemsPerPage: 1, pageNumber: 1, all: url, previousPage: null });
      expect(first.pagination['totalItems'], url).toBeGreaterThanOrEqual(total);
      const bad = await c.call('GET', `${url}?limit=0`);
      expect(bad.statusCode, url).toBe(400);
      expect(bad.json().errors[0].property, url).toBe('limit');
    }
  });
});
