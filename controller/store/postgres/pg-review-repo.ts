import { DuplicateKeyError, UNDECIDED_REVIEW, type Page, type ReviewQuery, type ReviewRecord, type ReviewRepo } from '../ports.js';
import type { PgContext } from './pg-context.js';

/** Fields a review's decisions change; everything else is what was submitted, and never changes. */
const STATE_FIELDS: readonly string[] = ['status', 'lastModifiedTime', ...Object.keys(UNDECIDED_REVIEW)];

interface ReviewRow {
  data: string;
  state: string;
}

/**
 * Reviews, laid out as in SQLite: the columns hold what queries filter on (kind, entity, status);
 * `data` holds what was submitted (the bulk, written once) and `state` the decision fields, so a
 * decision rewrites only the small part.
 */
export class PgReviewRepo implements ReviewRepo {
  private readonly lock: string;

  constructor(private readonly ctx: PgContext) {
    this.lock = ctx.locking ? ' FOR UPDATE' : '';
  }

  async get(id: string): Promise<ReviewRecord | undefined> {
    const { rows } = await this.ctx.db.query<ReviewRow>(`SELECT data, state FROM reviews WHERE id = $1${this.lock}`, [id]);
    return rows[0] && toReview(rows[0]);
  }

  async insert(review: ReviewRecord): Promise<void> {
    const { body, state } = split(review);
    const { rowCount } = await this.ctx.db.query('INSERT INTO reviews (id, kind, entity_id, status, data, state) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [
      review.id,
      review.kind,
      review.entityId,
      review.status,
      JSON.stringify(body),
      JSON.stringify(state),
    ]);
    if (rowCount === 0) throw new DuplicateKeyError(`review ${review.id}`);
  }

  /** Writes the decision fields; the submitted part stays as inserted. */
  async update(review: ReviewRecord): Promise<void> {
    await this.ctx.db.query('UPDATE reviews SET status = $1, state = $2 WHERE id = $3', [review.status, JSON.stringify(split(review).state), review.id]);
  }

  async list(query: ReviewQuery): Promise<Page<ReviewRecord>> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.kind !== undefined) {
      params.push(query.kind);
      where.push(`kind = $${params.length}`);
    }
    if (query.entityId !== undefined) {
      params.push(query.entityId);
      where.push(`entity_id = $${params.length}`);
    }
    if (query.statuses !== undefined) {
      if (query.statuses.length === 0) return { items: [], total: 0 };
      params.push(query.statuses);
      where.push(`status = ANY($${params.length}::text[])`);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    params.push(query.limit, query.offset);
    const { rows } = await this.ctx.db.query<{ total: number; data: string | null; state: string | null }>(
      `SELECT c.total, r.data, r.state
       FROM (SELECT COUNT(*) AS total FROM reviews ${clause}) c
       LEFT JOIN LATERAL (SELECT seq, data, state FROM reviews ${clause} ORDER BY seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}) r ON true
       ORDER BY r.seq DESC`,
      params,
    );
    const items: ReviewRecord[] = [];
    for (const row of rows) if (row.data !== null && row.state !== null) items.push(toReview({ data: row.data, state: row.state }));
    return { total: rows[0]?.total ?? 0, items };
  }

  async withStatus(status: string): Promise<ReviewRecord[]> {
    const { rows } = await this.ctx.db.query<ReviewRow>('SELECT data, state FROM reviews WHERE status = $1 ORDER BY seq', [status]);
    return rows.map(toReview);
  }
}

function toReview(row: ReviewRow): ReviewRecord {
  return Object.assign(JSON.parse(row.data) as Record<string, unknown>, JSON.parse(row.state) as Record<string, unknown>) as unknown as ReviewRecord;
}

function split(review: ReviewRecord): { body: Record<string, unknown>; state: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(review)) (STATE_FIELDS.includes(key) ? state : body)[key] = value;
  return { body, state };
}
