/**
 * A delivery lease claimed on a store with leases (PostgreSQL): a sweep that comes while the claim
 * is still on its way must not claim, and deliver, a second time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance } from '../../compose.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { describeWithPostgres } from '../../test-support/test-environment.js';
import { startTestReceiver, waitUntil, type TestReceiver } from '../../test-support/webhook-receiver.js';

const ADMIN = 'console-lease-claim-admin';

describeWithPostgres('webhook delivery lease', () => {
  let db: TestDatabase;
  let receiver: TestReceiver;
  let instance: ConsoleInstance;
  /** Sweeps the dispatcher has finished: the test waits for sweeps, not for the clock. */
  let sweeps = 0;
  const sweepWaiters: (() => void)[] = [];
  const sweepsPass = async (count: number): Promise<void> => {
    const target = sweeps + count;
    while (sweeps < target) await new Promise<void>((resolve) => sweepWaiters.push(resolve));
  };
  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startTestReceiver();
    // A 4 s window: leases of 500 ms, so the dispatcher sweeps every 166 ms.
    instance = createConsole({ db: db.url, bootstrapKey: ADMIN, publicUrl: 'http://console.test', webhookTimeoutMs: 4_000 });
    const reviews = instance.store.reviews;
    const withStatus = reviews.withStatus.bind(reviews);
    reviews.withStatus = async (...args) => {
      try {
        return await withStatus(...args);
      } finally {
        sweeps += 1;
        for (const wake of sweepWaiters.splice(0)) wake();
      }
    };
    await instance.app.ready();
  });
  afterAll(async () => {
    await instance.close();
    await receiver.close();
    await db.drop();
  });

  const call = (method: string, url: string, body?: unknown) =>
    instance.app.inject({ method: method as 'GET', url, headers: { 'service-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

  it('is claimed once while its first claim is slow, and delivered once; no renewal outlives the review', async () => {
    const leases = instance.store.leases!;
    const acquire = leases.acquire.bind(leases);
    let slowed = false;
    let acquired = 0;
    leases.acquire = async (name, owner, ttlMs) => {
      if (name.startsWith('webhook:') && !slowed) {
        slowed = true;
        // Held over two whole sweeps: each of them would claim again.
        await sweepsPass(2);
      }
      acquired += 1;
      return acquire(name, owner, ttlMs);
    };
    await call('POST', '/console/v1/gates', { id: 'gate1', name: 'gate1' });
    await call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: 'lease-claim-key' });
    const id = (await call('POST', '/console/v1/gates/gate1/reviews', { change: { isEnabled: false } })).json().data.reviewID as string;
    await call('PUT', `/console/v1/gates/gate1/reviews/${id}/approve`);
    expect((await call('PUT', `/console/v1/gates/gate1/reviews/${id}/commit`)).json().data.status).toBe('pending_webhook_validation');
    await waitUntil(() => receiver.received.length > 0 || undefined, 5_000, 'the delivery');
    // Two more sweeps: a second claim made meanwhile would have delivered by then.
    await sweepsPass(2);
    expect(receiver.received.filter((hook) => hook.body['review_id'] === id)).toHaveLength(1);
    // Decided: the lease is released, and renewals (every third of a lease, as sweeps) stop.
    const validator = (await instance.auth.createKey({ description: 'receiver', userEmail: 'receiver@example.com', role: 'webhook_receiver' })).secret;
    const decided = await instance.app.inject({ method: 'POST', url: '/console/v1/change_validation', headers: { 'service-api-key': validator, 'content-type': 'application/json' }, payload: JSON.stringify({ reviewID: id, validated: true }) });
    expect(decided.statusCode, decided.body).toBe(200);
    // One sweep lets a renewal already on its way land; after it, three sweeps see none.
    await sweepsPass(1);
    const settled = acquired;
    await sweepsPass(3);
    expect(acquired).toBe(settled);
  });
});
