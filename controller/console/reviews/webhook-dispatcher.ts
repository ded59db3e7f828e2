import type { WebhookChangeType } from '../../core/change-type.js';
import type { ReviewRecord, ReviewValidationRecord, Store } from '../../store/ports.js';
import type { ReviewChanges } from './review-changes.js';
import type { ValidationQueue } from './review-service.js';
import type { SettingsService } from './settings-service.js';
import { sharedHttpClient, type SendHttp } from '../../net/http-client.js';
import { buildWebhookPayload } from './webhook-payload.js';

export interface RetryPolicy {
  /** Delay before the second attempt; doubles after every failure. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Longest wait for one attempt's response (also bounded by what is left of the window). */
  attemptTimeoutMs: number;
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.round(value)));

/**
 * Backoff scaled to the validation window: 250 ms doubling to 10 s for the default 2-minute window, and
 * proportionally faster for the short windows tests use, so a few retries always fit.
 */
export function retryPolicyFor(windowMs: number): RetryPolicy {
  return {
    initialDelayMs: clamp(windowMs / 480, 10, 250),
    maxDelayMs: clamp(windowMs / 12, 50, 10_000),
    attemptTimeoutMs: clamp(windowMs / 4, 100, 10_000),
  };
}

export interface WebhookDispatcherDeps {
  store: Store;
  clock: () => number;
  settings: SettingsService;
  retry: RetryPolicy;
  /** Operational messages; never handed the webhook key. */
  log: (message: string, fields: Record<string, unknown>) => void;
  /** Sends one delivery: the process's kept-alive HTTP client unless a test hands in another. */
  send?: SendHttp;
  /** Wakes review long polls after a review record is written. */
  changes?: ReviewChanges;
  /**
   * This process's name among the replicas sharing the database (stores with leases): a review's
   * webhook is delivered by whichever replica holds its lease.
   */
  owner?: string;
  /** How long a delivery lease lasts without renewal: how soon another replica takes over a dead one's. */
  leaseMs?: number;
  /** Counts delivery outcomes for /metrics. */
  metrics?: { webhookDelivery(outcome: 'delivered' | 'failed' | 'timed_out'): void };
}

interface Job {
  retryTimer?: NodeJS.Timeout;
  deadlineTimer?: NodeJS.Timeout;
  /** Aborts the attempt in flight, if any. */
  abortAttempt?: () => void;
  settled: boolean;
  inFlight?: Promise<void>;
  /** A decision wrote the attempt in flight as delivered: its success writes nothing. */
  deliveryTaken?: boolean;
  /** This replica holds the delivery lease (always, on a store without leases). */
  leased: boolean;
  /** A claim of the lease is on its way: a sweep meanwhile must not claim (and deliver) a second time. */
  claiming?: boolean;
  leaseTimer?: NodeJS.Timeout;
  /** Whether the review still needs its webhook delivered (no successful delivery recorded yet). */
  undelivered: boolean;
  /**
   * Delivered before this process started, and still undecided: the receiver's answer may have been
   * lost while no console was there to take it, so it is delivered once more.
   */
  redeliver?: boolean;
}

/** Lease names of webhook deliveries. */
const leaseName = (reviewId: string): string => `webhook:${reviewId}`;

const PENDING = 'pending_webhook_validation';

/**
 * How long a successful delivery's stamp may wait to be written. A receiver usually decides within
 * milliseconds, and the decision's transaction then writes the stamp too: one write transaction less
 * per review (bench:reviews). A crash inside this window means the webhook is sent again after the
 * restart, which receivers must tolerate anyway (a lost response has the same effect).
 */
const STAMP_DELAY_MS = 100;

type Pending = ReviewRecord & { validation: ReviewValidationRecord };

function asPending(review: ReviewRecord | undefined): Pending | undefined {
  return review?.status === PENDING && review.validation ? (review as Pending) : undefined;
}

/**
 * Delivers the pre-commit webhook of every review pending validation: POST with the
 * x-service-webhook-key header, retried with exponential backoff while the validation window lasts,
 * and turns a review nobody decided in time into `validation_timed_out`. Everything it knows lives
 * in the review records, so `start()` after a restart resumes deliveries and expires what expired
 * while the console was down. Several replicas on one database share the work: every replica watches
 * every pending review's deadline (expiring one is idempotent), and only the holder of a review's
 * lease delivers its webhook; a replica that dies stops renewing, and another one takes over.
 */
export class WebhookDispatcher implements ValidationQueue {
  private readonly jobs = new Map<string, Job>();
  /** Successful deliveries not written yet: review id → delivered time. */
  private readonly unwritten = new Map<string, number>();
  private stampTimer: NodeJS.Timeout | undefined;
  /** Jobs with an attempt in flight, settled ones included (a decided review's delivery may finish). */
  private readonly delivering = new Set<Job>();
  private readonly retry: RetryPolicy;
  private readonly send: SendHttp;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly owner: string;
  private readonly leaseMs: number;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.retry = deps.retry;
    this.send = deps.send ?? sharedHttpClient.send;
    this.owner = deps.owner ?? 'console';
    this.leaseMs = deps.leaseMs ?? 5000;
  }

  /**
   * Resumes every persisted pending validation. With several replicas, looks again every third of a
   * lease for validations other replicas started, and for deliveries whose lease a dead replica left.
   */
  async start(): Promise<void> {
    await this.sweep(true);
    if (this.deps.store.leases && !this.stopped) {
      this.sweepTimer = setInterval(() => void this.sweep().catch((error: unknown) => this.deps.log('webhook sweep failed', { error: describePostError(error) })), Math.max(10, Math.floor(this.leaseMs / 3)));
      this.sweepTimer.unref();
    }
  }

  /**
   * Announcements of other replicas' writes may have been missed (the connection carrying them
   * dropped): looks at every pending validation again.
   */
  async resync(): Promise<void> {
    if (!this.stopped) await this.sweep();
  }

  /** `resume`: the first sweep after a start, which delivers again what was delivered but not decided. */
  private async sweep(resume = false): Promise<void> {
    const pending = await this.deps.store.reviews.withStatus(PENDING);
    const ids = new Set(pending.map((r) => r.id));
    for (const review of pending) {
      const job = this.jobs.get(review.id);
      if (!job) this.schedule(review, resume);
      else if (!job.leased && !job.claiming && job.undelivered && review.validation?.deliveredTime === null) void this.claim(review.id, job);
    }
    // Decided or expired through another replica: stop watching.
    for (const id of [...this.jobs.keys()]) if (!ids.has(id)) this.settle(id, true);
  }

  /** A review written by another replica: stop at once when it is no longer pending. */
  async reviewChanged(reviewId: string): Promise<void> {
    if (!this.jobs.has(reviewId)) return;
    if ((await this.pending(reviewId)) === undefined) this.settle(reviewId, true);
  }

  enqueue(review: ReviewRecord): void {
    this.schedule(review);
  }

  settle(reviewId: string, letDeliveryFinish = false): void {
    const job = this.jobs.get(reviewId);
    if (!job) return;
    clearTimeout(job.retryTimer);
    clearTimeout(job.deadlineTimer);
    job.settled = true;
    if (!letDeliveryFinish) job.abortAttempt?.();
    this.jobs.delete(reviewId);
    this.releaseLease(reviewId, job);
  }

  private releaseLease(reviewId: string, job: Job): void {
    clearInterval(job.leaseTimer);
    job.leaseTimer = undefined;
    const { leases } = this.deps.store;
    if (!leases || !job.leased) return;
    job.leased = false;
    void leases.release(leaseName(reviewId), this.owner).catch(() => undefined);
  }

  /**
   * Takes the review's delivery lease and delivers; keeps renewing it while the job lasts. A replica
   * that loses the lease (it could not renew in time) stops delivering: another one holds it now.
   */
  private async claim(reviewId: string, job: Job, fresh?: Pending): Promise<void> {
    const { leases } = this.deps.store;
    if (leases) {
      if (job.claiming || job.leased) return;
      let got = false;
      job.claiming = true;
      try {
        got = await leases.acquire(leaseName(reviewId), this.owner, this.leaseMs);
      } catch (error) {
        this.deps.log('webhook lease failed', { review: reviewId, error: describePostError(error) });
      } finally {
        job.claiming = false;
      }
      if (!got || job.settled || this.stopped) {
        if (got) void leases.release(leaseName(reviewId), this.owner).catch(() => undefined);
        return;
      }
      job.leased = true;
      clearInterval(job.leaseTimer);
      job.leaseTimer = setInterval(() => {
        leases.acquire(leaseName(reviewId), this.owner, this.leaseMs).then(
          (kept) => {
            if (!kept && job.leased) {
              job.leased = false;
              clearInterval(job.leaseTimer);
              clearTimeout(job.retryTimer);
            }
          },
          () => undefined,
        );
      }, Math.max(10, Math.floor(this.leaseMs / 3)));
      job.leaseTimer.unref();
      // Read again under the lease: the previous holder may have delivered meanwhile.
      fresh = undefined;
    }
    this.attempt(reviewId, job, fresh);
  }

  takeDelivery(reviewId: string, decision: boolean): number | undefined {
    const time = this.unwritten.get(reviewId);
    if (time !== undefined) {
      this.unwritten.delete(reviewId);
      return time;
    }
    // Decided while the attempt is in flight: the decision's transaction writes the delivery, so its
    // answer, when it comes, writes nothing (a transaction less per review in bench:reviews).
    const job = decision ? this.jobs.get(reviewId) : undefined;
    if (job?.inFlight === undefined) return undefined;
    job.deliveryTaken = true;
    return this.deps.clock();
  }

  /** Writes every deferred delivery stamp the decisions did not take, in one transaction. */
  private async writeStamps(): Promise<void> {
    clearTimeout(this.stampTimer);
    this.stampTimer = undefined;
    if (this.unwritten.size === 0) return;
    const stamps = [...this.unwritten];
    this.unwritten.clear();
    const written = await this.deps.store.transaction(async (tx) => {
      const ids: string[] = [];
      for (const [reviewId, deliveredTime] of stamps) {
        const review = await tx.reviews.get(reviewId);
        // Whatever became of the review (timed out, canceled), the webhook was delivered.
        if (!review?.validation || review.validation.deliveredTime !== null) continue;
        await tx.reviews.update({ ...review, validation: { ...review.validation, attempts: review.validation.attempts + 1, deliveredTime, lastError: null } });
        ids.push(reviewId);
      }
      return ids;
    });
    this.announce(written);
  }

  /** Wakes the waiters of reviews this dispatcher wrote, here and in the other replicas. */
  private announce(ids: Iterable<string>): void {
    for (const id of ids) {
      this.deps.changes?.changed(id);
      this.deps.store.publish?.({ topic: 'review', id }).catch(() => undefined);
    }
  }

  /** Number of validations being watched (for tests and shutdown). */
  get active(): number {
    return this.jobs.size;
  }

  /** Stops timers and in-flight deliveries and waits for them; pending validations stay persisted. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    // Settling releases the leases: another replica takes the deliveries over at once, not after expiry.
    for (const id of [...this.jobs.keys()]) this.settle(id);
    const inFlight = [...this.delivering].map((job) => (job.abortAttempt?.(), job.inFlight));
    await Promise.allSettled(inFlight);
    await this.writeStamps().catch((error: unknown) => this.deps.log('webhook delivery stamps not written', { error: describePostError(error) }));
  }

  private async pending(reviewId: string): Promise<Pending | undefined> {
    return asPending(await this.deps.store.reviews.get(reviewId));
  }

  /** Watches a review the caller just read (or wrote) as pending validation. */
  private schedule(record: ReviewRecord, resume = false): void {
    const review = asPending(record);
    if (this.stopped || !review || this.jobs.has(review.id)) return;
    // On a start, a delivered review still pending is delivered again (promptly, not at the end of its
    // window): with replicas only when no live one holds its lease, i.e. awaits the answer itself.
    const redeliver = resume && review.validation.deliveredTime !== null;
    const job: Job = { settled: false, leased: !this.deps.store.leases, undelivered: redeliver || review.validation.deliveredTime === null, redeliver };
    this.jobs.set(review.id, job);
    this.watchDeadline(review.id, job, review.validation.deadline);
    if (this.jobs.has(review.id) && job.undelivered) void this.claim(review.id, job, review);
  }

  private watchDeadline(reviewId: string, job: Job, deadline: number): void {
    const left = deadline - this.deps.clock();
    if (left <= 0) {
      this.expire(reviewId);
      return;
    }
    job.deadlineTimer = setTimeout(() => this.watchDeadline(reviewId, job, deadline), left);
    job.deadlineTimer.unref();
  }

  private expire(reviewId: string): void {
    if (this.stopped) return;
    this.expireNow(reviewId).catch((error: unknown) => {
      // The database may be away for a moment: the next sweep (or restart) expires it.
      this.deps.log('pre-commit validation expiry failed', { review: reviewId, error: describePostError(error) });
    });
  }

  private async expireNow(reviewId: string): Promise<void> {
    const { store, clock } = this.deps;
    const expired = await store.transaction(async (tx) => {
      const review = asPending(await tx.reviews.get(reviewId));
      if (!review || clock() < review.validation.deadline) return false;
      const delivered = this.takeDelivery(reviewId, false);
      const validation = delivered === undefined ? review.validation : { ...review.validation, attempts: review.validation.attempts + 1, deliveredTime: delivered, lastError: null };
      await tx.reviews.update({ ...review, validation, status: 'validation_timed_out', lastModifiedTime: clock() });
      return true;
    });
    if (expired) {
      this.deps.metrics?.webhookDelivery('timed_out');
      this.announce([reviewId]);
      this.deps.log('pre-commit validation timed out', { review: reviewId });
    }
    this.settle(reviewId);
  }

  private attempt(reviewId: string, job: Job, fresh?: Pending): void {
    const run = this.deliver(reviewId, job, fresh)
      .catch((error: unknown) => {
        // A store error between attempts (the database away for a moment): the sweep or the
        // deadline picks the review up again.
        this.deps.log('pre-commit webhook attempt failed', { review: reviewId, error: describePostError(error) });
      })
      .finally(() => {
        if (job.inFlight !== run) return;
        job.inFlight = undefined;
        this.delivering.delete(job);
      });
    job.inFlight = run;
    this.delivering.add(job);
  }

  /** One attempt; `fresh` is the review as just read in this tick, saving a reload. */
  private async deliver(reviewId: string, job: Job, fresh?: Pending): Promise<void> {
    if (!job.leased) return;
    const review = fresh ?? (await this.pending(reviewId));
    if (!review || this.stopped) return this.settle(reviewId);
    if (review.validation.deliveredTime !== null && !job.redeliver) {
      // Delivered by the replica that held the lease before: only the deadline is left to watch.
      job.undelivered = false;
      return;
    }
    // The settings cache keys on marks only requests refresh: learn what other replicas wrote first.
    await this.deps.store.refreshMarks?.();
    const target = await this.deps.settings.webhookTarget();
    const left = review.validation.deadline - this.deps.clock();
    let failure: string | undefined;
    if (target.url === '') {
      failure = 'the pre-commit webhook is turned off';
    } else {
      // One controller per attempt, aborted by its own timer or by settle(). (AbortSignal.any and
      // AbortSignal.timeout cost far more CPU per request on Node 20.)
      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, Math.max(1, Math.min(this.retry.attemptTimeoutMs, left)));
      job.abortAttempt = () => attempt.abort();
      try {
        const { status } = await this.send({
          method: 'POST',
          url: new URL(target.url),
          headers: { 'content-type': 'application/json', 'x-service-webhook-key': target.key },
          body: JSON.stringify(buildWebhookPayload(review, review.validation.type as WebhookChangeType, review.validation.committer)),
          signal: attempt.signal,
        });
        // A redirect could carry the key to another host: it is not followed, and counts as a failure.
        if (status < 200 || status >= 300) failure = `receiver answered HTTP ${status}`;
      } catch (error) {
        failure = timedOut ? 'no response in time' : describePostError(error);
      } finally {
        clearTimeout(timer);
        job.abortAttempt = undefined;
      }
    }
    this.deps.metrics?.webhookDelivery(failure === undefined ? 'delivered' : 'failed');
    if (failure === undefined) {
      job.undelivered = false;
      if (job.deliveryTaken) return;
      // Stamped even when the review ended otherwise meanwhile (canceled, timed out).
      this.unwritten.set(reviewId, this.deps.clock());
      if (!this.stampTimer) {
        this.stampTimer = setTimeout(() => void this.writeStamps().catch((error: unknown) => this.deps.log('webhook delivery stamps not written', { error: describePostError(error) })), STAMP_DELAY_MS);
        this.stampTimer.unref();
      }
      return;
    }
    if (this.stopped || job.settled || !job.leased) return;
    const attempts = await this.recordFailure(reviewId, failure);
    if (attempts === undefined) return this.settle(reviewId);
    this.deps.log('pre-commit webhook delivery failed', { review: reviewId, attempt: attempts, error: failure });
    const delay = Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** (attempts - 1));
    if (this.deps.clock() + delay >= review.validation.deadline) return; // the deadline timer ends it
    job.retryTimer = setTimeout(() => {
      if (job.leased && !job.settled) this.attempt(reviewId, job);
    }, delay);
    job.retryTimer.unref();
  }

  /** Persists a failed attempt; returns the attempt count, or undefined when no longer pending. */
  private async recordFailure(reviewId: string, failure: string): Promise<number | undefined> {
    const attempts = await this.deps.store.transaction(async (tx) => {
      // Re-read: the receiver may have decided while the request was in flight.
      const review = asPending(await tx.reviews.get(reviewId));
      if (!review) return undefined;
      const validation = { ...review.validation, attempts: review.validation.attempts + 1, lastError: failure };
      await tx.reviews.update({ ...review, validation });
      return validation.attempts;
    });
    if (attempts !== undefined) this.announce([reviewId]);
    return attempts;
  }
}

/** A failure description without the URL (it may carry credentials) or the key. */
function describePostError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'AbortError') return 'request aborted';
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return `request failed: ${code}`;
    return 'request failed';
  }
  return 'request failed';
}
