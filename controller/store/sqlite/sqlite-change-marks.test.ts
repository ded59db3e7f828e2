/**
 * The SQLite store's change marks when nothing in this process calls a repository between two reads
 * (the fast lanes' cached answers): they are kept without a query, and still move for every write
 * this connection makes, in or out of a transaction, and for another connection's commit once the
 * data_version recheck bound has passed.
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

function fileStores(options: Parameters<typeof openSqliteStore>[2]): { store: SqliteStore; other: SqliteStore } {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-marks-'));
  dirs.push(dir);
  const file = join(dir, 'console.db');
  const store = openSqliteStore(file, undefined, options);
  const other = openSqliteStore(file);
  stores.push(store, other);
  return { store, other };
}

const gate = (id: string, version = 1): EntityRecord => ({ kind: 'gate', id, version, data: { id, version } });

describe('SQLite change marks between requests that touch no repository', () => {
  it('stay the same object, and move after a write outside a transaction', async () => {
    const { store } = fileStores({});
    const first = store.marks?.();
    expect(store.marks?.()).toBe(first);
    await store.entities.insert(gate('a'));
    const afterWrite = store.marks?.();
    expect(afterWrite?.data).not.toBe(first?.data);
    expect(store.marks?.()).toBe(afterWrite);
  });

  it('move after a committed transaction, and after one that wrote and rolled back', async () => {
    const { store } = fileStores({});
    const before = store.marks?.();
    await store.transaction(async (tx) => {
      await tx.entities.insert(gate('a'));
    });
    const committed = store.marks?.();
    expect(committed?.data).not.toBe(before?.data);
    await expect(
      store.transaction(async (tx) => {
        await tx.entities.insert(gate('b'));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    // Conservative: a rolled-back write may move the data mark (a cache rebuilt for nothing), never hide one.
    expect(await store.entities.get('gate', 'b')).toBeUndefined();
    expect(await store.entities.get('gate', 'a')).toBeDefined();
  });

  it("show another connection's commit once the data_version recheck bound has passed", async () => {
    let time = 0;
    const { store, other } = fileStores({ dataVersionRecheckMs: 100, now: () => time });
    const before = store.marks?.();
    await other.entities.insert(gate('a'));
    time = 99;
    expect(store.marks?.()).toBe(before);
    time = 100;
    expect(store.marks?.()?.data).not.toBe(before?.data);
  });
});
