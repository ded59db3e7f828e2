import type pg from 'pg';
import type { Queryable } from './pg-context.js';
import type { PgMigration } from './pg-migrations.js';

/** Advisory lock key held while migrating: replicas starting together take turns. */
const MIGRATION_LOCK = 4_224_710_115;

/**
 * Applies the pending migrations in version order, all in one transaction that holds the migration
 * lock: replicas starting together wait for each other, and each sees what the one before applied.
 * A failing migration leaves the database as it was. A database already at a version this build
 * doesn't know is refused: this build would misread a newer schema.
 */
export async function migratePostgres(pool: pg.Pool, migrations: PgMigration[]): Promise<void> {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client has no 'error' listener of the pool's: the connection dropping would end the process.
  const dropped = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', dropped);
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_time BIGINT NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...applied);
      if (newest > known) {
        throw new Error(`The database's schema is at version ${newest}, newer than this build knows (${known}): refusing to start; run a build that knows it`);
      }
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        try {
          await client.query(migration.sql);
        } catch (error) {
          throw new Error(`PostgreSQL migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        await client.query('INSERT INTO schema_migrations (version, name, applied_time) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken ??= rollbackError;
      });
      throw error;
    }
  } finally {
    client.removeListener('error', dropped);
    client.release(broken);
  }
}

/** The newest migration the database records (0 when none). */
export async function schemaVersionOf(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}
