import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ChangeMarks, Store } from '../ports.js';
import { asyncRepos, TransactionGate, type SyncRepos } from '../sync-backed-store.js';
import { groupCommitTransaction } from './group-commit.js';
import { KindListCache } from './kind-list-cache.js';
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
/** WAL frames past which a checkpoint overtaken by writes is followed by a pass that holds them back. */
const RESTART_FRAMES = AUTOCHECKPOINT_PAGES / 2;
/**
 * Longest a commit by another connection to the same file goes unseen by caches keyed on the marks.
 * In the supported setups nothing else writes what those caches hold (`flagops keys` writes keys only).
 */
const DATA_VERSION_RECHECK_MS = 100;

/**
 * What an acknowledged write survives. Both keep the database consistent after any crash; they differ
 * in an OS crash or power loss only:
 * - `normal` (WAL + synchronous=NORMAL): a commit is appended to the WAL and fsynced at checkpoints
 *   (about once a second), so a power loss may roll back the writes acknowledged since the last one.
 *   A crash of the process alone loses nothing (the WAL is in the OS's page cache).
 * - `full` (WAL + synchronous=FULL): every commit fsyncs the WAL before it is acknowledged.
 */
export const DURABILITY_MODES = ['normal', 'full'] as const;
export type Durability = (typeof DURABILITY_MODES)[number];
export const DEFAULT_DURABILITY: Durability = 'normal';

export interface SqliteStoreOptions {
  checkpointIntervalMs?: number;
  /** WAL frames past which the checkpointer holds the writes back for a pass that lets the WAL start over. */
  restartFrames?: number;
  dataVersionRecheckMs?: number;
  now?: () => number;
  durability?: Durability;
  /** Called after each checkpoint of the WAL (tests wait for the first one). */
  onCheckpoint?: () => void;
  /**
   * Most pages the database may hold (SQLite's max_page_count): past it every write that needs a new
   * page fails as on a full disk. Unset: no limit but the disk's.
   */
  maxPageCount?: number;
}

/** The SQLite store, which can also say how it syncs (for tests and diagnostics). */
export interface SqliteStore extends Store {
  /** SQLite's `PRAGMA synchronous` of the connection, by name: NORMAL or FULL. */
  synchronous(): string;
}

const SYNCHRONOUS_NAMES = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** Opens (creating if needed) a SQLite console database in WAL mode and applies pending migrations. */
export function openSqliteStore(path: string, migrations: Migration[] = MIGRATIONS, options: SqliteStoreOptions = {}): SqliteStore {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${(options.durability ?? DEFAULT_DURABILITY) === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  if (options.maxPageCount !== undefined) db.pragma(`max_page_count = ${Math.floor(options.maxPageCount)}`);
  // With synchronous=NORMAL a commit only appends to the WAL; the fsyncs happen at checkpoints (with
  // FULL, at every commit too). By default SQLite checkpoints inside whichever COMMIT crosses 1000
  // WAL pages, so that request paid for two fsyncs and a page copy (most of a write's time in
  // bench:api). A timer checkpoints once a second instead, off the request path, and the repeatedly
  // written pages are copied once. Under writes that never pause, the writes are held back for a
  // short pass once the WAL holds RESTART_FRAMES, so that it starts over before SQLite's own
  // checkpoint would run inside a commit.
  const gate = new TransactionGate();
  let checkpointer: { stop: () => void } | undefined;
  if (file) {
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    const hold = async (): Promise<() => void> => {
      const wait = gate.acquire();
      if (wait) await wait;
      return () => gate.release();
    };
    checkpointer = startWalCheckpointer(path, options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, () => db.pragma('wal_checkpoint(PASSIVE)'), {
      frames: options.restartFrames ?? RESTART_FRAMES,
      hold,
    }, options.onCheckpoint);
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
  const auth = new SqliteAuthRepo(db);
  const roles = new SqliteRoleRepo(db);
  const audit = new SqliteAuditRepo(db);
  const lists = new KindListCache(currentDataVersion);
  let writesAtSavepoint = 0;
  const repos: SyncRepos = {
    entities: new SqliteEntityRepo(db, audit, lists),
    audit,
    auth,
    roles,
    settings,
    reviews: new SqliteReviewRepo(db),
  };
  // IMMEDIATE: the write lock is taken at BEGIN, where busy_timeout applies, not at the first write
  // (where a lock upgrade that would deadlock fails at once).
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const savepoint = db.prepare('SAVEPOINT flagops_write');
  const release = db.prepare('RELEASE flagops_write');
  const rollbackTo = db.prepare('ROLLBACK TO flagops_write');
  const probeInsert = db.prepare('INSERT INTO write_probe (pad) VALUES (zeroblob(?))');
  const probeDelete = db.prepare('DELETE FROM write_probe WHERE id < ?');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const probe = db.transaction(() => {
    const { lastInsertRowid } = probeInsert.run(pageSize);
    probeDelete.run(lastInsertRowid);
  });
  // Every request reads the marks (twice for a cached read): the same counters give the same object.
  let last: { changes: number; external: number; settings: number; auth: number; marks: ChangeMarks } | undefined;
  // This connection writes only through the repositories (and the readiness probe, which changes
  // nothing a cache holds), so total_changes() can only have moved after a call into one of them.
  // Requests that touch no repository (the fast lanes' cached answers) then read the marks without
  // a round through SQLite.
  let touched = true;
  const touch = (): void => {
    touched = true;
  };
  const readMarks = (): ChangeMarks => {
    const external = currentDataVersion();
    if (!touched && last !== undefined && last.external === external) return last.marks;
    touched = false;
    const changes = totalChanges.get() as number;
    const settingsWrites = settings.writes;
    const authWrites = auth.writes + roles.writes;
    if (last !== undefined && last.changes === changes && last.external === external && last.settings === settingsWrites && last.auth === authWrites) return last.marks;
    const marks = Object.freeze({ data: `${changes}:${external}`, settings: `${settingsWrites}:${external}`, auth: `${authWrites}:${external}` });
    last = { changes, external, settings: settingsWrites, auth: authWrites, marks };
    return marks;
  };
  // While a transaction is open its uncommitted writes move the counters, so the marks then are the
  // ones read when the last transaction ended: what is committed is still what they cover. Reads
  // keep their caches while writes wait for their group's commit.
  let committedMarks: ChangeMarks | undefined;
  const marks = (): ChangeMarks | undefined => {
    if (db.inTransaction || gate.busy) return committedMarks;
    return (committedMarks = readMarks());
  };
  const ended = (): void => {
    committedMarks = readMarks();
  };
  return {
    dialect: 'sqlite',
    ...asyncRepos(repos, gate, touch),
    transaction: groupCommitTransaction(gate, asyncRepos(repos, undefined, touch), {
      begin: () => begin.run(),
      commit: () => {
        commit.run();
        ended();
      },
      rollback: () => {
        lists.clear();
        if (db.inTransaction) rollback.run();
        ended();
      },
      savepoint: () => {
        writesAtSavepoint = lists.writes;
        savepoint.run();
      },
      release: () => release.run(),
      // A transaction refused before it wrote (a validation error) keeps the lists: nothing was undone.
      rollbackToSavepoint: () => {
        if (lists.writes !== writesAtSavepoint) lists.clear();
        rollbackTo.run();
      },
      inTransaction: () => db.inTransaction,
    }),
    marks,
    // Ready only while a write can commit: one row of a page's size, so the probe needs room in the
    // WAL and the file as a real write does; the previous probe row is deleted in the same commit.
    // It waits for the write gate like any transaction, and never sees one half done.
    ping: async () => {
      const wait = gate.acquire();
      if (wait) await wait;
      try {
        probe();
      } finally {
        gate.release();
      }
    },
    synchronous: () => {
      const level = db.pragma('synchronous', { simple: true }) as number;
      return SYNCHRONOUS_NAMES[level] ?? String(level);
    },
    close: async () => {
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
