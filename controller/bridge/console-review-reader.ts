import { NotFoundError, UpstreamError } from '../errors.js';
import type { ConsoleClient, Envelope } from '../reconcile/console-client.js';
import type { ReviewFacts, ReviewReader } from './bridge-service.js';

/**
 * Reviews per page of a listing: more than `flagops apply` keeps in flight at once (64), and few
 * enough that a page of large configs stays a modest response.
 */
const PAGE_SIZE = 200;
/** Pages one listing reads at most while reviews it waits for are still missing. */
const MAX_PAGES = 5;
/** Reviews kept for deliveries still to come: a review's change and description never change once submitted. */
const KEPT_MAX = 10_000;

interface Waiter {
  resolve: (review: ReviewFacts) => void;
  reject: (error: unknown) => void;
}

export interface ConsoleReviewReaderOptions {
  /** Reviews per page of a listing (default 200). */
  pageSize?: number;
}

interface ReviewItem {
  reviewID?: unknown;
  description?: unknown;
  configType?: unknown;
  configName?: unknown;
  type?: unknown;
  oldConfig?: unknown;
  newConfig?: unknown;
}

function configOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** What the bridge judges of a review, as the console shows it; undefined for an item that is not a review. */
function factsOf(item: ReviewItem): ReviewFacts | undefined {
  if (typeof item.reviewID !== 'string' || typeof item.configType !== 'string' || typeof item.configName !== 'string') return undefined;
  return {
    description: typeof item.description === 'string' ? item.description : undefined,
    configType: item.configType,
    configName: item.configName,
    type: typeof item.type === 'string' ? item.type : null,
    oldConfig: configOf(item.oldConfig),
    newConfig: configOf(item.newConfig),
  };
}

/**
 * Reads reviews (the change each proposes, and its description) through the console's API (the key
 * needs `read`), as any client would.
 *
 * `flagops apply` commits its reviews together, so their deliveries arrive in bursts, and a burst's
 * reviews are the ones pending validation. The reviews asked for in one turn of the event loop
 * are read together: two or more with one listing of the reviews pending validation instead of a
 * `GET` each, a lone one with its `GET`. A listing also brings the reviews of deliveries still on
 * their way, which then need no request at all. While a listing is in flight, what is asked waits for
 * it (the console answers it after those reviews were delivered, so it usually holds them). A listing
 * reads further pages (newest first) while reviews it was asked for are missing, up to MAX_PAGES; a
 * review it still lacks (its status moved on, or it lies further back), or any when it failed, is
 * read on its own; a console without the listing (404) is not asked for one again.
 */
export class ConsoleReviewReader implements ReviewReader {
  private readonly kept = new Map<string, ReviewFacts>();
  private waiting = new Map<string, Waiter[]>();
  private flushing = false;
  private listing: Promise<void> | undefined;
  /** Set when the console has no listing of reviews (404): every review is then read on its own. */
  private noListing = false;
  private readonly pageSize: number;

  constructor(
    private readonly client: ConsoleClient,
    options: ConsoleReviewReaderOptions = {},
  ) {
    this.pageSize = options.pageSize ?? PAGE_SIZE;
  }

  review(reviewID: string): Promise<ReviewFacts> {
    const kept = this.kept.get(reviewID);
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(reviewID);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(reviewID, [{ resolve, reject }]);
      if (this.flushing) return;
      this.flushing = true;
      setImmediate(() => this.flush());
    });
  }

  /** Answers what this turn asked: from the listing in flight, a new listing, or a `GET`. */
  private flush(): void {
    this.flushing = false;
    const batch = this.waiting;
    this.waiting = new Map();
    if (this.listing) {
      void this.listing.then(() => this.answer(batch));
      return;
    }
    if (batch.size < 2 || this.noListing) return this.answer(batch);
    const listing: Promise<void> = this.list(batch).finally(() => {
      if (this.listing === listing) this.listing = undefined;
    });
    this.listing = listing;
    void listing.then(() => this.answer(batch));
  }

  /** Keeps the reviews pending validation; never rejects (what it lacks is read on its own). */
  private async list(batch: ReadonlyMap<string, Waiter[]>): Promise<void> {
    const missing = (): boolean => [...batch.keys()].some((id) => !this.kept.has(id));
    try {
      let next: string | null = `/console/v1/reviews?status=pending_webhook_validation&page=1&limit=${this.pageSize}`;
      for (let pages = 0; next !== null && pages < MAX_PAGES && missing(); pages++) {
        const page: Envelope<ReviewItem[]> = await this.client.request<ReviewItem[]>('GET', next);
        for (const item of Array.isArray(page.data) ? page.data : []) {
          const facts = factsOf(item);
          if (facts) this.keep(item.reviewID as string, facts);
        }
        next = page.pagination?.nextPage ?? null;
      }
    } catch (error) {
      // Each review is then read on its own, and a failure is reported for the review it concerns.
      if (error instanceof NotFoundError) this.noListing = true;
    }
  }

  /** Resolves what is kept; reads the rest one by one. */
  private answer(batch: ReadonlyMap<string, Waiter[]>): void {
    for (const [id, waiters] of batch) {
      const kept = this.kept.get(id);
      const answered = kept ? Promise.resolve(kept) : this.readOne(id);
      answered.then(
        (review) => {
          for (const w of waiters) w.resolve(review);
        },
        (error: unknown) => {
          for (const w of waiters) w.reject(error);
        },
      );
    }
  }

  private async readOne(reviewID: string): Promise<ReviewFacts> {
    const { data } = await this.client.request<ReviewItem>('GET', `/console/v1/reviews/${encodeURIComponent(reviewID)}`);
    const facts = data && data.reviewID === reviewID ? factsOf(data) : undefined;
    if (!facts) throw new UpstreamError(`console: GET /console/v1/reviews/${reviewID} did not answer with that review`);
    this.keep(reviewID, facts);
    return facts;
  }

  private keep(reviewID: string, facts: ReviewFacts): void {
    if (this.kept.has(reviewID)) return;
    // Oldest first out (a Map iterates in insertion order).
    if (this.kept.size >= KEPT_MAX) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(reviewID, facts);
  }
}
