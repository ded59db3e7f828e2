import type Database from 'better-sqlite3';
import { deepFreeze } from '../../core/deep-freeze.js';
import { DuplicateKeyError, UNDECIDED_REVIEW, type Page, type ReviewQuery, type ReviewRecord, type ReviewRepo } from '../ports.js';

/** Fields a review's decisions change; everything else is what was submitted, and never changes. */
const STATE_FIELDS: readonly string[] = ['status', 'lastModifiedTime', ...Object.keys(UNDECIDED_REVIEW)];
/** Submitted parts kept parsed (frozen) by review id: immutable, so they never go stale. */
const BODY_CACHE_MAX = 5000;

interface ReviewRow {
  data: string;
  state: string | null;
}

/**
 * Reviews: the columns hold what queries filter on (kind, entity, status); `data` holds what was
 * submitted (change, entity before and after: the bulk) and `state` the decision fields, so a
 * decision writes and a read parses only the small part. No migration to add a field to either.
 */
export class SqliteReviewRepo implements ReviewRepo {
  private readonly stmts;
  private readonly bodies = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT id, data, state FROM reviews WHERE id = ?'),
      insert: db.prepare('INSERT INTO reviews (id, kind, entity_id, status, data, state) VALUES (?, ?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE reviews SET status = ?, state = ? WHERE id = ?'),
      withStatus: db.prepare('SELECT id, data, state FROM reviews WHERE status = ? ORDER BY seq'),
    };
  }

  get(id: string): ReviewRecord | undefined {
    const row = this.stmts.get.get(id) as (ReviewRow & { id: string }) | undefined;
    return row && this.toReview(row);
  }

  insert(review: ReviewRecord): void {
    const { body, state } = split(review);
    try {
      this.stmts.insert.run(review.id, review.kind, review.entityId, review.status, JSON.stringify(body), JSON.stringify(state));
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new DuplicateKeyError(`review ${review.id}`);
      throw error;
    }
  }

  /** Writes the decision fields; the submitted part stays as inserted. */
  update(review: ReviewRecord): void {
    this.stmts.update.run(review.status, JSON.stringify(split(review).state), review.id);
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
    const rows = this.db.prepare(`SELECT id, data, state FROM reviews ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`).all(...params, query.limit, query.offset) as (ReviewRow & { id: string })[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM reviews ${clause}`).get(...params) as { n: number }).n;
    return { items: rows.map((row) => this.toReview(row)), total };
  }

  withStatus(status: string): ReviewRecord[] {
    return (this.stmts.withStatus.all(status) as (ReviewRow & { id: string })[]).map((row) => this.toReview(row));
  }

  private toReview(row: ReviewRow & { id: string }): ReviewRecord {
    let body = this.bodies.get(row.id);
    if (body === undefined) {
      body = deepFreeze(JSON.parse(row.data) as Record<string, unknown>);
      if (this.bodies.size >= BODY_CACHE_MAX) this.bodies.clear();
      this.bodies.set(row.id, body);
    }
    // A row from before the state column holds everything in data.
    return Object.assign({}, body, row.state === null ? {} : (JSON.parse(row.state) as Record<string, unknown>)) as unknown as ReviewRecord;
  }
}

function split(review: ReviewRecord): { body: Record<string, unknown>; state: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(review)) (STATE_FIELDS.includes(key) ? state : body)[key] = value;
  return { body, state };
}
