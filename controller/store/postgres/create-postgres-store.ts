import pg from 'pg';
import type { ChangeMarks, Store, StoreEvent, StoreRepos, TransactionOptions } from '../ports.js';
import { KeyedTurns } from '../keyed-turns.js';
import { MarksRefresher } from './marks-refresher.js';
import { PgPipelinedStatement } from './pg-pipelined-statement.js';
import { PgAuditRepo } from './pg-audit-repo.js';
import { PgAuthRepo } from './pg-auth-repo.js';
import type { PgContext, Queryable } from './pg-context.js';
import { PgEntityRepo } from './pg-entity-repo.js';
import { PgLeaseRepo } from './pg-lease-repo.js';
import { EVENTS_CHANNEL, PgListener } from './pg-listener.js';
import { migratePostgres, schemaVersionOf } from './migrate-postgres.js';
import { PG_MIGRATIONS, type PgMigration } from './pg-migrations.js';
import { PgReviewRepo } from './pg-review-repo.js';
import { PgTransaction } from './pg-transaction.js';
import { orUnavailable, unavailableOr } from './pg-unavailable.js';
import { PgRoleRepo, PgSettingsRepo } from './pg-settings-repo.js';

export const DEFAULT_POOL_SIZE = 10;
/** Longest wait for a connection (a new one, or a pooled one when all are busy) before the call fails. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresStoreOptions {
  /** Most connections the pool opens (the LISTEN connection is one more). */
  poolSize?: number;
  /**
   * The server's synchronous_commit for this store's connections: 'on' (every commit is flushed to
   * the WAL on disk before it is acknowledged) or 'off' (flushed within 3 × wal_writer_delay, about
   * 0.6 s: a crash of the PostgreSQL server, not of a replica, may lose the writes acknowledged in
   * that time). Unset: the server's own setting.
   */
  synchronousCommit?: 'on' | 'off';
  connectTimeoutMs?: number;
  /** The schema's migrations; tests pass others. */
  migrations?: PgMigration[];
  /** First wait before the LISTEN (or change-marks) connection reconnects; doubles up to listenMaxRetryMs. */
  listenRetryMs?: number;
  listenMaxRetryMs?: number;
  /** Errors no caller awaits: a pooled idle connection or the LISTEN connection dropping. */
  onError?: (error: Error) => void;
}

/** BIGINT (times, sequence numbers, counts) as a JS number: every value stored fits in 2^53. */
function numberTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  return types;
}

/** How the marks connection shows in pg_stat_activity. */
export const MARKS_APPLICATION_NAME = 'flagops-marks';

/** Every column as the text the server sent. */
export const TEXT_TYPES: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

export const MARKS_QUERY = `SELECT pg_current_snapshot()::text AS data,
  (SELECT generation FROM store_marks WHERE name = 'settings') AS settings,
  (SELECT generation FROM store_marks WHERE name = 'auth') AS auth`;

/** Where the database is, for messages: host, port and database, never the password. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the configured URL';
  }
}

function repos(ctx: PgContext): StoreRepos {
  return {
    entities: new PgEntityRepo(ctx),
    audit: new PgAuditRepo(ctx),
    auth: new PgAuthRepo(ctx),
    roles: new PgRoleRepo(ctx),
    settings: new PgSettingsRepo(ctx),
    reviews: new PgReviewRepo(ctx),
    // A transaction-scoped advisory lock: it also guards rows that do not exist yet, which FOR UPDATE cannot.
    ...(ctx.locking ? { lock: async (name: string) => void (await ctx.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [name], 'flagops_lock')) } : {}),
  };
}

/**
 * The PostgreSQL store, for several console replicas on one database. Created at once; `open()`
 * connects, brings the schema up to date and starts listening for other replicas' events, and every
 * other call fails until it has.
 */
export function createPostgresStore(url: string, options: PostgresStoreOptions = {}): Store {
  const types = numberTypes();
  const connectionTimeoutMillis = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    // Statements go out without waiting for the ones before them to answer (see PgTransaction).
    pipeline: true,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis,
    types,
    ...(options.synchronousCommit === undefined ? {} : { options: `-c synchronous_commit=${options.synchronousCommit}` }),
  });
  // An idle pooled connection that drops emits on the pool; unhandled, that would end the process.
  pool.on('error', (error) => options.onError?.(error));
  const listener = new PgListener(
    { connectionString: url, connectionTimeoutMillis, types },
    { retryMs: options.listenRetryMs, maxRetryMs: options.listenMaxRetryMs, onError: options.onError },
  );
  const migrations = options.migrations ?? PG_MIGRATIONS;
  const knownVersion = Math.max(0, ...migrations.map((m) => m.version));

  const turns = new KeyedTurns();
  let state: 'created' | 'open' | 'closed' = 'created';
  let opening: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const unusable = (): Error | undefined => {
    if (state === 'open') return undefined;
    return new Error(state === 'closed' ? 'The PostgreSQL store is closed' : 'The PostgreSQL store is not open yet: await store.open() first');
  };
  const pooled: Queryable = {
    query: (text, values, name) => {
      const error = unusable();
      if (error) return Promise.reject(error);
      const run = name === undefined ? pool.query(text, values) : pool.query({ name, text, values });
      // The database restarting or unreachable: a 503 the caller may retry, not a 500.
      return run.catch((failure: unknown) => Promise.reject(unavailableOr(failure)));
    },
  };
  // The marks query runs on nearly every request: on a connection of its own, pipelined (see
  // PgPipelinedStatement); when that connection is down, on the pool while it reconnects.
  const marksConfig: pg.ClientConfig = { connectionString: url, connectionTimeoutMillis, application_name: MARKS_APPLICATION_NAME };
  let marksStatement: Promise<PgPipelinedStatement> | undefined;
  // While the database is away, the dedicated connection is reopened with backoff (not on every
  // request); the pool answers meanwhile, and fails fast while nothing can connect.
  const marksRetryMs = options.listenRetryMs ?? 100;
  const marksMaxRetryMs = options.listenMaxRetryMs ?? 5000;
  let marksWait = marksRetryMs;
  let marksRetryAt = 0;
  const marksRow = async (): Promise<(string | null)[] | undefined> => {
    if (marksStatement === undefined && Date.now() >= marksRetryAt) {
      marksStatement = PgPipelinedStatement.open(marksConfig, 'flagops_marks', MARKS_QUERY);
    }
    const opening = marksStatement;
    const statement = await opening?.catch(() => undefined);
    if (statement?.usable) {
      marksWait = marksRetryMs;
      return statement.query();
    }
    if (opening !== undefined && marksStatement === opening) {
      marksStatement = undefined;
      marksRetryAt = Date.now() + marksWait;
      marksWait = Math.min(marksWait * 2, marksMaxRetryMs);
    }
    const { rows } = await pool.query<(string | null)[]>({ name: 'flagops_marks', text: MARKS_QUERY, rowMode: 'array', types: TEXT_TYPES });
    return rows[0];
  };
  const marks = new MarksRefresher(async () => {
    const error = unusable();
    if (error) throw error;
    const row = await orUnavailable(marksRow);
    if (!row) throw new Error('The change marks query answered no row');
    return { data: String(row[0]), settings: String(row[1]), auth: String(row[2]) } satisfies ChangeMarks;
  });

  return {
    dialect: 'postgres',
    ...repos({ db: pooled, locking: false }),
    leases: new PgLeaseRepo(pooled),

    async transaction<T>(fn: (tx: StoreRepos) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const error = unusable();
      if (error) throw error;
      const turn = options.serializeOn === undefined ? undefined : await turns.take(options.serializeOn);
      try {
        const client = await orUnavailable(() => pool.connect());
        const transaction = new PgTransaction(client);
        let broken: Error | undefined;
        // A checked-out client has no listener of the pool's: a connection dropping mid-transaction
        // emits 'error' here (unhandled, it would end the process); the statements in flight fail.
        const dropped = (error: Error): void => {
          broken ??= error;
        };
        client.on('error', dropped);
        try {
          try {
            const result = await fn(repos({ db: transaction.db, locking: true }));
            await transaction.commit(turn);
            return result;
          } catch (failure) {
            await transaction.rollback().catch((rollbackError: Error) => {
              broken ??= rollbackError;
            });
            throw unavailableOr(failure);
          }
        } finally {
          client.removeListener('error', dropped);
          // A connection whose state is unknown is closed rather than handed to the next caller.
          client.release(broken);
        }
      } finally {
        turn?.();
      }
    },

    marks: () => marks.marks(),
    refreshMarks: () => marks.refresh(),

    subscribe: (fn: (event: StoreEvent) => void) => listener.subscribe(fn),

    async publish(event: StoreEvent): Promise<void> {
      await pooled.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify({ topic: event.topic, id: event.id })]);
    },

    open(): Promise<void> {
      if (state === 'closed') return Promise.reject(unusable()!);
      opening ??= (async () => {
        await migratePostgres(pool, migrations);
        await listener.start();
        // close() may have been called meanwhile: it stays closed.
        if (state === 'created') state = 'open';
      })().catch((error: unknown) => {
        opening = undefined; // a later open() tries again
        throw new Error(`Can't open the PostgreSQL store at ${describeUrl(url)}: ${(error as Error).message}`, { cause: error });
      });
      return opening;
    },

    async ping(): Promise<void> {
      const version = await schemaVersionOf(pooled);
      if (version !== knownVersion) throw new Error(`The database's schema is at version ${version}, this build's is ${knownVersion}`);
    },

    close(): Promise<void> {
      state = 'closed';
      closing ??= (async () => {
        await opening?.catch(() => undefined);
        await listener.close();
        (await marksStatement?.catch(() => undefined))?.close();
        await pool.end();
      })();
      return closing;
    },
  };
}
