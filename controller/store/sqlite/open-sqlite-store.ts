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
import { startWalCheckpointer } from './wal-checkpointer.js';

/** How often the WAL is checkpointed into the database file. */
export const CHECKPOINT_INTERVAL_MS = 1000;
/** SQLite's own checkpoint on commit, kept as a safety net should the timer not get to run. */
const AUTOCHECKPOINT_PAGES = 20_000;
/**
 * Longest a commit by another connection to the same file goes unseen by caches keyed on changeMark.
 * In the supported setups nothing else writes what those caches hold (`flagops keys` writes keys only).
 */
const DATA_VERSION_RECHECK_MS = 100;

/** Opens (creating if needed) a SQLite console database in WAL mode and applies pending migrations. */
export function openSqliteStore(
  path: string,
  migrations: Migration[] = MIGRATIONS,
  options: { checkpointIntervalMs?: number; dataVersionRecheckMs?: number; now?: () => number } = {},
): Store {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  // With synchronous=NORMAL a commit only appends to the WAL; the fsyncs happen at checkpoints. By
  // default SQLite checkpoints inside whichever COMMIT crosses 1000 WAL pages, so that request paid
  // for two fsyncs and a page copy (most of a write's time in bench:api). A timer checkpoints once a
  // second instead, off the request path, and the repeatedly written pages are copied once.
  let checkpointer: { stop: () => void } | undefined;
  if (file) {
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    checkpointer = startWalCheckpointer(path, options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, () => db.pragma('wal_checkpoint(PASSIVE)'));
  }
  // total_changes() counts every row this connection wrote (rolled back ones too) and touches no
  // table (≈0.1 µs). data_version moves when another connection commits, but reading it takes a read
  // transaction on the file (≈4 µs, as much as the reads a cache saves), so it is re-read at most
  // every dataVersionRecheckMs.
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const recheckMs = options.dataVersionRecheckMs ?? DATA_VERSION_RECHECK_MS;
  const now = options.now ?? Date.now;
  let version = 0;
  let versionReadAt = -Infinity;
  const currentDataVersion = (): number => {
    const time = now();
    if (time - versionReadAt >= recheckMs) {
      version = dataVersion.get() as number;
      versionReadAt = time;
    }
    return version;
  };
  const settings = new SqliteSettingsRepo(db);
  // One transaction function for every call (db.transaction builds five wrappers each time it is
  // called: 2% of the console's CPU in bench:apply); called inside itself, it nests as a savepoint.
  const runInTransaction = db.transaction((fn: () => unknown) => fn());
  return {
    entities: new SqliteEntityRepo(db),
    audit: new SqliteAuditRepo(db),
    auth: new SqliteAuthRepo(db),
    roles: new SqliteRoleRepo(db),
    settings,
    reviews: new SqliteReviewRepo(db),
    transaction: <T>(fn: () => T): T => runInTransaction(fn) as T,
    settingsMark: () => {
      if (db.inTransaction) return undefined;
      return `${settings.writes}:${currentDataVersion()}`;
    },
    changeMark: () => {
      if (db.inTransaction) return undefined;
      const external = currentDataVersion();
      return `${totalChanges.get() as number}:${external}`;
    },
    close: () => {
      checkpointer?.stop();
      db.close();
    },
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
