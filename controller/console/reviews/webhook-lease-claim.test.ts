/**
 * A delivery lease claimed on a store with leases (PostgreSQL): a sweep that comes while the claim
 * is still on its way must not claim, and deliver, a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance } from '../../compose.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { startTestReceiver, waitUntil, type TestReceiver } from '../../test-support/webhook-receiver.js';

const ADMIN = 'console-lease-claim-admin';

let db: TestDatabase;
let receiver: TestReceiver;
let instance: ConsoleInstance;
beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startTestReceiver();
  // A 4 s window: leases of 500 ms, so the dispatcher sweeps every 166 ms.
  instance = createConsole({ db: db.url, bootstrapKey: ADMIN, publicUrl: 'http://console.test', webhookTimeoutMs: 4_000 });
  await instance.app.ready();
});
afterAll(async () => {
  await instance.close();
  await receiver.close();
  await db.drop();
});

const call = (method: string, url: string, body?: unknown) =>
  instance.app.inject({ method: method as 'GET', url, headers: { 'service-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

describe('webhook delivery lease', () => {
  it('is claimed once while its first claim is slow, and delivered once; no renewal outlives the review', async () => {
    const leases = instance.store.leases!;
    const acquire = leases.acquire.bind(leases);
    let slowed = false;
    const acquired: number[] = [];
    leases.acquire = async (name, owner, ttlMs) => {
      if (name.startsWith('webhook:') && !slowed) {
        slowed = true;
        // Slower than two sweeps: each of them would claim again.
        await new Promise((resolve) => setTimeout(resolve, 450));
      }
      acquired.push(Date.now());
      return acquire(name, owner, ttlMs);
    };
    await call('POST', '/console/v1/gates', { id: 'gate1', name: 'gate1' });
    await call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: 'lease-claim-key' });
    const id = (await call('POST', '/console/v1/gates/gate1/reviews', { change: { isEnabled: false } })).json().data.reviewID as string;
    await call('PUT', `/console/v1/gates/gate1/reviews/${id}/approve`);
    expect((await call('PUT', `/console/v1/gates/gate1/reviews/${id}/commit`)).json().data.status).toBe('pending_webhook_validation');
    await waitUntil(() => receiver.received.length > 0 || undefined, 5_000, 'the delivery');
    // Long enough for a second claim's delivery to arrive.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.received.filter((hook) => hook.body['review_id'] === id)).toHaveLength(1);
    // Decided: the lease is released, and renewals stop.
    const validator = (await instance.auth.createKey({ description: 'receiver', userEmail: 'receiver@example.com', role: 'webhook_receiver' })).secret;
    const decided = await instance.app.inject({ method: 'POST', url: '/console/v1/change_validation', headers: { 'service-api-key': validator, 'content-type': 'application/json' }, payload: JSON.stringify({ reviewID: id, validated: true }) });
    expect(decided.statusCode, decided.body).toBe(200);
    const settledAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(acquired.filter((t) => t > settledAt + 50)).toEqual([]);
  });
});
