import type Database from 'better-sqlite3';
import { assertEntityChange, DuplicateKeyError, type EntityChange, type EntityRecord, type EntityRepo, type Page, type VersionRecord } from '../ports.js';
import type { Sync } from '../sync-backed-store.js';
import { type KindListCache, removed, upserted } from './kind-list-cache.js';
import type { SqliteAuditRepo } from './sqlite-audit-repo.js';

interface EntityRow {
  kind: string;
  id: string;
  version: number;
  data: string;
}

interface VersionRow extends EntityRow {
  time: number;
}

export class SqliteEntityRepo implements Sync<EntityRepo> {
  private readonly stmts;
  private readonly saveAll: (change: EntityChange, data: string) => void;

  /** @param lists Frozen whole kinds for `listFrozen`, which the store owning `db` clears on rollbacks. */
  constructor(
    db: Database.Database,
    audit: SqliteAuditRepo,
    private readonly lists: KindListCache,
  ) {
    this.stmts = {
      get: db.prepare('SELECT kind, id, version, data FROM entities WHERE kind = ? AND id = ?'),
      version: db.prepare('SELECT version FROM entities WHERE kind = ? AND id = ?').pluck(),
      list: db.prepare('SELECT kind, id, version, data FROM entities WHERE kind = ? ORDER BY seq'),
      page: db.prepare('SELECT kind, id, version, data FROM entities WHERE kind = ? ORDER BY seq LIMIT ? OFFSET ?'),
      count: db.prepare('SELECT COUNT(*) AS n FROM entities WHERE kind = ?'),
      insert: db.prepare('INSERT INTO entities (kind, id, version, data) VALUES (?, ?, ?, ?)'),
      update: db.prepare('UPDATE entities SET version = ?, data = ? WHERE kind = ? AND id = ?'),
      delete: db.prepare('DELETE FROM entities WHERE kind = ? AND id = ?'),
      deleteVersions: db.prepare('DELETE FROM entity_versions WHERE kind = ? AND id = ?'),
      appendVersion: db.prepare('INSERT INTO entity_versions (kind, id, version, time, data) VALUES (?, ?, ?, ?, ?)'),
      versions: db.prepare('SELECT kind, id, version, time, data FROM entity_versions WHERE kind = ? AND id = ? ORDER BY version DESC LIMIT ? OFFSET ?'),
      countVersions: db.prepare('SELECT COUNT(*) AS n FROM entity_versions WHERE kind = ? AND id = ?'),
    };
    // A savepoint inside the caller's transaction (or a transaction of its own): a failure after the
    // first statement (a taken version) undoes what the call wrote, and only that.
    this.saveAll = db.transaction((change: EntityChange, data: string) => {
      const { record, version } = change;
      if (change.mode === 'insert') insertRow(this.stmts.insert, record, data);
      else if (this.stmts.update.run(record.version, data, record.kind, record.id).changes === 0) {
        throw new Error(`${record.kind} ${record.id} does not exist: nothing was written`);
      }
      // The snapshot is usually the stored data itself: serialized once then.
      appendVersionRow(this.stmts.appendVersion, version, version.data === record.data ? data : JSON.stringify(version.data));
      audit.append(change.audit);
    });
  }

  get(kind: string, id: string): EntityRecord | undefined {
    const row = this.stmts.get.get(kind, id) as EntityRow | undefined;
    return row && toRecord(row);
  }

  version(kind: string, id: string): number | undefined {
    return this.stmts.version.get(kind, id) as number | undefined;
  }

  list(kind: string): EntityRecord[] {
    return (this.stmts.list.all(kind) as EntityRow[]).map(toRecord);
  }

  listFrozen(kind: string): readonly EntityRecord[] {
    return this.lists.get(kind, () => this.list(kind));
  }

  page(kind: string, offset: number, limit: number): Page<EntityRecord> {
    const items = (this.stmts.page.all(kind, limit, offset) as EntityRow[]).map(toRecord);
    return { items, total: (this.stmts.count.get(kind) as { n: number }).n };
  }

  insert(record: EntityRecord): void {
    const data = JSON.stringify(record.data);
    this.lists.write(record.kind, () => insertRow(this.stmts.insert, record, data), upserted(record, data, true));
  }

  update(record: EntityRecord): void {
    const data = JSON.stringify(record.data);
    const run = (): boolean => this.stmts.update.run(record.version, data, record.kind, record.id).changes > 0;
    // No row, no change: the kept list stays as it was.
    let updated = false;
    this.lists.write(record.kind, () => (updated = run()), (list) => (updated ? upserted(record, data, false)(list) : list));
  }

  delete(kind: string, id: string): void {
    this.lists.write(
      kind,
      () => {
        this.stmts.delete.run(kind, id);
        this.stmts.deleteVersions.run(kind, id);
      },
      removed(id),
    );
  }

  appendVersion(version: VersionRecord): void {
    appendVersionRow(this.stmts.appendVersion, version, JSON.stringify(version.data));
  }

  save(change: EntityChange): void {
    assertEntityChange(change);
    const { record } = change;
    const data = JSON.stringify(record.data);
    this.lists.write(record.kind, () => this.saveAll(change, data), upserted(record, data, change.mode === 'insert'));
  }

  versions(kind: string, id: string, offset: number, limit: number): Page<VersionRecord> {
    const items = (this.stmts.versions.all(kind, id, limit, offset) as VersionRow[]).map((row) => ({
      ...toRecord(row),
      time: row.time,
    }));
    return { items, total: (this.stmts.countVersions.get(kind, id) as { n: number }).n };
  }
}

function insertRow(stmt: Database.Statement, record: EntityRecord, data: string): void {
  try {
    stmt.run(record.kind, record.id, record.version, data);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError(`${record.kind} ${record.id}`);
    throw error;
  }
}

function appendVersionRow(stmt: Database.Statement, version: VersionRecord, data: string): void {
  try {
    stmt.run(version.kind, version.id, version.version, version.time, data);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError(`version ${version.version} of ${version.kind} ${version.id}`);
    throw error;
  }
}

/** A UNIQUE or PRIMARY KEY constraint failed: the port reports it as DuplicateKeyError, like the fake. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function toRecord(row: EntityRow): EntityRecord {
  return { kind: row.kind, id: row.id, version: row.version, data: JSON.parse(row.data) as Record<string, unknown> };
}
