/**
 * Every route, not only lists, answers only the query parameters it declares in /openapi.json: an
 * unknown one is a 400 naming it and changes nothing, so a misspelt `?dryrun=true` can't write for
 * real. `dryRun` takes exactly true or false.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

const CONFIGS = '/console/v1/dynamic_configs';

interface Operation {
  parameters?: { name: string; in: string }[];
}

let c: TestConsole;
let operations: { method: string; url: string; query: string[] }[];

beforeAll(async () => {
  c = createTestConsole();
  expect((await c.call('POST', CONFIGS, { id: 'cfg', name: 'cfg' })).statusCode).toBe(201);
  const doc = (await c.call('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      url: path.replace(/\{[A-Za-z]+\}/g, 'cfg'),
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    })),
  );
});
afterAll(() => c.close());

let before: string;
beforeEach(async () => {
  before = await storeSnapshot(c);
});

describe('unknown query parameters', () => {
  it('are a 400 naming them on every route of every method, and change nothing', async () => {
    expect(operations.length).toBeGreaterThan(100);
    for (const { method, url, query } of operations) {
      const res = await c.call(method, `${url}?dryrun=true`, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json().errors, `${method} ${url}`).toEqual([{ property: 'dryrun', errorMessage: `is not a query parameter of this ${query.includes('page') ? 'list' : 'route'}; known: ${query.join(', ') || 'none'}` }]);
    }
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('a misspelt dryRun on a create or a patch writes nothing', async () => {
    for (const [method, url, body] of [
      ['POST', `${CONFIGS}?dryrun=true`, { name: 'typo config' }],
      ['PATCH', `${CONFIGS}/cfg?dry_run=true`, { description: 'saved?' }],
    ] as const) {
      const res = await c.call(method, url, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('Invalid query.');
    }
    expect((await c.call('GET', `${CONFIGS}/typo_config`)).statusCode).toBe(404);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('a single read refuses one too', async () => {
    const res = await c.call('GET', `${CONFIGS}/cfg?fields=name`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'fields', errorMessage: 'is not a query parameter of this route; known: none' }]);
  });

  it('dryRun on a write that has none (a delete) is refused, not ignored: the config stays', async () => {
    const res = await c.call('DELETE', `${CONFIGS}/cfg?dryRun=true`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'is not supported here: this write has no dry run' }]);
    expect((await c.call('GET', `${CONFIGS}/cfg`)).statusCode).toBe(200);
  });
});

describe('dryRun takes exactly true or false', () => {
  it.each(['', 'TRUE', '1', 'yes', 'true&dryRun=true'])('?dryRun=%s is a 400 naming dryRun, on a create and a patch, and writes nothing', async (value) => {
    for (const [method, url, body] of [
      ['POST', `${CONFIGS}?dryRun=${value}`, { name: 'maybe config' }],
      ['PATCH', `${CONFIGS}/cfg?dryRun=${value}`, { description: 'maybe' }],
    ] as const) {
      const res = await c.call(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'must be true or false' }]);
    }
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('?dryRun=true validates and persists nothing', async () => {
    expect((await c.call('PATCH', `${CONFIGS}/cfg?dryRun=true`, { description: 'dry' })).statusCode).toBe(200);
    expect(await storeSnapshot(c)).toBe(before);
  });
});
