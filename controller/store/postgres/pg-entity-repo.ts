import { assertEntityChange, DuplicateKeyError, type EntityChange, type EntityCondition, type EntityRecord, type EntityRepo, type JsonObject, type Page, type VersionRecord } from '../ports.js';
import type { PgContext } from './pg-context.js';

interface EntityRow {
  kind: string;
  id: string;
  version: number;
  data: string;
}

/*
 * An entity change in one statement: under the entity's row lock, one round trip instead of one per
 * table. The snapshot and the audit row are written only when the entity was (the CTEs run on one
 * snapshot, so each checks the entity CTE's output, and the version check reads the table as it was
 * before the statement). A taken version writes nothing rather than failing, which would abort the
 * caller's transaction. Rows are those insert/update, appendVersion and audit.append write.
 */
const versionTaken = 'EXISTS (SELECT 1 FROM entity_versions WHERE kind = $1 AND id = $2 AND version = $3::int)';
const WRITE_ENTITY = {
  insert: `e AS (INSERT INTO entities (kind, id, version, data)
    SELECT $1, $2, $3::int, $4 WHERE NOT ${versionTaken} ON CONFLICT DO NOTHING RETURNING 1)`,
  update: `e AS (UPDATE entities SET version = $3::int, data = $4
    WHERE kind = $1 AND id = $2 AND NOT ${versionTaken} RETURNING 1)`,
};
const WRITE_REST = `,
  v AS (INSERT INTO entity_versions (kind, id, version, time, data)
    SELECT $1, $2, $3::int, $5::bigint, $6 WHERE EXISTS (SELECT 1 FROM e)),
  a AS (INSERT INTO audit_log (time, actor_email, actor_key_id, action, kind, entity_id, version, review_id, details)
    SELECT $7::bigint, $8, $9, $10, $11, $12, $13::int, $14, $15 WHERE EXISTS (SELECT 1 FROM e))`;
const REPORT = `SELECT (SELECT count(*) FROM e) AS written, ${versionTaken} AS version_taken`;
const SAVE_SQL = {
  insert: `WITH ${WRITE_ENTITY.insert}${WRITE_REST}
${REPORT}`,
  update: `WITH ${WRITE_ENTITY.update}${WRITE_REST}
${REPORT}`,
};
/*
 * The update as a deferred statement (see Queryable.defer): nobody reads its answer, so when it
 * writes nothing (the entity is gone, or the version is taken) it fails instead — a division by the
 * count of rows written — and the transaction with it.
 */
const DEFERRED_UPDATE_SQL = `WITH ${WRITE_ENTITY.update}${WRITE_REST}
SELECT 1 / (SELECT count(*) FROM e) AS written`;

interface PageRow {
  total: number;
  kind: string | null;
  id: string | null;
  version: number | null;
  data: string | null;
}

export class PgEntityRepo implements EntityRepo {
  private readonly lock: string;
  /** The read of one entity runs on every write and most reads: prepared once per connection. */
  private readonly getName: string;

  constructor(private readonly ctx: PgContext) {
    this.lock = ctx.locking ? ' FOR UPDATE' : '';
    this.getName = ctx.locking ? 'flagops_entity_get_locked' : 'flagops_entity_get';
  }

  async get(kind: string, id: string): Promise<EntityRecord | undefined> {
    const { rows } = await this.ctx.db.query<EntityRow>(`SELECT kind, id, version, data FROM entities WHERE kind = $1 AND id = $2${this.lock}`, [kind, id], this.getName);
    return rows[0] && toRecord(rows[0]);
  }

  async version(kind: string, id: string): Promise<number | undefined> {
    const { rows } = await this.ctx.db.query<{ version: number }>(`SELECT version FROM entities WHERE kind = $1 AND id = $2${this.lock}`, [kind, id]);
    return rows[0]?.version;
  }

  async list(kind: string): Promise<EntityRecord[]> {
    const { rows } = await this.ctx.db.query<EntityRow>('SELECT kind, id, version, data FROM entities WHERE kind = $1 ORDER BY seq', [kind], 'flagops_entity_list');
    return rows.map(toRecord);
  }

  async page(kind: string, offset: number, limit: number): Promise<Page<EntityRecord>> {
    // The count and the page in one statement: one round trip, one snapshot (a page past the end
    // still yields the count's row, with nulls).
    const { rows } = await this.ctx.db.query<PageRow>(
      `SELECT c.total, e.kind, e.id, e.version, e.data
       FROM (SELECT COUNT(*) AS total FROM entities WHERE kind = $1) c
       LEFT JOIN LATERAL (SELECT seq, kind, id, version, data FROM entities WHERE kind = $1 ORDER BY seq LIMIT $2 OFFSET $3) e ON true
       ORDER BY e.seq`,
      [kind, limit, offset],
    );
    return { total: rows[0]?.total ?? 0, items: rows.filter(isEntityRow).map(toRecord) };
  }

  async pageWhere(kind: string, conditions: readonly EntityCondition[], offset: number, limit: number): Promise<Page<EntityRecord>> {
    // Field names are the kinds' own (code, not input), checked all the same; written literally so
    // that the expression indexes of migration 4 (tags) apply.
    const values: unknown[] = [kind, limit, offset];
    const where = conditions.map((condition) => {
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(condition.field)) throw new Error(`Unknown list filter field ${condition.field}`);
      values.push('equals' in condition ? condition.equals : condition.hasAny);
      return 'equals' in condition ? `(data::jsonb ->> '${condition.field}') = $${values.length}` : `(data::jsonb -> '${condition.field}') ?| $${values.length}::text[]`;
    });
    const filter = ['kind = $1', ...where].join(' AND ');
    const { rows } = await this.ctx.db.query<PageRow>(
      `SELECT c.total, e.kind, e.id, e.version, e.data
       FROM (SELECT COUNT(*) AS total FROM entities WHERE ${filter}) c
       LEFT JOIN LATERAL (SELECT seq, kind, id, version, data FROM entities WHERE ${filter} ORDER BY seq LIMIT $2 OFFSET $3) e ON true
       ORDER BY e.seq`,
      values,
    );
    return { total: rows[0]?.total ?? 0, items: rows.filter(isEntityRow).map(toRecord) };
  }

  async insert(record: EntityRecord): Promise<void> {
    // DO NOTHING instead of catching the unique violation: an error would abort the caller's
    // transaction. A concurrent insert of the same key waits for the other transaction's end.
    const { rowCount } = await this.ctx.db.query('INSERT INTO entities (kind, id, version, data) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      record.kind,
      record.id,
      record.version,
      JSON.stringify(record.data),
    ]);
    if (rowCount === 0) throw new DuplicateKeyError(`${record.kind} ${record.id}`);
  }

  async update(record: EntityRecord): Promise<void> {
    await this.ctx.db.query('UPDATE entities SET version = $1, data = $2 WHERE kind = $3 AND id = $4', [record.version, JSON.stringify(record.data), record.kind, record.id]);
  }

  async delete(kind: string, id: string): Promise<void> {
    await this.ctx.db.query('WITH history AS (DELETE FROM entity_versions WHERE kind = $1 AND id = $2) DELETE FROM entities WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async appendVersion(version: VersionRecord): Promise<void> {
    const { rowCount } = await this.ctx.db.query('INSERT INTO entity_versions (kind, id, version, time, data) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
      version.kind,
      version.id,
      version.version,
      version.time,
      JSON.stringify(version.data),
    ]);
    if (rowCount === 0) throw new DuplicateKeyError(`version ${version.version} of ${version.kind} ${version.id}`);
  }

  async save(change: EntityChange): Promise<void> {
    assertEntityChange(change);
    const { record, version, audit } = change;
    const data = JSON.stringify(record.data);
    // The snapshot is usually the stored data itself: serialized once then.
    const versionData = version.data === record.data ? data : JSON.stringify(version.data);
    const values = [
      record.kind,
      record.id,
      record.version,
      data,
      version.time,
      versionData,
      audit.time,
      audit.actorEmail,
      audit.actorKeyId,
      audit.action,
      audit.kind,
      audit.entityId,
      audit.version,
      audit.reviewId,
      audit.details === null ? null : JSON.stringify(audit.details),
    ];
    const { db } = this.ctx;
    if (change.mode === 'update' && db.defer) {
      // Under the entity's row lock (taken by the read before it): the write and the COMMIT go out together.
      db.defer(DEFERRED_UPDATE_SQL, values, 'flagops_save_update_deferred', (error) => new Error(`${record.kind} ${record.id} could not be written at version ${record.version}: ${error.message}`, { cause: error }));
      return;
    }
    const { rows } = await db.query<{ written: number; version_taken: boolean }>(SAVE_SQL[change.mode], values, `flagops_save_${change.mode}`);
    const row = rows[0]!;
    if (row.written > 0) return;
    if (row.version_taken) throw new DuplicateKeyError(`version ${version.version} of ${version.kind} ${version.id}`);
    if (change.mode === 'insert') throw new DuplicateKeyError(`${record.kind} ${record.id}`);
    throw new Error(`${record.kind} ${record.id} does not exist: nothing was written`);
  }

  async versions(kind: string, id: string, offset: number, limit: number): Promise<Page<VersionRecord>> {
    const { rows } = await this.ctx.db.query<PageRow & { time: number | null }>(
      `SELECT c.total, v.kind, v.id, v.version, v.time, v.data
       FROM (SELECT COUNT(*) AS total FROM entity_versions WHERE kind = $1 AND id = $2) c
       LEFT JOIN LATERAL (SELECT kind, id, version, time, data FROM entity_versions WHERE kind = $1 AND id = $2 ORDER BY version DESC LIMIT $3 OFFSET $4) v ON true
       ORDER BY v.version DESC`,
      [kind, id, limit, offset],
    );
    const items: VersionRecord[] = [];
    for (const row of rows) if (isEntityRow(row)) items.push({ ...toRecord(row), time: row.time as number });
    return { total: rows[0]?.total ?? 0, items };
  }
}

function isEntityRow<T extends PageRow>(row: T): row is T & EntityRow {
  return row.id !== null;
}

function toRecord(row: EntityRow): EntityRecord {
  return { kind: row.kind, id: row.id, version: row.version, data: JSON.parse(row.data) as JsonObject };
}
