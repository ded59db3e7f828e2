/**
 * The SQLite store's shared frozen lists (`listFrozen`): the same list until something may have
 * changed the kind — a write of it through the store, in or out of a transaction; a rollback, whole or
 * of one transaction of a group; a commit by another connection to the file — and never what a
 * rollback undid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EntityRecord } from '../ports.js';
import { openSqliteStore, type SqliteStore } from './open-sqlite-store.js';

const stores: SqliteStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(file = ':memory:', options: Parameters<typeof openSqliteStore>[2] = {}): SqliteStore {
  const store = openSqliteStore(file, undefined, options);
  stores.push(store);
  return store;
}

const holdout = (id: string, version = 1, extra: Record<string, unknown> = {}): EntityRecord => ({ kind: 'holdout', id, version, data: { id, version, ...extra } });

async function listed(store: SqliteStore, kind = 'holdout'): Promise<readonly EntityRecord[]> {
  const list = await store.entities.listFrozen?.(kind);
  if (list === undefined) throw new Error('the SQLite store has no listFrozen');
  return list;
}

const ids = (list: readonly EntityRecord[]): string[] => list.map((r) => r.id);

const change = (record: EntityRecord, mode: 'insert' | 'update') => ({
  record,
  mode,
  version: { kind: record.kind, id: record.id, version: record.version, time: 1, data: record.data },
  audit: { time: 1, actorEmail: 'a@example.com', actorKeyId: null, action: mode, kind: record.kind, entityId: record.id, version: record.version, reviewId: null, details: null },
});

describe('listFrozen (SQLite)', () => {
  it('hands out the same deeply frozen list while the kind is not written, whatever else is', async () => {
    const store = open();
    await store.entities.insert(holdout('h1', 1, { gateIDs: ['g1'] }));
    const first = await listed(store);
    expect(ids(first)).toEqual(['h1']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[0]?.data['gateIDs'])).toBe(true);
    expect(() => (first[0]!.data['gateIDs'] as string[]).push('g2')).toThrow(TypeError);
    await store.entities.insert({ kind: 'gate', id: 'g1', version: 1, data: { id: 'g1' } });
    await store.transaction((tx) => tx.entities.save(change({ kind: 'gate', id: 'g1', version: 2, data: { id: 'g1', version: 2 } }, 'update')));
    expect(await listed(store)).toBe(first);
    // `list` still answers fresh, unfrozen copies.
    const plain = await store.entities.list('holdout');
    expect(plain).toEqual(first);
    expect(Object.isFrozen(plain[0])).toBe(false);
  });

  it('follows every write of the kind as the row was stored (insert, update, save, delete), parsing only that row', async () => {
    const store = open();
    await store.entities.insert(holdout('h0', 1, { note: 'untouched' }));
    expect(ids(await listed(store))).toEqual(['h0']);
    let untouched = (await listed(store))[0];
    /** The kept list is what a fresh read gives, frozen, and still holds the untouched record itself. */
    const same = async (expected: string[]): Promise<readonly EntityRecord[]> => {
      const kept = await listed(store);
      expect(ids(kept)).toEqual(expected);
      expect(kept).toEqual(await store.entities.list('holdout'));
      expect(Object.isFrozen(kept)).toBe(true);
      for (const record of kept) expect(Object.isFrozen(record.data)).toBe(true);
      expect(kept[0]).toBe(untouched);
      return kept;
    };
    await store.entities.insert(holdout('h1', 1, { gateIDs: ['g1'], dropped: undefined }));
    expect((await same(['h0', 'h1']))[1]?.data).toEqual({ id: 'h1', version: 1, gateIDs: ['g1'] });
    await store.entities.update(holdout('h1', 2, { isEnabled: false }));
    expect((await same(['h0', 'h1']))[1]?.data['isEnabled']).toBe(false);
    await store.entities.update(holdout('absent', 2));
    await same(['h0', 'h1']);
    await store.transaction((tx) => tx.entities.save(change(holdout('h2'), 'insert')));
    await same(['h0', 'h1', 'h2']);
    await store.transaction((tx) => tx.entities.save(change(holdout('h2', 2, { passPercentage: 5 }), 'update')));
    expect((await same(['h0', 'h1', 'h2']))[2]).toMatchObject({ version: 2, data: { passPercentage: 5 } });
    // A write that fails leaves the list out: read again, it is kept again from then on.
    await expect(store.entities.insert(holdout('h2'))).rejects.toThrow();
    const reread = await listed(store);
    expect(reread).toEqual(await store.entities.list('holdout'));
    expect(reread[0]).not.toBe(untouched);
    untouched = reread[0];
    await same(['h0', 'h1', 'h2']);
    await store.entities.delete('holdout', 'h1');
    await same(['h0', 'h2']);
    // A record kept in the list is the stored one, not the caller's object.
    const given = holdout('h3', 1, { tags: ['a'] });
    await store.entities.insert(given);
    (given.data['tags'] as string[]).push('changed after the write');
    expect((await same(['h0', 'h2', 'h3']))[2]?.data['tags']).toEqual(['a']);
  });

  it("shows a transaction its own writes, and never a rolled-back transaction's", async () => {
    const store = open();
    await store.entities.insert(holdout('h1'));
    await listed(store);
    await expect(
      store.transaction(async (tx) => {
        await tx.entities.insert(holdout('h2'));
        expect(ids(await tx.entities.listFrozen!('holdout'))).toEqual(['h1', 'h2']);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(ids(await listed(store))).toEqual(['h1']);
  });

  it("never shows another transaction of the same group what a failed one undid", async () => {
    const store = open();
    await store.entities.insert(holdout('h1'));
    // Started together, the two share one commit: the first is rolled back to its savepoint alone.
    const failed = store.transaction(async (tx) => {
      await tx.entities.insert(holdout('undone'));
      expect(ids(await tx.entities.listFrozen!('holdout'))).toEqual(['h1', 'undone']);
      throw new Error('abort');
    });
    const seen = store.transaction(async (tx) => ids(await tx.entities.listFrozen!('holdout')));
    await expect(failed).rejects.toThrow('abort');
    expect(await seen).toEqual(['h1']);
    expect(ids(await listed(store))).toEqual(['h1']);
  });

  it('shows a failed save as it left the row: unchanged', async () => {
    const store = open();
    await store.entities.insert(holdout('h1'));
    await store.entities.appendVersion({ kind: 'holdout', id: 'h1', version: 2, time: 1, data: { id: 'h1' } });
    await listed(store);
    // The update runs, then the snapshot's version exists: the save undoes its update and throws.
    await expect(store.transaction((tx) => tx.entities.save(change(holdout('h1', 2, { isEnabled: false }), 'update')))).rejects.toThrow();
    const after = await listed(store);
    expect(after[0]?.version).toBe(1);
    expect(after[0]?.data['isEnabled']).toBeUndefined();
  });

  it("shows another connection's commit once the data_version recheck bound has passed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-kind-lists-'));
    dirs.push(dir);
    const file = join(dir, 'console.db');
    let time = 0;
    const store = open(file, { dataVersionRecheckMs: 100, now: () => time });
    const other = open(file);
    await store.entities.insert(holdout('h1'));
    const first = await listed(store);
    await other.entities.insert(holdout('h2'));
    time = 99;
    expect(await listed(store)).toBe(first);
    time = 100;
    expect(ids(await listed(store))).toEqual(['h1', 'h2']);
  });
});
