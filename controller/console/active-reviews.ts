import { OPEN_REVIEW_STATUSES, REVIEWABLE_KINDS } from '../../schemas/review.js';
import type { ReviewRepo } from '../store/ports.js';

export interface ActiveReview {
  reviewID: string;
  reviewStatus: string;
  description: string;
}

/** More open reviews than any one kind has in practice; a list read asks the store once for all of them. */
const OPEN_REVIEWS_READ = 10_000;

/**
 * The newest open review of each entity of `kind` (of one entity when `entityId` is given), by
 * entity id; empty for kinds that have no reviews.
 */
export async function activeReviewsOf(reviews: ReviewRepo, kind: string, entityId?: string): Promise<Map<string, ActiveReview>> {
  const out = new Map<string, ActiveReview>();
  if (!REVIEWABLE_KINDS.includes(kind)) return out;
  const page = await reviews.list({ kind, ...(entityId === undefined ? {} : { entityId }), statuses: OPEN_REVIEW_STATUSES, offset: 0, limit: entityId === undefined ? OPEN_REVIEWS_READ : 1 });
  // Newest first: the first review seen of an entity is its active one.
  for (const r of page.items) if (!out.has(r.entityId)) out.set(r.entityId, { reviewID: r.id, reviewStatus: r.status, description: r.description });
  return out;
}
