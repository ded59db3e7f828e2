import type { Socket } from 'node:net';
import type pg from 'pg';
import type { Queryable } from './pg-context.js';

/**
 * One transaction on one pooled connection (a node-postgres client in pipeline mode), sending as few
 * packets as it can: each packet costs a system call and a wake-up on both sides, which on a
 * virtual machine costs more than the statements themselves.
 * - BEGIN goes out with the transaction's first statement;
 * - statements issued in one synchronous stretch (before the caller next waits) go out together;
 * - deferred statements (writes whose result nobody waits for) go out with the next statement or
 *   with COMMIT, so a read-modify-write holds its row lock for one round trip, not two.
 */
export class PgTransaction {
  /** The repositories' view: statements, and deferred ones. */
  readonly db: Queryable;
  private readonly stream: Socket;
  private corked = false;
  private flushQueued = false;
  private begun = false;
  private ended = false;
  /** Every statement issued, settled (errors are reported by the call or by `commit`). */
  private readonly issued: Promise<unknown>[] = [];
  /** The first failure of a statement nobody awaits (BEGIN, deferred writes). */
  private failure: Error | undefined;

  constructor(private readonly client: pg.PoolClient) {
    this.stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    this.db = {
      query: (text, values, name) => {
        if (this.ended) return Promise.reject(new Error('The transaction has ended: its repositories can no longer be used'));
        const run = this.send(text, values, name);
        this.flushSoon();
        // After a deferred write failed, every later statement fails as the transaction is aborted:
        // report the write's own error instead.
        return run.catch((error: Error) => {
          throw this.failure ?? error;
        });
      },
      defer: (text, values, name, failure) => {
        if (this.ended) throw new Error('The transaction has ended: its repositories can no longer be used');
        this.send(text, values, name).catch((error: Error) => {
          this.failure ??= failure(error);
        });
      },
    };
  }

  /** Sends COMMIT (with any deferred statements), calling `sent` once it is on the wire. */
  async commit(sent?: () => void): Promise<void> {
    this.ended = true;
    if (!this.begun) {
      sent?.();
      return;
    }
    this.hold();
    const commit = this.client.query('COMMIT');
    this.flush();
    sent?.();
    const [result] = await Promise.all([commit.catch((error: Error) => error), ...this.issued]);
    if (this.failure) throw this.failure;
    if (result instanceof Error) throw result;
    // COMMIT of a transaction in which a statement failed (the caller caught the error and went on)
    // rolls back and answers ROLLBACK, not an error: that is no success.
    if (result.command === 'ROLLBACK') throw new Error('The transaction was rolled back: a statement in it failed');
  }

  /** Ends the transaction without keeping anything; rejects when the connection's state is unknown. */
  async rollback(): Promise<void> {
    this.ended = true;
    this.flush();
    await Promise.all(this.issued);
    if (!this.begun) return;
    await this.client.query('ROLLBACK');
  }

  private send(text: string, values: unknown[] | undefined, name: string | undefined): Promise<pg.QueryResult> {
    this.hold();
    if (!this.begun) {
      this.begun = true;
      this.track(this.client.query('BEGIN')).catch((error: Error) => {
        this.failure ??= error;
      });
    }
    return this.track(name === undefined ? this.client.query(text, values) : this.client.query({ name, text, values }));
  }

  private track<T>(run: Promise<T>): Promise<T> {
    this.issued.push(run.then(
      () => undefined,
      () => undefined,
    ));
    return run;
  }

  /** Holds what is written to the socket until `flush`. */
  private hold(): void {
    if (this.corked) return;
    this.corked = true;
    this.stream.cork();
  }

  /** Sends what is held once the caller's synchronous stretch ends (it may issue more first). */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.stream.uncork();
  }
}
