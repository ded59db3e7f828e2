import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { REVIEW_STATUSES } from '../../../schemas/review.js';
import type { ReviewRepo } from '../../store/ports.js';

/**
 * A pre-commit webhook outcome: an attempt the receiver accepted (2xx) or not (any other answer, no
 * answer in time, a network error), or a review whose validation window ended undecided.
 */
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
  /** One delivery attempt that ended (`delivered`, `failed`), or one review whose window ran out (`timed_out`). */
  webhookDelivery(outcome: WebhookOutcome): void;
  /** One request that ended in a 500 (an unexpected error, typically the store failing). */
  storeError(): void;
  /** Where `flagops_reviews{status}` is read from at each scrape. */
  readReviewsFrom(reviews: Pick<ReviewRepo, 'list'>): void;
  /** Events an SDK posted to `/v1/log_event`, by kind (gate_exposure, config_exposure, layer_exposure, custom, sdk_internal). */
  sdkEvents(kind: string, count: number): void;
}

interface StatusCount {
  labels: { method: string; route: string; status: string };
  count: number;
}

/** What the request path accumulates for one method and route; turned into samples at scrape time. */
interface RouteTally {
  method: string;
  route: string;
  byStatus: Map<number, StatusCount>;
  /** Observations per bucket: index i counts durations in (bound[i-1], bound[i]]; the last, those above every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * `flagops_http_request_duration_seconds` as prom-client's registry reads a histogram (`get()`), from
 * the tallies: the request path only bumps numbers, where prom-client's Histogram hashes the labels
 * of every observation (about a microsecond a request, measurable in bench:api).
 */
function durationHistogram(name: string, help: string, tallies: () => Iterable<RouteTally>): Metric {
  const samples = (): Sample[] => {
    const values: Sample[] = [];
    for (const tally of tallies()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += tally.buckets[i] ?? 0;
        values.push({ metricName: `${name}_bucket`, labels: { le: bound, method: tally.method, route: tally.route }, value: cumulative });
      });
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', method: tally.method, route: tally.route }, value: tally.count });
      values.push({ metricName: `${name}_sum`, labels: { method: tally.method, route: tally.route }, value: tally.sum });
      values.push({ metricName: `${name}_count`, labels: { method: tally.method, route: tally.route }, value: tally.count });
    }
    return values;
  };
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values: samples() }),
    reset: () => {
      for (const tally of tallies()) {
        tally.buckets.fill(0);
        tally.sum = 0;
        tally.count = 0;
      }
    },
  };
  // The registry reads any metric through get() (and reset()); prom-client's types name only its classes.
  return metric as unknown as Metric;
}

/** Prometheus metrics of one console app, on a registry of its own (tests build many apps). */
export function createConsoleMetrics(): ConsoleMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Tallies by route pattern, then method: the matched pattern is one of a bounded set. The request
  // path only looks them up and bumps numbers; the samples are built when Prometheus scrapes.
  const tallies = new Map<string, Map<string, RouteTally>>();
  const allTallies = function* (): Generator<RouteTally> {
    for (const byMethod of tallies.values()) yield* byMethod.values();
  };
  const tallyOf = (method: string, route: string): RouteTally => {
    let byMethod = tallies.get(route);
    if (!byMethod) tallies.set(route, (byMethod = new Map()));
    let tally = byMethod.get(method);
    if (!tally) byMethod.set(method, (tally = { method, route, byStatus: new Map(), buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 }));
    return tally;
  };
  new Counter({
    name: 'flagops_http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const tally of allTallies()) for (const counted of tally.byStatus.values()) this.inc(counted.labels, counted.count);
    },
  });
  registry.registerMetric(
    durationHistogram('flagops_http_request_duration_seconds', 'Time from a request arriving to its response being sent, by method and matched route pattern.', allTallies),
  );
  const deliveries = new Counter({
    name: 'flagops_webhook_deliveries_total',
    help: 'Pre-commit webhook outcomes: delivered and failed count delivery attempts; timed_out counts reviews whose validation window ended undecided.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'flagops_store_errors_total',
    help: 'Requests that ended in a 500 from an unexpected error (the store failing, a bug).',
    registers: [registry],
  });
  const sdkEvents = new Counter({
    name: 'flagops_sdk_events_total',
    help: 'Events applications sent through the Statsig SDK endpoint (POST /v1/log_event), by kind: gate_exposure, config_exposure, layer_exposure, custom, sdk_internal.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  for (const kind of ['gate_exposure', 'config_exposure', 'layer_exposure']) sdkEvents.inc({ kind }, 0);
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

  return {
    registry,
    request(method, route, status, seconds) {
      const tally = tallyOf(method, route ?? UNMATCHED_ROUTE);
      let counted = tally.byStatus.get(status);
      if (!counted) tally.byStatus.set(status, (counted = { labels: { method, route: tally.route, status: String(status) }, count: 0 }));
      counted.count += 1;
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] ?? Infinity)) bucket += 1;
      tally.buckets[bucket] = (tally.buckets[bucket] ?? 0) + 1;
      tally.sum += seconds;
      tally.count += 1;
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
    sdkEvents(kind, count) {
      sdkEvents.inc({ kind }, count);
    },
  };
}
