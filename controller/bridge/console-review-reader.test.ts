import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type SendHttp } from '../net/http-client.js';
import { ConsoleClient } from '../reconcile/console-client.js';
import { useWebhookConsole } from '../test-support/webhook-console.js';
import type { ReviewFacts } from './bridge-service.js';
import { ConsoleReviewReader } from './console-review-reader.js';

const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };
const env = useWebhookConsole({ webhookKey: 'whk-review-reader', webhookTimeoutMs: 60_000, seed: async (console) => void (await console.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })) });
const http = createHttpClient();
afterAll(() => http.close());

let sent: string[];
let failListing: boolean;
let listing404: boolean;
let reader: ConsoleReviewReader;
let url: string;
let send: SendHttp;
beforeEach(async () => {
  sent = [];
  failListing = false;
  listing404 = false;
  url = await env.c.app.listen({ port: 0, host: '127.0.0.1' });
  send = async (request) => {
    const path = `${request.method} ${request.url.pathname}${request.url.search}`;
    sent.push(path);
    if (failListing && request.url.pathname === '/console/v1/reviews') throw new Error('connection reset');
    if (listing404 && request.url.pathname === '/console/v1/reviews') return { status: 404, text: JSON.stringify({ status: 404, message: 'Not found.' }) };
    return http.send(request);
  };
  reader = new ConsoleReviewReader(new ConsoleClient({ baseUrl: url, apiKey: env.validator, send }));
});

const item = (id: string) => `/console/v1/gates/checkout/reviews/${id}`;

/** A review submitted with this description and approved; committed (pending validation) unless `commit` is false. */
async function review(description: string, commit = true): Promise<string> {
  const { c, bob, carol } = env;
  const submitted = await c.call('POST', '/console/v1/gates/checkout/reviews', { change: RULES, description }, bob);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  expect((await c.call('PUT', `${item(id)}/approve`, undefined, carol)).statusCode).toBe(200);
  if (commit) expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).json().data.status).toBe('pending_webhook_validation');
  return id;
}

const described = (review: ReviewFacts): string | undefined => review.description;

const LISTING = 'GET /console/v1/reviews?status=pending_webhook_validation&page=1&limit=200';

describe('ConsoleReviewReader', () => {
  it('reads the descriptions asked together with one listing of the reviews pending validation', async () => {
    const ids = [await review('first'), await review('second'), await review('third')];
    expect(await Promise.all(ids.map((id) => reader.review(id).then(described)))).toEqual(['first', 'second', 'third']);
    expect(sent).toEqual([LISTING]);
    // Asked again (a redelivery): kept, no request.
    expect(await reader.review(ids[1]!).then(described)).toBe('second');
    expect(sent).toEqual([LISTING]);
  });

  it('reads a review asked alone with its own GET', async () => {
    const id = await review('alone');
    expect(await reader.review(id).then(described)).toBe('alone');
    expect(sent).toEqual([`GET /console/v1/reviews/${id}`]);
  });

  it('brings the change the review proposes as the console holds it, by listing or by GET', async () => {
    const [a, b] = [await review('a'), await review('b')];
    const listed = await Promise.all([reader.review(a), reader.review(b)]);
    const alone = await new ConsoleReviewReader(new ConsoleClient({ baseUrl: url, apiKey: env.validator, send })).review(a);
    for (const facts of [...listed, alone]) {
      expect(facts).toMatchObject({ configType: 'gate', configName: 'checkout', type: 'rules', oldConfig: { id: 'checkout', rules: [] } });
      expect(facts.newConfig?.['rules']).toMatchObject(RULES.rules);
    }
  });

  it('keeps what a listing brought for deliveries still to come', async () => {
    const [a, b, later] = [await review('a'), await review('b'), await review('later')];
    expect(await Promise.all([reader.review(a).then(described), reader.review(b).then(described)])).toEqual(['a', 'b']);
    expect(await reader.review(later).then(described)).toBe('later');
    expect(sent).toEqual([LISTING]);
  });

  it('answers what is asked while a listing is in flight from that listing when it holds it', async () => {
    const [a, b, c] = [await review('a'), await review('b'), await review('c')];
    const first = Promise.all([reader.review(a).then(described), reader.review(b).then(described)]);
    // The listing goes out on the next turn; c is asked after it left.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([LISTING]);
    expect(await Promise.all([first, reader.review(c).then(described)])).toEqual([['a', 'b'], 'c']);
    expect(sent).toEqual([LISTING]);
  });

  it('reads a review the listing lacks on its own', async () => {
    const approvedOnly = await review('not committed', false);
    const committed = await review('committed');
    expect(await Promise.all([reader.review(approvedOnly).then(described), reader.review(committed).then(described)])).toEqual(['not committed', 'committed']);
    expect(sent).toEqual([LISTING, `GET /console/v1/reviews/${approvedOnly}`]);
  });

  it('reads each review on its own when the listing fails', async () => {
    const ids = [await review('one'), await review('two')];
    failListing = true;
    expect(await Promise.all(ids.map((id) => reader.review(id).then(described)))).toEqual(['one', 'two']);
    expect(sent.slice(1).sort()).toEqual(ids.map((id) => `GET /console/v1/reviews/${id}`).sort());
  });

  it('stops asking a console without the listing (404) for one, and reads each review on its own', async () => {
    const ids = [await review('one'), await review('two'), await review('three'), await review('four')];
    listing404 = true;
    expect(await Promise.all(ids.slice(0, 2).map((id) => reader.review(id).then(described)))).toEqual(['one', 'two']);
    expect(await Promise.all(ids.slice(2).map((id) => reader.review(id).then(described)))).toEqual(['three', 'four']);
    expect(sent.filter((line) => line.startsWith('GET /console/v1/reviews?'))).toEqual([LISTING]);
    expect(sent.filter((line) => !line.startsWith('GET /console/v1/reviews?')).sort()).toEqual(ids.map((id) => `GET /console/v1/reviews/${id}`).sort());
  });

  it('reads further pages while reviews it was asked for are missing', async () => {
    const ids = [await review('oldest'), await review('middle'), await review('newest')];
    const paged = new ConsoleReviewReader(new ConsoleClient({ baseUrl: url, apiKey: env.validator, send }), { pageSize: 2 });
    expect(await Promise.all(ids.map((id) => paged.review(id).then(described)))).toEqual(['oldest', 'middle', 'newest']);
    expect(sent).toEqual(['GET /console/v1/reviews?status=pending_webhook_validation&page=1&limit=2', 'GET /console/v1/reviews?status=pending_webhook_validation&page=2&limit=2']);
    // The two newest: the first page holds them, so no second page is read.
    sent.length = 0;
    const fresh = new ConsoleReviewReader(new ConsoleClient({ baseUrl: url, apiKey: env.validator, send }), { pageSize: 2 });
    expect(await Promise.all([fresh.review(ids[2]!).then(described), fresh.review(ids[1]!).then(described)])).toEqual(['newest', 'middle']);
    expect(sent).toEqual(['GET /console/v1/reviews?status=pending_webhook_validation&page=1&limit=2']);
  });

  it('rejects for a review the console does not have, and only for it', async () => {
    const known = await review('known');
    const [missing, found] = await Promise.allSettled([reader.review('no-such-review').then(described), reader.review(known).then(described)]);
    expect(missing).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ name: 'NotFoundError', message: expect.stringContaining('Review not found.') }) });
    expect(found).toEqual({ status: 'fulfilled', value: 'known' });
  });
});
