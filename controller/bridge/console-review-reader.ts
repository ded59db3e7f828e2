import type { ConsoleClient, Envelope } from '../reconcile/console-client.js';
import type { ReviewReader } from './bridge-service.js';

/**
 * Reviews per page of a listing: more than `flagops apply` keeps in flight at once (64), and few
 * enough that a page of large configs stays a modest response.
 */
const PAGE_SIZE = 200;
/** Pages one listing reads at most while reviews it waits for are still missing. */
const MAX_PAGES = 5;
/** Descriptions kept for deliveries still to come: a review's description never changes once submitted. */
const KEPT_MAX = 10_000;

interface Waiter {
  resolve: (description: string | undefined) => void;
  reject: (error: unknown) => void;
}

export interface ConsoleReviewReaderOptions {
  /** Reviews per page of a listing (default 200). */
  pageSize?: number;
}

interface ReviewItem {
  reviewID?: unknown;
  description?: unknown;
}

/**
 * Reads review descriptions through the console's API (the key needs `read`), as any client would.
 *
 * `flagops apply` commits its reviews together, so their deliveries arrive in bursts, and a burst's
 * reviews are the ones pending validation. The first description asked starts a listing of the
 * reviews pending validation at once; those asked while it is in flight are answered by it when it
 * holds them (the console answers it after they were delivered), else by the next listing, instead
 * of a `GET` each. A listing also brings the descriptions of deliveries still on their way: those need
 * no request at all. A listing reads further pages (newest first) while reviews it was asked for are
 * missing, up to MAX_PAGES; a review it still lacks (its status moved on, or it lies further back),
 * or any when the listing failed, is read on its own.
 */
export class ConsoleReviewReader implements ReviewReader {
  private readonly kept = new Map<string, string | undefined>();
  private waiting = new Map<string, Waiter[]>();
  private listing = false;

  private readonly pageSize: number;

  constructor(
    private readonly client: ConsoleClient,
    options: ConsoleReviewReaderOptions = {},
  ) {
    this.pageSize = options.pageSize ?? PAGE_SIZE;
  }

  description(reviewID: string): Promise<string | undefined> {
    if (this.kept.has(reviewID)) return Promise.resolve(this.kept.get(reviewID));
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(reviewID);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(reviewID, [{ resolve, reject }]);
      this.schedule();
    });
  }

  /** Starts a listing unless one is in flight: what is asked meanwhile is answered by that one when it holds it, else by the next. */
  private schedule(): void {
    if (this.listing) return;
    this.listing = true;
    void this.list().finally(() => {
      this.listing = false;
      if (this.waiting.size > 0) this.schedule();
    });
  }

  private async list(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    const missing = (): boolean => [...batch.keys()].some((id) => !this.kept.has(id));
    let failed = false;
    try {
      let next: string | null = `/console/v1/reviews?status=pending_webhook_validation&page=1&limit=${this.pageSize}`;
      for (let pages = 0; next !== null && pages < MAX_PAGES && missing(); pages++) {
        const page: Envelope<ReviewItem[]> = await this.client.request<ReviewItem[]>('GET', next);
        for (const item of Array.isArray(page.data) ? page.data : []) {
          if (typeof item.reviewID === 'string') this.keep(item.reviewID, typeof item.description === 'string' ? item.description : undefined);
        }
        next = page.pagination?.nextPage ?? null;
      }
    } catch {
      // Each review is then read on its own, and a failure is reported for the review it concerns.
      failed = true;
    }
    // Asked while the listing was in flight: answered by it when it holds them, else by the next
    // listing (or on their own, when this one failed).
    for (const [id, waiters] of this.waiting) {
      if (!this.kept.has(id) && !failed) continue;
      this.waiting.delete(id);
      batch.set(id, [...(batch.get(id) ?? []), ...waiters]);
    }
    for (const [id, waiters] of batch) {
      const answered = this.kept.has(id) ? Promise.resolve(this.kept.get(id)) : this.readOne(id);
      answered.then(
        (description) => {
          for (const w of waiters) w.resolve(description);
        },
        (error: unknown) => {
          for (const w of waiters) w.reject(error);
        },
      );
    }
  }

  private async readOne(reviewID: string): Promise<string | undefined> {
    const { data } = await this.client.request<ReviewItem>('GET', `/console/v1/reviews/${encodeURIComponent(reviewID)}`);
    const description = typeof data?.description === 'string' ? data.description : undefined;
    this.keep(reviewID, description);
    return description;
  }

  private keep(reviewID: string, description: string | undefined): void {
    if (this.kept.has(reviewID)) return;
    // Oldest first out (a Map iterates in insertion order).
    if (this.kept.size >= KEPT_MAX) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(reviewID, description);
  }
}
