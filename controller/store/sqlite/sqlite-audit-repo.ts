import type Database from 'better-sqlite3';
import type { AuditEntry, AuditQuery, AuditRepo, Page } from '../ports.js';
import type { Sync } from '../sync-backed-store.js';

interface AuditRow {
  seq: number;
  time: number;
  actor_email: string;
  actor_key_id: string | null;
  action: string;
  kind: string;
  entity_id: string;
  version: number | null;
  review_id: string | null;
  details: string | null;
}

export class SqliteAuditRepo implements Sync<AuditRepo> {
  private readonly insert;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(
      'INSERT INTO audit_log (time, actor_email, actor_key_id, action, kind, entity_id, version, review_id, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  append(entry: Omit<AuditEntry, 'id'>): AuditEntry {
    const result = this.insert.run(
      entry.time,
      entry.actorEmail,
      entry.actorKeyId,
      entry.action,
      entry.kind,
      entry.entityId,
      entry.version,
      entry.reviewId,
      entry.details === null ? null : JSON.stringify(entry.details),
    );
    return { ...entry, id: String(result.lastInsertRowid) };
  }

  list(query: AuditQuery): Page<AuditEntry> {
    const where: string[] = [];
    const params: unknown[] = [];
    const filters: [string, string | undefined][] = [
      ['kind = ?', query.kind],
      ['entity_id = ?', query.entityId],
      ['actor_email = ?', query.actorEmail],
    ];
    for (const [sql, value] of filters) {
      if (value === undefined) continue;
      where.push(sql);
      params.push(value);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT * FROM audit_log ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`).all(...params, query.limit, query.offset) as AuditRow[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM audit_log ${clause}`).get(...params) as { n: number }).n;
    return {
      total,
      items: rows.map((row) => ({
        id: String(row.seq),
        time: row.time,
        actorEmail: row.actor_email,
        actorKeyId: row.actor_key_id,
        action: row.action,
        kind: row.kind,
        entityId: row.entity_id,
        version: row.version,
        reviewId: row.review_id,
        details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
      })),
    };
  }
}
