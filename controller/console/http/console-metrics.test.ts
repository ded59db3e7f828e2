import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { createConsoleMetrics } from './console-metrics.js';

const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };

/** The value of one sample line (`name{labels} value`) of a Prometheus text exposition, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })).statusCode).toBe(201);
});
afterEach(() => c.close());

const scrape = async (): Promise<string> => {
  const res = await c.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  return res.body;
};

describe('GET /metrics', () => {
  it('answers without a key in the Prometheus text format, with the process metrics', async () => {
    const res = await c.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE flagops_http_requests_total counter');
    expect(res.body).toContain('# TYPE flagops_http_request_duration_seconds histogram');
    expect(res.body).toContain('# TYPE flagops_reviews gauge');
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).toContain('nodejs_eventloop_lag_seconds');
    expect(sample(res.body, 'flagops_store_errors_total')).toBe(0);
    expect(sample(res.body, 'flagops_webhook_deliveries_total{outcome="timed_out"}')).toBe(0);
  });

  it('counts requests by method, matched route pattern and status, never by raw URL', async () => {
    for (let i = 0; i < 3; i++) expect((await c.call('GET', '/console/v1/gates/checkout')).statusCode).toBe(200);
    expect((await c.call('GET', '/console/v1/gates/missing_gate')).statusCode).toBe(404);
    expect((await c.call('GET', '/console/v1/gates/checkout', undefined, 'console-wrong-key')).statusCode).toBe(401);
    expect((await c.call('GET', '/no/such/path/12345')).statusCode).toBe(404);
    const text = await scrape();
    expect(sample(text, 'flagops_http_requests_total{method="GET",route="/console/v1/gates/:id",status="200"}')).toBe(3);
    expect(sample(text, 'flagops_http_requests_total{method="GET",route="/console/v1/gates/:id",status="404"}')).toBe(1);
    expect(sample(text, 'flagops_http_requests_total{method="GET",route="/console/v1/gates/:id",status="401"}')).toBe(1);
    expect(sample(text, 'flagops_http_requests_total{method="POST",route="/console/v1/gates",status="201"}')).toBe(1);
    expect(sample(text, 'flagops_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'flagops_http_request_duration_seconds_count{method="GET",route="/console/v1/gates/:id"}')).toBe(5);
    expect(sample(text, 'flagops_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/console/v1/gates/:id"}')).toBe(5);
    expect(text).not.toContain('missing_gate');
    expect(text).not.toContain('12345');
  });

  it('counts reviews by status in the store at each scrape', async () => {
    const bob = await c.keyFor('bob@example.com', 'member');
    const submit = async (): Promise<string> => {
      const res = await c.call('POST', '/console/v1/gates/checkout/reviews', { change: RULES }, bob);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.reviewID as string;
    };
    await submit();
    const canceled = await submit();
    await submit();
    expect((await c.call('DELETE', `/console/v1/gates/checkout/reviews/${canceled}`, undefined, bob)).statusCode).toBe(200);
    const text = await scrape();
    expect(sample(text, 'flagops_reviews{status="pending"}')).toBe(2);
    expect(sample(text, 'flagops_reviews{status="canceled"}')).toBe(1);
    expect(sample(text, 'flagops_reviews{status="committed"}')).toBe(0);
  });

  it('counts a request that ended in a 500 as a store error, and still answers without review counts when the store is down', async () => {
    await c.store.close();
    expect((await c.call('GET', '/console/v1/gates')).statusCode).toBe(500);
    const text = await scrape();
    expect(sample(text, 'flagops_store_errors_total')).toBe(1);
    expect(sample(text, 'flagops_http_requests_total{method="GET",route="/console/v1/gates",status="500"}')).toBe(1);
    expect(text).not.toMatch(/^flagops_reviews\{/m);
  });

  it('gives every console a registry of its own', async () => {
    const other = createTestConsole();
    try {
      expect((await c.call('GET', '/console/v1/gates/checkout')).statusCode).toBe(200);
      const text = (await other.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(text).not.toContain('route="/console/v1/gates/:id"');
    } finally {
      await other.close();
    }
  });
});

describe('createConsoleMetrics', () => {
  it('puts each duration in the first bucket whose bound it does not exceed, cumulatively, and scrapes the same totals twice', async () => {
    const metrics = createConsoleMetrics();
    for (const seconds of [0.0003, 0.001, 0.003, 0.003, 0.2, 100]) metrics.request('GET', '/console/v1/gates/:id', 200, seconds);
    metrics.request('GET', undefined, 404, 0.0001);
    for (let scrape = 0; scrape < 2; scrape++) {
      const text = await metrics.registry.metrics();
      expect(text).toContain('# TYPE flagops_http_request_duration_seconds histogram');
      const bucket = (le: string) => sample(text, `flagops_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/console/v1/gates/:id"}`);
      expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025'), bucket('0.005'), bucket('0.1'), bucket('0.25'), bucket('60'), bucket('+Inf')]).toEqual([1, 2, 2, 4, 4, 5, 5, 6]);
      expect(sample(text, 'flagops_http_request_duration_seconds_count{method="GET",route="/console/v1/gates/:id"}')).toBe(6);
      expect(sample(text, 'flagops_http_request_duration_seconds_sum{method="GET",route="/console/v1/gates/:id"}')).toBeCloseTo(100.2073, 6);
      expect(sample(text, 'flagops_http_requests_total{method="GET",route="/console/v1/gates/:id",status="200"}')).toBe(6);
      expect(sample(text, 'flagops_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    }
  });

  it('counts webhook deliveries by outcome', async () => {
    const metrics = createConsoleMetrics();
    metrics.webhookDelivery('delivered');
    metrics.webhookDelivery('delivered');
    metrics.webhookDelivery('failed');
    const text = await metrics.registry.metrics();
    expect(sample(text, 'flagops_webhook_deliveries_total{outcome="delivered"}')).toBe(2);
    expect(sample(text, 'flagops_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expect(sample(text, 'flagops_webhook_deliveries_total{outcome="timed_out"}')).toBe(0);
  });
});
