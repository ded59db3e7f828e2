import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../ports.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { SqliteAuditRepo } from './sqlite-audit-repo.js';
import { SqliteAuthRepo } from './sqlite-auth-repo.js';
import { SqliteEntityRepo } from './sqlite-entity-repo.js';
import { SqliteReviewRepo } from './sqlite-review-repo.js';
import { SqliteRoleRepo, SqliteSettingsRepo } from './sqlite-settings-repo.js';

/** Opens (creating if needed) a SQLite console database in WAL mode and applies pending migrations. */
export function openSqliteStore(path: string, migrations: Migration[] = MIGRATIONS): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  return {
    entities: new SqliteEntityRepo(db),
    audit: new SqliteAuditRepo(db),
    auth: new SqliteAuthRepo(db),
    roles: new SqliteRoleRepo(db),
    settings: new SqliteSettingsRepo(db),
    reviews: new SqliteReviewRepo(db),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    close: () => db.close(),
  };
}

function migrate(db: Database.Database, migrations: Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_time INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_time) VALUES (?, ?, ?)');
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    })();
  }
}
