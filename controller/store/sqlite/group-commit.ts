import type { StoreRepos } from '../ports.js';
import type { TransactionGate } from '../sync-backed-store.js';

/** The statements a group commit drives on its connection. */
export interface GroupCommitConnection {
  begin(): void;
  commit(): void;
  rollback(): void;
  savepoint(): void;
  release(): void;
  rollbackToSavepoint(): void;
  /** False once SQLite has rolled the whole transaction back by itself (a full disk, an I/O error). */
  inTransaction(): boolean;
}

/** Most transactions one commit holds: bounds how long reads wait behind a stream of writes. */
export const MAX_GROUP = 64;

/**
 * Most turns of the event loop a group waits for more transactions to join: it waits while each turn
 * brings some, so a lone write waits one turn and concurrent clients' writes (reviews) fill groups.
 */
const MAX_TURNS = 4;

interface Member {
  fn: (tx: StoreRepos) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  result?: unknown;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Transactions on one synchronous connection, several to a commit. A commit costs a SQLite
 * connection a dozen system calls or more (a WAL frame header and page each, the locks), more than
 * a small write's statements; writes that arrive together (the requests read from the sockets in the
 * same few turns of the event loop) share one. Each transaction runs alone, in arrival order, inside a
 * savepoint of its own: it is kept entirely or not at all, and sees those before it. None is answered
 * before the commit that holds it, and a failed commit fails every transaction in it, so an
 * acknowledged write is as durable as with one commit each. Calls outside transactions wait on the
 * gate for the whole group, so they never see a write that isn't committed.
 */
export function groupCommitTransaction(gate: TransactionGate, tx: StoreRepos, connection: GroupCommitConnection) {
  const queue: Member[] = [];
  let driving = false;

  /** Runs queued transactions as groups until none is left. */
  const drive = async (): Promise<void> => {
    driving = true;
    try {
      while (queue.length > 0) {
        const wait = gate.acquire();
        if (wait) await wait;
        try {
          await runGroup();
        } finally {
          gate.release();
        }
      }
    } finally {
      driving = false;
    }
  };

  /** Rolls back what is open; a failure to (a broken connection) shows again at the next BEGIN. */
  const rollback = (): void => {
    try {
      connection.rollback();
    } catch {
      // Nothing was committed, and every transaction of the group has its answer already.
    }
  };

  const runGroup = async (): Promise<void> => {
    try {
      connection.begin();
    } catch (error) {
      // As a transaction of its own would have: the one whose BEGIN failed (the database stayed
      // locked past busy_timeout) fails; the next group tries again.
      queue.shift()?.reject(error);
      return;
    }
    const done: Member[] = [];
    let turns = 0;
    let joined = true;
    try {
      for (;;) {
        const member = queue.shift();
        if (member === undefined) {
          // Let the requests read in the next turn of the event loop join before committing, for as
          // long as each turn brings some (a few turns at most).
          if (!joined || done.length === 0 || turns >= MAX_TURNS) break;
          turns++;
          joined = false;
          await nextTurn();
          continue;
        }
        joined = true;
        try {
          connection.savepoint();
        } catch (error) {
          member.reject(error);
          throw error;
        }
        try {
          member.result = await member.fn(tx);
          connection.release();
          done.push(member);
        } catch (error) {
          member.reject(error);
          if (!connection.inTransaction()) {
            // SQLite rolled the whole transaction back: the group's earlier transactions went with it.
            for (const lost of done.splice(0)) lost.reject(error);
            rollback();
            return;
          }
          connection.rollbackToSavepoint();
          connection.release();
        }
        if (done.length >= MAX_GROUP) break;
      }
      connection.commit();
    } catch (error) {
      for (const member of done.splice(0)) member.reject(error);
      rollback();
      return;
    }
    for (const member of done) member.resolve(member.result);
  };

  return <T>(fn: (repos: StoreRepos) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!driving) void drive();
    });
}
