import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EntityRecord, StoreRepos } from '../ports.js';
import { TransactionGate } from '../sync-backed-store.js';
import { groupCommitTransaction, MAX_GROUP, type GroupCommitConnection } from './group-commit.js';
import { openSqliteStore, type SqliteStore } from './open-sqlite-store.js';

/** A connection that records the statements a group commit drives. */
function recordingConnection(options: { failCommit?: boolean; failSavepoint?: number; failRollback?: boolean } = {}): GroupCommitConnection & { log: string[]; open: boolean } {
  let savepoints = 0;
  const connection = {
    log: [] as string[],
    open: false,
    begin() {
      connection.log.push('BEGIN');
      connection.open = true;
    },
    commit() {
      connection.log.push('COMMIT');
      if (options.failCommit) throw new Error('disk full');
      connection.open = false;
    },
    rollback() {
      connection.log.push('ROLLBACK');
      connection.open = false;
      if (options.failRollback) throw new Error('rollback failed');
    },
    savepoint() {
      connection.log.push('SAVEPOINT');
      if (++savepoints === options.failSavepoint) throw new Error('savepoint failed');
    },
    release: () => connection.log.push('RELEASE'),
    rollbackToSavepoint: () => connection.log.push('ROLLBACK TO'),
    inTransaction: () => connection.open,
  };
  return connection;
}

const tx = {} as StoreRepos;

/** A group commit over a recording connection. */
function grouped(options: Parameters<typeof recordingConnection>[0] = {}) {
  const connection = recordingConnection(options);
  const gate = new TransactionGate();
  return { connection, gate, transaction: groupCommitTransaction(gate, tx, connection) };
}

/** Each transaction's value, or its error's message. */
async function outcomesOf(transactions: Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(transactions);
  return settled.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message));
}

describe('group commit', () => {
  it('commits transactions issued together once, each in a savepoint, answering each after the commit', async () => {
    const { connection, transaction } = grouped();
    const answered: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        transaction(async () => {
          connection.log.push(`run ${name}`);
          return name;
        }).then((value) => {
          answered.push(`${value} after ${connection.log.at(-1)}`);
          return value;
        }),
      ),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    expect(connection.log).toEqual(['BEGIN', 'SAVEPOINT', 'run a', 'RELEASE', 'SAVEPOINT', 'run b', 'RELEASE', 'SAVEPOINT', 'run c', 'RELEASE', 'COMMIT']);
    expect(answered).toEqual(['a after COMMIT', 'b after COMMIT', 'c after COMMIT']);
  });

  it('lets transactions issued in the same turn of the event loop join one that already ran', async () => {
    const { connection, transaction } = grouped();
    const first = transaction(async () => 1);
    await Promise.resolve();
    const second = transaction(async () => 2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(connection.log.filter((s) => s === 'COMMIT')).toHaveLength(1);
  });

  it('waits while each turn of the event loop brings another transaction, and commits after a turn that brings none', async () => {
    const { connection, transaction } = grouped();
    const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const first = transaction(async () => 1);
    await nextTurn();
    const second = transaction(async () => 2);
    await nextTurn();
    const third = transaction(async () => 3);
    expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    expect(connection.log.filter((s) => s === 'COMMIT')).toHaveLength(1);
    await transaction(async () => 4);
    expect(connection.log.filter((s) => s === 'COMMIT')).toHaveLength(2);
  });

  it('undoes only the failing transaction of a group: the others commit', async () => {
    const { connection, transaction } = grouped();
    const outcomes = await outcomesOf([
      transaction(async () => 'kept'),
      transaction(async () => {
        throw new Error('refused');
      }),
      transaction(async () => 'also kept'),
    ]);
    expect(outcomes).toEqual(['kept', 'refused', 'also kept']);
    expect(connection.log).toEqual(['BEGIN', 'SAVEPOINT', 'RELEASE', 'SAVEPOINT', 'ROLLBACK TO', 'RELEASE', 'SAVEPOINT', 'RELEASE', 'COMMIT']);
  });

  it('fails every transaction of a group whose commit fails, and rolls it back', async () => {
    const { connection, transaction } = grouped({ failCommit: true });
    expect(await outcomesOf([transaction(async () => 1), transaction(async () => 2)])).toEqual(['disk full', 'disk full']);
    expect(connection.log.slice(-2)).toEqual(['COMMIT', 'ROLLBACK']);
  });

  it('fails the group so far when SQLite rolled the whole transaction back, and runs the rest in a new one', async () => {
    const { connection, transaction } = grouped();
    const outcomes = await outcomesOf([
      transaction(async () => 'lost with the group'),
      transaction(async () => {
        connection.open = false;
        throw new Error('I/O error');
      }),
      transaction(async () => 'next group'),
    ]);
    expect(outcomes).toEqual(['I/O error', 'I/O error', 'next group']);
    expect(connection.log.filter((s) => s === 'BEGIN')).toHaveLength(2);
    expect(connection.log.filter((s) => s === 'COMMIT')).toHaveLength(1);
  });

  it('fails the group when a savepoint cannot be taken, even if the rollback fails too, and carries on', async () => {
    const { transaction } = grouped({ failSavepoint: 2, failRollback: true });
    expect(await outcomesOf([transaction(async () => 1), transaction(async () => 2)])).toEqual(['savepoint failed', 'savepoint failed']);
    expect(await transaction(async () => 3)).toBe(3);
  });

  it(`holds at most ${MAX_GROUP} transactions in one commit`, async () => {
    const { connection, transaction } = grouped();
    await Promise.all(Array.from({ length: MAX_GROUP + 1 }, (_, i) => transaction(async () => i)));
    expect(connection.log.filter((s) => s === 'COMMIT')).toHaveLength(2);
  });

  it('keeps calls outside transactions waiting for the whole group', async () => {
    const { connection, gate, transaction } = grouped();
    const group = Promise.all([transaction(async () => 1), transaction(async () => 2)]);
    await Promise.resolve();
    expect(gate.busy).toBe(true);
    await gate.idle();
    expect(connection.log.at(-1)).toBe('COMMIT');
    await group;
  });
});

describe('group commit on a SQLite file', () => {
  const dirs: string[] = [];
  let store: SqliteStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const gate = (id: string, version = 1): EntityRecord => ({ kind: 'gate', id, version, data: { id, name: id, version } });

  it('keeps the writes of the transactions that succeeded and none of the one that failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-group-'));
    dirs.push(dir);
    store = openSqliteStore(join(dir, 'console.db'));
    const s = store;
    const outcomes = await outcomesOf([
      s.transaction(async (t) => t.entities.insert(gate('one'))),
      s.transaction(async (t) => {
        await t.entities.insert(gate('two'));
        throw new Error('refused');
      }),
      s.transaction(async (t) => {
        // Sees the group's earlier transaction, not the undone one.
        expect(await t.entities.get('gate', 'one')).toBeDefined();
        expect(await t.entities.get('gate', 'two')).toBeUndefined();
        await t.entities.insert(gate('three'));
      }),
    ]);
    expect(outcomes).toEqual([undefined, 'refused', undefined]);
    expect((await s.entities.list('gate')).map((r) => r.id).sort()).toEqual(['one', 'three']);
  });
});
