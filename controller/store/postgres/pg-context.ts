import type { QueryResultRow } from 'pg';

/** What the repositories run statements on: the pool (calls on the store) or one client (a transaction). */
export interface Queryable {
  /**
   * With a name, the statement is prepared once per connection and then only bound and run (for
   * statements run on every write); one name always goes with one text.
   */
  query<R extends QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<{ rows: R[]; rowCount: number | null }>;
  /**
   * Inside a transaction: runs a write whose result the caller doesn't need, without waiting for it
   * (it goes out with the next statement or with COMMIT). Its failure fails the commit, with the
   * error `failure` makes of it; a deferred statement must therefore fail, not merely write nothing,
   * when it can't do its work.
   */
  defer?(text: string, values: unknown[], name: string | undefined, failure: (error: Error) => Error): void;
}

/** Each repository's view of where it runs. */
export interface PgContext {
  db: Queryable;
  /**
   * Inside a transaction: reads of one entity or review lock its row (FOR UPDATE) until the end of the
   * transaction, so read-then-write paths on several replicas serialize and see each other's commits.
   */
  locking: boolean;
}

/** Bumps a change-mark generation; a data-modifying CTE, so it commits or rolls back with the write. */
export const bumpMark = (name: 'settings' | 'auth'): string => `bump AS (UPDATE store_marks SET generation = generation + 1 WHERE name = '${name}')`;
