/**
 * EntityService.get caches stored records and the holdout list until the store's data mark moves.
 * Every way stored data can change must show in the next read: writes through the API, computed
 * fields that depend on another kind (holdoutIDs), writes that roll back, writes past the services,
 * and commits by another connection to the same database file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../store/ports.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { SqliteEntityRepo } from '../store/sqlite/sqlite-entity-repo.js';
import { groups, LAYER_BODY, type Body } from '../test-support/experiment-fixtures.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';

let c: TestConsole | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await c?.close();
  c = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function gate(console: TestConsole): Promise<{ description: string; holdoutIDs: string[]; version: number }> {
  const res = await console.call('GET', '/console/v1/gates/gate_one');
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

async function withGate(db?: string): Promise<TestConsole> {
  c = createTestConsole(db === undefined ? {} : { db });
  expect((await c.call('POST', '/console/v1/gates', { id: 'gate_one', name: 'gate one' })).statusCode).toBe(201);
  return c;
}

describe('entity read cache', () => {
  it('shows every API write in the next read, holdout writes included', async () => {
    const console = await withGate();
    expect(await gate(console)).toMatchObject({ description: '', holdoutIDs: [], version: 1 });
    expect((await console.call('PATCH', '/console/v1/gates/gate_one', { description: 'two' })).statusCode).toBe(200);
    expect(await gate(console)).toMatchObject({ description: 'two', version: 2 });
    expect((await console.call('POST', '/console/v1/holdouts', { name: 'hold one', gateIDs: ['gate_one'] })).statusCode).toBe(201);
    expect((await gate(console)).holdoutIDs).toEqual(['hold_one']);
    expect((await console.call('PATCH', '/console/v1/holdouts/hold_one', { isEnabled: false })).statusCode).toBe(200);
    expect((await gate(console)).holdoutIDs).toEqual([]);
    expect((await console.call('DELETE', '/console/v1/holdouts/hold_one')).statusCode).toBe(200);
    expect((await console.call('DELETE', '/console/v1/gates/gate_one')).statusCode).toBe(200);
    expect((await console.call('GET', '/console/v1/gates/gate_one')).statusCode).toBe(404);
  });

  it("shows holdout writes in the next gate write's answer, and reads the holdouts from the database once", async () => {
    // Inside a write's transaction, the repository reads the holdouts through its own `list`.
    const reads = vi.spyOn(SqliteEntityRepo.prototype, 'list');
    const holdoutReads = (): number => reads.mock.calls.filter(([kind]) => kind === 'holdout').length;
    const console = await withGate();
    const patchGate = async (description: string): Promise<string[]> => {
      const res = await console.call('PATCH', '/console/v1/gates/gate_one', { description });
      expect(res.statusCode).toBe(200);
      return res.json().data.holdoutIDs;
    };
    expect(await patchGate('one')).toEqual([]);
    expect((await console.call('POST', '/console/v1/holdouts', { name: 'hold one', gateIDs: ['gate_one'] })).statusCode).toBe(201);
    expect(await patchGate('two')).toEqual(['hold_one']);
    // Gate writes alone leave the holdouts as they were: they are not parsed again.
    expect(await patchGate('three')).toEqual(['hold_one']);
    expect((await console.call('PATCH', '/console/v1/holdouts/hold_one', { isEnabled: false })).statusCode).toBe(200);
    expect(await patchGate('five')).toEqual([]);
    expect((await console.call('PATCH', '/console/v1/holdouts/hold_one', { isEnabled: true })).statusCode).toBe(200);
    expect(await patchGate('six')).toEqual(['hold_one']);
    expect((await console.call('DELETE', '/console/v1/holdouts/hold_one')).statusCode).toBe(200);
    expect(await patchGate('seven')).toEqual([]);
    // Read when the gate was created; every holdout write since changed the kept list as it wrote.
    expect(holdoutReads()).toBe(1);
    reads.mockRestore();
  });

  it("checks a layer's allocation against every experiment write since its experiments were read, and reads them once", async () => {
    const reads = vi.spyOn(SqliteEntityRepo.prototype, 'list');
    const experimentReads = (): number => reads.mock.calls.filter(([kind]) => kind === 'experiment').length;
    c = createTestConsole();
    const t = c;
    expect((await t.call('POST', '/console/v1/layers', LAYER_BODY)).statusCode).toBe(201);
    const experiment = (id: string, allocation: number): Body => ({ id, name: `experiment ${id}`, groups: groups(), allocation, layerID: 'main_layer' });
    const write = async (method: string, url: string, body?: unknown): Promise<{ status: number; message: string }> => {
      const res = await t.call(method, url, body);
      return { status: res.statusCode, message: JSON.stringify(res.json()) };
    };
    expect((await write('POST', '/console/v1/experiments', experiment('exp_a', 60))).status).toBe(201);
    expect((await write('POST', '/console/v1/experiments', experiment('exp_b', 30))).status).toBe(201);
    // exp_a's new allocation is what exp_c's check must count: 70 + 30 leaves nothing.
    expect((await write('PATCH', '/console/v1/experiments/exp_a', { allocation: 70 })).status).toBe(200);
    const refused = await write('POST', '/console/v1/experiments', experiment('exp_c', 1));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/other experiments use 100%/);
    expect((await write('PUT', '/console/v1/experiments/exp_b/abandon', {})).status).toBe(200);
    expect((await write('POST', '/console/v1/experiments', experiment('exp_c', 30))).status).toBe(201);
    expect((await write('DELETE', '/console/v1/experiments/exp_a')).status).toBe(200);
    expect((await write('POST', '/console/v1/experiments', experiment('exp_d', 70))).status).toBe(201);
    expect((await write('POST', '/console/v1/experiments', experiment('exp_e', 1))).message).toMatch(/other experiments use 100%/);
    expect(experimentReads()).toBe(1);
    reads.mockRestore();
  });

  it('serves a cached response frozen, and builds a clock-dependent one (experiment isStale) at every read', async () => {
    let now = 1_700_000_000_000;
    c = createTestConsole({ clock: () => now });
    const groups = [
      { name: 'control', size: 50, parameterValues: {} },
      { name: 'test', size: 50, parameterValues: {} },
    ];
    expect((await c.call('POST', '/console/v1/experiments', { id: 'exp_one', name: 'exp one', duration: 1, groups })).statusCode).toBe(201);
    expect((await c.call('PUT', '/console/v1/experiments/exp_one/start')).statusCode).toBe(200);
    const read = async (): Promise<Record<string, unknown>> => (await c!.call('GET', '/console/v1/experiments/exp_one')).json().data;
    expect((await read())['isStale']).toBe(false);
    now += 2 * 24 * 3600 * 1000;
    expect((await read())['isStale']).toBe(true);
    expect((await c.call('POST', '/console/v1/gates', { id: 'gate_two', name: 'gate two' })).statusCode).toBe(201);
    const service = c.services.get('gate');
    const first = await service!.get('gate_two');
    expect(Object.isFrozen(first)).toBe(true);
    expect(await service!.get('gate_two')).toBe(first);
  });

  it('answers a cached read with the bytes a fresh read would send, as JSON, and new bytes after a write', async () => {
    const console = await withGate();
    const first = await console.call('GET', '/console/v1/gates/gate_one');
    const cached = await console.call('GET', '/console/v1/gates/gate_one');
    expect(cached.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(cached.body).toBe(first.body);
    expect(cached.body).toBe(JSON.stringify({ message: 'Gate read successfully.', data: first.json().data }));
    expect(console.services.get('gate')!.cachedRead('gate_one')).toEqual(first.json().data);
    expect((await console.call('PATCH', '/console/v1/gates/gate_one', { description: 'changed' })).statusCode).toBe(200);
    expect(console.services.get('gate')!.cachedRead('gate_one')).toBeUndefined();
    const after = await console.call('GET', '/console/v1/gates/gate_one');
    expect(after.json().data).toMatchObject({ description: 'changed', version: 2 });
    expect((await console.call('GET', '/console/v1/gates/gate_one')).body).toBe(after.body);
  });

  it('answers a rolled-back write with the stored state, and sees writes made past the services', async () => {
    const console = await withGate();
    await gate(console);
    const { store } = console;
    const record = await store.entities.get('gate', 'gate_one');
    if (!record) throw new Error('gate not stored');
    await expect(
      store.transaction(async (tx) => {
        await tx.entities.update({ ...record, version: 2, data: { ...record.data, description: 'rolled back', version: 2 } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await gate(console)).toMatchObject({ description: '', version: 1 });
    await store.transaction((tx) => tx.entities.update({ ...record, version: 2, data: { ...record.data, description: 'direct', version: 2 } }));
    expect(await gate(console)).toMatchObject({ description: 'direct', version: 2 });
  });

  it('sees a commit by another connection to the same database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-read-cache-'));
    dirs.push(dir);
    const file = join(dir, 'console.db');
    const console = await withGate(file);
    expect(await gate(console)).toMatchObject({ description: '' });
    const other = openSqliteStore(file);
    try {
      const record = await other.entities.get('gate', 'gate_one');
      if (!record) throw new Error('gate not stored');
      await other.transaction((tx) => tx.entities.update({ ...record, version: 2, data: { ...record.data, description: 'elsewhere', version: 2 } }));
    } finally {
      await other.close();
    }
    // Another connection's commits show within the store's recheck bound (100 ms).
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await gate(console)).toMatchObject({ description: 'elsewhere', version: 2 });
  });

  it('has the committed marks while a transaction is open, and new ones after any write', async () => {
    const store = openSqliteStore(':memory:');
    try {
      const before = store.marks?.();
      expect(before).toBeDefined();
      expect(store.marks?.()).toEqual(before);
      // Uncommitted writes move SQLite's counters; what the marks cover (committed data) hasn't moved.
      await store.transaction(async (tx) => {
        await tx.entities.insert({ kind: 'gate', id: 'g', version: 1, data: { id: 'g' } });
        expect(store.marks?.()).toEqual(before);
      });
      expect(store.marks?.()?.data).not.toBe(before?.data);
      const committed = store.marks?.();
      await store.settings.set('reviews', { is_config_review_required: true });
      expect(store.marks?.()?.data).not.toBe(committed?.data);
    } finally {
      await store.close();
    }
  });

  /** A store on a clock the test sets, and a second connection to the same file. */
  function twoConnections(): { store: Store; other: Store; at: (ms: number) => void } {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-change-mark-'));
    dirs.push(dir);
    const file = join(dir, 'console.db');
    let time = 0;
    const store = openSqliteStore(file, undefined, { dataVersionRecheckMs: 100, now: () => time });
    return { store, other: openSqliteStore(file), at: (ms) => (time = ms) };
  }

  it('has settings and auth marks that move with their own writes and other connections, not with other writes', async () => {
    const { store, other, at } = twoConnections();
    try {
      const before = store.marks?.();
      expect(before).toBeDefined();
      await store.transaction((tx) => tx.entities.insert({ kind: 'gate', id: 'g', version: 1, data: { id: 'g' } }));
      expect(store.marks?.()?.settings).toBe(before?.settings);
      expect(store.marks?.()?.auth).toBe(before?.auth);
      expect(store.marks?.()?.data).not.toBe(before?.data);
      await store.settings.set('reviews', { is_config_review_required: true });
      const afterOwnWrite = store.marks?.();
      expect(afterOwnWrite?.settings).not.toBe(before?.settings);
      expect(afterOwnWrite?.auth).toBe(before?.auth);
      await store.roles.upsert({ name: 'release', permissions: ['read'], builtin: false });
      expect(store.marks?.()?.auth).not.toBe(before?.auth);
      await other.settings.set('reviews', { is_config_review_required: false });
      at(100);
      expect(store.marks?.()?.settings).not.toBe(afterOwnWrite?.settings);
    } finally {
      await other.close();
      await store.close();
    }
  });

  it('re-reads data_version (commits by other connections) once the recheck bound has passed', async () => {
    const { store, other, at } = twoConnections();
    try {
      const before = store.marks?.();
      await other.settings.set('reviews', { is_config_review_required: true });
      at(99);
      expect(store.marks?.()).toEqual(before);
      at(100);
      expect(store.marks?.()?.data).not.toBe(before?.data);
    } finally {
      await other.close();
      await store.close();
    }
  });
});

describe('entity list cache', () => {
  /** Counts the page and whole-kind reads the services make of the store. */
  function countReads(console: TestConsole): { pages: number; lists: number } {
    const counts = { pages: 0, lists: 0 };
    const entities = console.store.entities;
    const page = entities.page.bind(entities);
    const list = entities.list.bind(entities);
    entities.page = (...args) => (counts.pages++, page(...args));
    entities.list = (...args) => (counts.lists++, list(...args));
    // A filtered list reads the store's shared list where it keeps one (renewed by every write there).
    const frozen = entities.listFrozen?.bind(entities);
    if (frozen) entities.listFrozen = (...args) => (counts.lists++, frozen(...args));
    return counts;
  }

  const listGates = async (console: TestConsole, query = 'page=1&limit=1'): Promise<{ body: string; data: Record<string, unknown>[] }> => {
    const res = await console.call('GET', `/console/v1/gates?${query}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return { body: res.body, data: res.json().data };
  };

  it('answers a repeated listing with the bytes of the first, and reads the store again after any write', async () => {
    const console = await withGate();
    expect((await console.call('POST', '/console/v1/gates', { id: 'gate_two', name: 'gate two' })).statusCode).toBe(201);
    const reads = countReads(console);
    const first = await listGates(console);
    expect(reads.pages).toBe(1);
    const parsed = JSON.parse(first.body) as { message: string; data: unknown; pagination: unknown };
    expect(first.body).toBe(JSON.stringify({ message: parsed.message, data: parsed.data, pagination: parsed.pagination }));
    expect((await listGates(console)).body).toBe(first.body);
    expect(reads.pages).toBe(1);
    // Another page, another limit: other entries of the cache.
    expect((await listGates(console, 'page=2&limit=1')).data.map((g) => g['id'])).toEqual(['gate_two']);
    expect((await listGates(console, 'limit=2')).data.map((g) => g['id'])).toEqual(['gate_one', 'gate_two']);
    expect(reads.pages).toBe(3);
    expect((await console.call('PATCH', '/console/v1/gates/gate_one', { description: 'changed' })).statusCode).toBe(200);
    expect((await listGates(console)).data[0]).toMatchObject({ id: 'gate_one', description: 'changed', version: 2 });
    expect(reads.pages).toBe(4);
    expect((await console.call('DELETE', '/console/v1/gates/gate_two')).statusCode).toBe(200);
    expect((await listGates(console, 'limit=2')).data.map((g) => g['id'])).toEqual(['gate_one']);
  });

  it('shows a rolled-back write as stored, and writes made past the services and by another connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-list-cache-'));
    dirs.push(dir);
    const file = join(dir, 'console.db');
    const console = await withGate(file);
    await listGates(console);
    const record = await console.store.entities.get('gate', 'gate_one');
    if (!record) throw new Error('gate not stored');
    await expect(
      console.store.transaction(async (tx) => {
        await tx.entities.update({ ...record, version: 2, data: { ...record.data, description: 'rolled back', version: 2 } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await listGates(console)).data[0]).toMatchObject({ description: '', version: 1 });
    await console.store.transaction((tx) => tx.entities.update({ ...record, version: 2, data: { ...record.data, description: 'direct', version: 2 } }));
    expect((await listGates(console)).data[0]).toMatchObject({ description: 'direct', version: 2 });
    const other = openSqliteStore(file);
    try {
      await other.transaction((tx) => tx.entities.update({ ...record, version: 3, data: { ...record.data, description: 'elsewhere', version: 3 } }));
    } finally {
      await other.close();
    }
    // Another connection's commits show within the store's recheck bound (100 ms), as in reads of one entity.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await listGates(console)).data[0]).toMatchObject({ description: 'elsewhere', version: 3 });
  });

  it('shows an open review in the next listing', async () => {
    const console = await withGate();
    await listGates(console);
    expect((await console.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true })).statusCode).toBe(200);
    const submitted = await console.call('PATCH', '/console/v1/gates/gate_one', { description: 'reviewed' }, undefined, { 'x-respect-review-settings': 'true' });
    expect(submitted.statusCode).toBe(202);
    expect((await listGates(console)).data[0]).toMatchObject({ description: '', activeReview: { reviewID: submitted.json().data.reviewID } });
  });

  it('reads filtered lists and clock-dependent kinds (experiment isStale) afresh every time', async () => {
    let now = 1_700_000_000_000;
    c = createTestConsole({ clock: () => now });
    const console = c;
    expect((await console.call('POST', '/console/v1/gates', { id: 'gate_one', name: 'gate one', tags: ['a'] })).statusCode).toBe(201);
    const reads = countReads(console);
    expect((await listGates(console, 'tags=a')).data.map((g) => g['id'])).toEqual(['gate_one']);
    const once = reads.lists;
    expect(once).toBeGreaterThan(0);
    expect((await listGates(console, 'tags=a')).data.map((g) => g['id'])).toEqual(['gate_one']);
    // The kind is filtered again; the item's text, kept until the next write, is not rebuilt.
    expect(reads.lists).toBeGreaterThan(once);
    expect((await console.call('PATCH', '/console/v1/gates/gate_one', { description: 'changed' })).statusCode).toBe(200);
    expect((await listGates(console, 'tags=a')).data).toMatchObject([{ id: 'gate_one', description: 'changed' }]);
    const groups = [
      { name: 'control', size: 50, parameterValues: {} },
      { name: 'test', size: 50, parameterValues: {} },
    ];
    expect((await console.call('POST', '/console/v1/experiments', { id: 'exp_one', name: 'exp one', duration: 1, groups })).statusCode).toBe(201);
    expect((await console.call('PUT', '/console/v1/experiments/exp_one/start')).statusCode).toBe(200);
    const stale = async (): Promise<unknown> => (await console.call('GET', '/console/v1/experiments')).json().data[0]['isStale'];
    expect(await stale()).toBe(false);
    now += 2 * 24 * 3600 * 1000;
    expect(await stale()).toBe(true);
  });
});

