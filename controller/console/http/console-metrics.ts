import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REVIEW_STATUSES } from '../../../schemas/review.js';
import type { ReviewRepo } from '../../store/ports.js';

/** How one pre-commit webhook delivery ended. */
export type WebhookOutcome = 'delivered' | 'failed' | 'timed_out';

/** The route label of a request no route matched (a 404, a malformed URL): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds; from a cached read (sub-millisecond) to a long poll's wait. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface ConsoleMetrics {
  /** Everything this console exposes at `GET /metrics`; one per console, never prom-client's global one. */
  readonly registry: Registry;
  /** One answered request; `route` is the matched route pattern, or undefined when none matched. */
  request(method: string, route: string | undefined, status: number, seconds: number): void;
  /** One pre-commit webhook delivery that ended. */
  webhookDelivery(outcome: WebhookOutcome): void;
  /** One request that ended in a 500 (an unexpected error, typically the store failing). */
  storeError(): void;
  /** Where `flagops_reviews{status}` is read from at each scrape. */
  readReviewsFrom(reviews: Pick<ReviewRepo, 'list'>): void;
}

interface RouteLabels {
  /** Label objects by status, built once each: the request path reuses them. */
  byStatus: Map<number, { method: string; route: string; status: string }>;
  duration: { method: string; route: string };
}

/** Prometheus metrics of one console app, on a registry of its own (tests build many apps). */
export function createConsoleMetrics(): ConsoleMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'flagops_http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'flagops_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by method and matched route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'flagops_webhook_deliveries_total',
    help: 'Pre-commit webhook deliveries that ended, by outcome (delivered, failed, timed_out).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'flagops_store_errors_total',
    help: 'Requests that ended in a 500 from an unexpected error (the store failing, a bug).',
    registers: [registry],
  });
  // Outcomes and the unlabelled counter start at 0, so a rate() has a first sample before the first event.
  for (const outcome of ['delivered', 'failed', 'timed_out'] as const) deliveries.inc({ outcome }, 0);
  storeErrors.inc(0);

  let reviewSource: Pick<ReviewRepo, 'list'> | undefined;
  new Gauge({
    name: 'flagops_reviews',
    help: 'Reviews by status, counted in the store at scrape time.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (!reviewSource) return;
      const source = reviewSource;
      try {
        const totals = await Promise.all(REVIEW_STATUSES.map(async (status) => (await source.list({ statuses: [status], offset: 0, limit: 0 })).total));
        REVIEW_STATUSES.forEach((status, i) => this.set({ status }, totals[i] ?? 0));
      } catch {
        // The store is unreachable: the scrape still answers (the process is up), without review
        // counts rather than with stale ones; /readyz and flagops_store_errors_total tell why.
        this.reset();
      }
    },
  });

  // Label objects by route pattern and method: the matched pattern is one of a bounded set, and
  // building the labels once keeps the request path free of allocations prom-client doesn't make itself.
  const labels = new Map<string, Map<string, RouteLabels>>();
  const labelsOf = (method: string, route: string): RouteLabels => {
    let byMethod = labels.get(route);
    if (!byMethod) labels.set(route, (byMethod = new Map()));
    let entry = byMethod.get(method);
    if (!entry) byMethod.set(method, (entry = { byStatus: new Map(), duration: { method, route } }));
    return entry;
  };

  return {
    registry,
    request(method, route, status, seconds) {
      const entry = labelsOf(method, route ?? UNMATCHED_ROUTE);
      let counted = entry.byStatus.get(status);
      if (!counted) entry.byStatus.set(status, (counted = { method, route: entry.duration.route, status: String(status) }));
      requests.inc(counted);
      durations.observe(entry.duration, seconds);
    },
    webhookDelivery(outcome) {
      deliveries.inc({ outcome });
    },
    storeError() {
      storeErrors.inc();
    },
    readReviewsFrom(reviews) {
      reviewSource = reviews;
    },
  };
}
