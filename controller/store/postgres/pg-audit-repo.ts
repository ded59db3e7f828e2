import type { AuditEntry, AuditQuery, AuditRepo, JsonObject, Page } from '../ports.js';
import type { PgContext } from './pg-context.js';

interface AuditRow {
  total: number;
  seq: number | null;
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

export class PgAuditRepo implements AuditRepo {
  constructor(private readonly ctx: PgContext) {}

  async append(entry: Omit<AuditEntry, 'id'>): Promise<AuditEntry> {
    // The identity column's sequence gives the id: increasing in the order entries are appended.
    const { rows } = await this.ctx.db.query<{ seq: number }>(
      'INSERT INTO audit_log (time, actor_email, actor_key_id, action, kind, entity_id, version, review_id, details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq',
      [entry.time, entry.actorEmail, entry.actorKeyId, entry.action, entry.kind, entry.entityId, entry.version, entry.reviewId, entry.details === null ? null : JSON.stringify(entry.details)],
    );
    return { ...entry, id: String(rows[0]!.seq) };
  }

  async list(query: AuditQuery): Promise<Page<AuditEntry>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const filters: [string, string | undefined][] = [
      ['kind', query.kind],
      ['entity_id', query.entityId],
      ['actor_email', query.actorEmail],
    ];
    for (const [column, value] of filters) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    params.push(query.limit, query.offset);
    const { rows } = await this.ctx.db.query<AuditRow>(
      `SELECT c.total, a.*
       FROM (SELECT COUNT(*) AS total FROM audit_log ${clause}) c
       LEFT JOIN LATERAL (SELECT * FROM audit_log ${clause} ORDER BY seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}) a ON true
       ORDER BY a.seq DESC`,
      params,
    );
    const items: AuditEntry[] = [];
    for (const row of rows) {
      if (row.seq === null) continue;
      items.push({
        id: String(row.seq),
        time: row.time,
        actorEmail: row.actor_email,
        actorKeyId: row.actor_key_id,
        action: row.action,
        kind: row.kind,
        entityId: row.entity_id,
        version: row.version,
        reviewId: row.review_id,
        details: row.details === null ? null : (JSON.parse(row.details) as JsonObject),
      });
    }
    return { total: rows[0]?.total ?? 0, items };
  }
}
