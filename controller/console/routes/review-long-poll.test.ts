/**
 * GET /console/v1/reviews/{id}?waitWhile=: the held read answers when the review is written in this
 * process (woken by ReviewChanges, not by its re-read timer, which these consoles set to a minute),
 * and still notices writes no notification announces (another process) through the re-read timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance } from '../../compose.js';

const ADMIN = 'long-poll-admin-key';
const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };

let c: ConsoleInstance | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function setup(reviewRecheckMs: number) {
  const instance = createConsole({ db: ':memory:', bootstrapKey: ADMIN, publicUrl: 'http://console.test', reviewRecheckMs });
  c = instance;
  await instance.app.ready();
  const call = async (method: string, url: string, body?: unknown, key = ADMIN) => {
    const res = await instance.app.inject({
      method: method as 'GET',
      url,
      headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { statusCode: res.statusCode, body: res.json() as { data: { status: string; reviewID: string }; errors?: { property: string }[] } };
  };
  const bob = (await instance.auth.createKey({ description: 'test', userEmail: 'bob@example.com', role: 'member', scopes: [] })).secret;
  const carol = (await instance.auth.createKey({ description: 'test', userEmail: 'carol@example.com', role: 'member', scopes: [] })).secret;
  expect((await call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })).statusCode).toBe(201);
  const submitted = await call('POST', '/console/v1/gates/checkout/reviews', { change: RULES }, bob);
  expect(submitted.statusCode).toBe(201);
  return { call, bob, carol, reviewID: submitted.body.data.reviewID };
}

const parked = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));

describe('review long poll', () => {
  it('answers as soon as the review is approved, without waiting for its re-read timer', async () => {
    const { call, carol, reviewID } = await setup(60_000);
    const poll = call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=25000`);
    await parked();
    expect((await call('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/approve`, undefined, carol)).statusCode).toBe(200);
    const res = await poll;
    expect(res.statusCode).toBe(200);
    expect(res.body.data.status).toBe('approved');
  }, 10_000);

  it('wakes every waiter of the review, and keeps waiting through a write that leaves the status as it is', async () => {
    const { call, bob, carol, reviewID } = await setup(60_000);
    const polls = [1, 2].map(() => call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=25000`));
    await parked();
    // A refused approval (self-approval) rolls back and writes nothing; the waiters stay parked.
    expect((await call('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/approve`, undefined, bob)).statusCode).toBe(403);
    await parked();
    expect((await call('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/reject`, { comment: 'no' }, carol)).statusCode).toBe(200);
    for (const res of await Promise.all(polls)) expect(res.body.data.status).toBe('rejected');
  }, 10_000);

  it('notices a review written past the notifier (another process on the same database) on the re-read timer', async () => {
    const { call, reviewID } = await setup(20);
    const poll = call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=25000`);
    await parked();
    const store = c?.store;
    const record = await store?.reviews.get(reviewID);
    if (!store || !record) throw new Error('review not stored');
    await store.transaction((tx) => tx.reviews.update({ ...record, status: 'canceled', canceledBy: 'bob@example.com', canceledTime: Date.now() }));
    const res = await poll;
    expect(res.body.data.status).toBe('canceled');
  }, 10_000);

  it('answers at once when the status differs, and after waitMs when it never changes', async () => {
    const { call, reviewID } = await setup(60_000);
    expect((await call('GET', `/console/v1/reviews/${reviewID}?waitWhile=approved&waitMs=25000`)).body.data.status).toBe('pending');
    expect((await call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=50`)).body.data.status).toBe('pending');
  }, 10_000);

  it('refuses a waitMs out of range with 400 naming waitMs', async () => {
    const { call, reviewID } = await setup(60_000);
    const res = await call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=25001`);
    expect(res.statusCode).toBe(400);
    expect(res.body.errors?.[0]?.property).toBe('waitMs');
  });

  it.each(['', '1e3', ' 5', '-0'])('refuses waitMs=%j, which is not digits, instead of reading it as a number', async (waitMs) => {
    const { call, reviewID } = await setup(60_000);
    const res = await call('GET', `/console/v1/reviews/${reviewID}?waitWhile=pending&waitMs=${encodeURIComponent(waitMs)}`);
    expect(res.statusCode).toBe(400);
    expect(res.body.errors?.[0]?.property).toBe('waitMs');
  });
});
