import type Database from 'better-sqlite3';
import { DuplicateKeyError, type Page, type ReviewQuery, type ReviewRecord, type ReviewRepo } from '../ports.js';

/**
 * Reviews: the columns hold what queries filter on (kind, entity, status); `data` holds the whole
 * record, so adding a field to a review needs no migration.
 */
export class SqliteReviewRepo implements ReviewRepo {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT data FROM reviews WHERE id = ?'),
      insert: db.prepare('INSERT INTO reviews (id, kind, entity_id, status, data) VALUES (?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE reviews SET kind = ?, entity_id = ?, status = ?, data = ? WHERE id = ?'),
      withStatus: db.prepare('SELECT data FROM reviews WHERE status = ? ORDER BY seq'),
    };
  }

  get(id: string): ReviewRecord | undefined {
    const row = this.stmts.get.get(id) as { data: string } | undefined;
    return row && toReview(row);
  }

  insert(review: ReviewRecord): void {
    try {
      this.stmts.insert.run(review.id, review.kind, review.entityId, review.status, JSON.stringify(review));
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new DuplicateKeyError(`review ${review.id}`);
      throw error;
    }
  }

  update(review: ReviewRecord): void {
    this.stmts.update.run(review.kind, review.entityId, review.status, JSON.stringify(review), review.id);
  }

  list(query: ReviewQuery): Page<ReviewRecord> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.kind !== undefined) {
      where.push('kind = ?');
      params.push(query.kind);
    }
    if (query.entityId !== undefined) {
      where.push('entity_id = ?');
      params.push(query.entityId);
    }
    if (query.statuses !== undefined) {
      if (query.statuses.length === 0) return { items: [], total: 0 };
      where.push(`status IN (${query.statuses.map(() => '?').join(', ')})`);
      params.push(...query.statuses);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT data FROM reviews ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`).all(...params, query.limit, query.offset) as { data: string }[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM reviews ${clause}`).get(...params) as { n: number }).n;
    return { items: rows.map(toReview), total };
  }

  withStatus(status: string): ReviewRecord[] {
    return (this.stmts.withStatus.all(status) as { data: string }[]).map(toReview);
  }
}

function toReview(row: { data: string }): ReviewRecord {
  return JSON.parse(row.data) as ReviewRecord;
}
