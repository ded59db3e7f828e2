import type Database from 'better-sqlite3';
import { deepFreeze } from '../../core/deep-freeze.js';
import { DuplicateKeyError, UNDECIDED_REVIEW, type Page, type ReviewQuery, type ReviewRecord, type ReviewRepo } from '../ports.js';
import type { Sync } from '../sync-backed-store.js';

/** Fields a review's decisions change; everything else is what was submitted, and never changes. */
const STATE_FIELDS: readonly string[] = ['status', 'lastModifiedTime', ...Object.keys(UNDECIDED_REVIEW)];
/** The status the dispatcher resumes at start; a partial index holds just these rows (migration 5). */
const PENDING_VALIDATION = 'pending_webhook_validation';
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
export class SqliteReviewRepo implements Sync<ReviewRepo> {
  private readonly stmts;
  private readonly bodies = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT id, data, state FROM reviews WHERE id = ?'),
      // A known review's submitted part is cached: read only its decision fields.
      getState: db.prepare('SELECT state FROM reviews WHERE id = ?').pluck(),
      insert: db.prepare('INSERT INTO reviews (id, kind, entity_id, status, data, state) VALUES (?, ?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE reviews SET status = ?, state = ? WHERE id = ?'),
      withStatus: db.prepare('SELECT id, data, state FROM reviews WHERE status = ? ORDER BY seq'),
      // Spelled out, not bound: SQLite uses the partial index only for a literal matching its WHERE.
      pendingValidation: db.prepare(`SELECT id, data, state FROM reviews WHERE status = '${PENDING_VALIDATION}' ORDER BY seq`),
    };
  }

  get(id: string): ReviewRecord | undefined {
    const body = this.bodies.get(id);
    if (body !== undefined) {
      // undefined: no such row (any more); null: a row from before the state column (not cached).
      const state = this.stmts.getState.get(id) as string | null | undefined;
      if (typeof state === 'string') return withState(body, state);
    }
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
    // The next step (approve) reads it back: keep it parsed. Frozen in place, not copied: the
    // submitted values are not touched again once stored (a rolled-back insert leaves an unused entry).
    this.cacheBody(review.id, deepFreeze(body));
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
    const statement = status === PENDING_VALIDATION ? this.stmts.pendingValidation : this.stmts.withStatus;
    const rows = (status === PENDING_VALIDATION ? statement.all() : statement.all(status)) as (ReviewRow & { id: string })[];
    return rows.map((row) => this.toReview(row));
  }

  private toReview(row: ReviewRow & { id: string }): ReviewRecord {
    // A row from before the state column holds everything in data: such bodies are not cached, so
    // get() never mistakes one for a body whose state it can read alone.
    if (row.state === null) return JSON.parse(row.data) as ReviewRecord;
    let body = this.bodies.get(row.id);
    if (body === undefined) this.cacheBody(row.id, (body = deepFreeze(JSON.parse(row.data) as Record<string, unknown>)));
    return withState(body, row.state);
  }

  private cacheBody(id: string, body: Readonly<Record<string, unknown>>): void {
    // Oldest first out (a Map iterates in insertion order): the reviews in flight stay cached.
    if (this.bodies.size >= BODY_CACHE_MAX) this.bodies.delete(this.bodies.keys().next().value as string);
    this.bodies.set(id, body);
  }
}

function withState(body: Readonly<Record<string, unknown>>, state: string): ReviewRecord {
  return Object.assign({}, body, JSON.parse(state) as Record<string, unknown>) as unknown as ReviewRecord;
}

function split(review: ReviewRecord): { body: Record<string, unknown>; state: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(review)) (STATE_FIELDS.includes(key) ? state : body)[key] = value;
  return { body, state };
}
