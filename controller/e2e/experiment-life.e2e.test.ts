/**
 * One experiment's whole life over real HTTP: the compiled CLI (`flagops serve`) on 127.0.0.1:0 with
 * a temporary SQLite file, driven with fetch. Create, start, patch, ship via make_decision, then read
 * the version list (`GET /experiments/{id}/versions`) page by page, following the pagination links, and again after a
 * restart on the same file. Needs `npm run build` first (`npm test` does it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';

type Json = Record<string, unknown>;

let dir: string;
let server: SpawnedConsole | undefined;

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/controller/main.js', import.meta.url)))) {
    throw new Error('The CLI is not built: run `npm run build` (npm test does) before the e2e tests.');
  }
  dir = mkdtempSync(join(tmpdir(), 'flagops-experiment-e2e-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  if (!server) throw new Error('console not started');
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function expectOk(method: string, path: string, body?: unknown, status = 200): Promise<Json> {
  const res = await api(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body['data'] as Json;
}

/** Reads every page of the version list by following nextPage, checking each pagination object. */
async function allVersionPages(limit: number): Promise<Json[][]> {
  const pages: Json[][] = [];
  let next: string | null = `/console/v1/experiments/checkout_colors/versions?limit=${limit}`;
  while (next !== null) {
    const res = await api('GET', next);
    expect(res.status).toBe(200);
    const pagination = res.body['pagination'] as Json;
    expect(pagination).toMatchObject({ itemsPerPage: limit, pageNumber: pages.length + 1, totalItems: 5, all: '/console/v1/experiments/checkout_colors/versions' });
    expect(pagination['previousPage']).toBe(pages.length === 0 ? null : `/console/v1/experiments/checkout_colors/versions?page=${pages.length}&limit=${limit}`);
    pages.push(res.body['data'] as Json[]);
    next = pagination['nextPage'] as string | null;
  }
  return pages;
}

describe('an experiment from setup to shipped, over a real port', () => {
  it('creates, starts, patches and ships an experiment; its versions read across pages, also after a restart', async () => {
    const db = join(dir, 'console.db');
    server = await spawnConsole({ db, checkResponses: true });

    await expectOk('POST', '/console/v1/gates', { name: 'beta users' }, 201);
    const created = await expectOk(
      'POST',
      '/console/v1/experiments',
      {
        name: 'Checkout colors',
        hypothesis: 'Blue buttons convert better',
        targetingGateID: 'beta_users',
        groups: [
          { name: 'Control', size: 50, parameterValues: { color: 'red' } },
          { name: 'Blue', size: 50, parameterValues: { color: 'blue' } },
        ],
        primaryMetrics: [{ name: 'purchase', type: 'event_count', direction: 'increase' }],
      },
      201,
    );
    expect(created).toMatchObject({ id: 'checkout_colors', status: 'setup', version: 1, holdoutIDs: [] });
    const blueId = ((created['groups'] as Json[])[1] as Json)['id'];

    expect(await expectOk('PUT', '/console/v1/experiments/checkout_colors/start')).toMatchObject({ status: 'active', version: 2, startTime: expect.any(Number) });
    // Fixed once started: the 400 names the field and nothing changes.
    const locked = await api('PATCH', '/console/v1/experiments/checkout_colors', { idType: 'stableID' });
    expect(locked.status).toBe(400);
    expect(locked.body['errors']).toEqual([{ property: 'idType', errorMessage: 'cannot change once the experiment is active' }]);
    expect(await expectOk('PATCH', '/console/v1/experiments/checkout_colors', { allocation: 50 })).toMatchObject({ allocation: 50, version: 3 });
    expect(await expectOk('PATCH', '/console/v1/experiments/checkout_colors', { description: 'ramped to 50%' })).toMatchObject({ description: 'ramped to 50%', version: 4 });

    const shipped = await expectOk('PUT', '/console/v1/experiments/checkout_colors/make_decision', { name: 'Blue', decisionReason: 'purchase +3%' });
    expect(shipped).toMatchObject({ status: 'decision_made', launchedGroupID: blueId, decisionReason: 'purchase +3%', version: 5, decisionTime: expect.any(Number) });
    const again = await api('PUT', '/console/v1/experiments/checkout_colors/make_decision', { name: 'Control' });
    expect(again.status).toBe(409);

    const pages = await allVersionPages(2);
    expect(pages.map((page) => page.map((v) => [v['version'], v['status']]))).toEqual([
      [[5, 'decision_made'], [4, 'active']],
      [[3, 'active'], [2, 'active']],
      [[1, 'setup']],
    ]);
    expect(pages[1]?.[0]).toMatchObject({ allocation: 50, description: '' });

    const audit = await api('GET', '/console/v1/audit_logs?kind=experiment&entityID=checkout_colors');
    expect((audit.body['data'] as Json[]).map((row) => row['action'])).toEqual(['make_decision', 'patch', 'patch', 'start', 'create']);

    // The file database keeps all of it across a restart.
    expect(await server.stop()).toBe(0);
    server = await spawnConsole({ db, checkResponses: true });
    expect(await expectOk('GET', '/console/v1/experiments/checkout_colors')).toMatchObject({ status: 'decision_made', launchedGroupID: blueId, version: 5 });
    const reread = await allVersionPages(3);
    expect(reread.map((page) => page.map((v) => v['version']))).toEqual([[5, 4, 3], [2, 1]]);
  });
});
