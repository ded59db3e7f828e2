/**
 * The dispatcher across console restarts (a SQLite file reopened by a second console), its
 * expiry on a shifted clock, redirects, and what it logs (never the key).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance, type ConsoleOptions } from '../../compose.js';
import { startTestReceiver, waitUntil, type TestReceiver } from '../../test-support/webhook-receiver.js';

const ADMIN = 'console-dispatcher-admin';
const KEY = 'dispatcher-webhook-key-5678';

let dir: string;
let receiver: TestReceiver;
const open: ConsoleInstance[] = [];
beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-dispatch-'));
  receiver.received.length = 0;
  receiver.respondWith(200);
});
afterEach(async () => {
  for (const instance of open.splice(0)) await instance.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: Partial<ConsoleOptions> = {}): Promise<ConsoleInstance> {
  const instance = createConsole({ db: join(dir, 'console.db'), bootstrapKey: ADMIN, publicUrl: 'http://console.test', webhookTimeoutMs: 60_000, ...options });
  open.push(instance);
  await instance.app.ready();
  return instance;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely, as in app.inject's json()
type Loose = any;

async function call(instance: ConsoleInstance, method: string, url: string, body?: unknown, key = ADMIN): Promise<{ statusCode: number; json: () => Loose }> {
  return instance.app.inject({
    method: method as 'GET',
    url,
    headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const receiverKeys = new WeakMap<ConsoleInstance, string>();
/** The receiver's key (webhook_receiver): the admin key below submitted, approved and committed, so it may not decide. */
async function receiverKey(instance: ConsoleInstance): Promise<string> {
  const existing = receiverKeys.get(instance);
  if (existing !== undefined) return existing;
  const secret = (await instance.auth.createKey({ description: 'receiver', userEmail: 'receiver@example.com', role: 'webhook_receiver' })).secret;
  receiverKeys.set(instance, secret);
  return secret;
}

/** A gate with an approved rules review, committed so that it is pending validation. */
async function pendingReview(instance: ConsoleInstance): Promise<string> {
  await call(instance, 'POST', '/console/v1/gates', { id: 'gate1', name: 'gate1' });
  await call(instance, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: KEY });
  const submitted = await call(instance, 'POST', '/console/v1/gates/gate1/reviews', { change: { isEnabled: false } });
  expect(submitted.statusCode, JSON.stringify(submitted.json())).toBe(201);
  const id = submitted.json().data.reviewID as string;
  await call(instance, 'PUT', `/console/v1/gates/gate1/reviews/${id}/approve`);
  const commit = await call(instance, 'PUT', `/console/v1/gates/gate1/reviews/${id}/commit`);
  expect(commit.json().data.status).toBe('pending_webhook_validation');
  return id;
}

const review = async (instance: ConsoleInstance, id: string) => (await call(instance, 'GET', `/console/v1/reviews/${id}`)).json().data;

describe('WebhookDispatcher', () => {
  it('resumes an undelivered validation after a restart, and the decision then commits', async () => {
    receiver.respondWith(503);
    const first = await start();
    const id = await pendingReview(first);
    await waitUntil(async () => ((await review(first, id)).validation.attempts >= 1 ? true : undefined), 5000, 'first attempt');
    await first.close();
    receiver.respondWith(200);
    const delivered = receiver.received.length;

    const second = await start();
    await waitUntil(async () => ((await review(second, id)).validation.deliveredTime !== null ? true : undefined), 5000, 'delivery after restart');
    expect(receiver.received.length).toBeGreaterThan(delivered);
    expect(receiver.received.at(-1)?.headers['x-service-webhook-key']).toBe(KEY);
    expect((await call(second, 'POST', '/console/v1/change_validation', { reviewID: id, validated: true }, await receiverKey(second))).statusCode).toBe(200);
    expect((await call(second, 'PUT', `/console/v1/gates/gate1/reviews/${id}/commit`)).json().data.status).toBe('committed');
    expect((await call(second, 'GET', '/console/v1/gates/gate1')).json().data.isEnabled).toBe(false);
  });

  it('counts deliveries by outcome in /metrics: failed attempts, then the delivery', async () => {
    receiver.respondWith(503);
    const instance = await start();
    const id = await pendingReview(instance);
    await waitUntil(async () => ((await review(instance, id)).validation.attempts >= 1 ? true : undefined), 5000, 'a failed attempt');
    receiver.respondWith(200);
    await waitUntil(async () => ((await review(instance, id)).validation.deliveredTime !== null ? true : undefined), 5000, 'the delivery');
    const text = (await instance.app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (outcome: string): number => Number(new RegExp(`flagops_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1]);
    expect(count('delivered')).toBe(1);
    expect(count('failed')).toBeGreaterThanOrEqual(1);
    expect(count('timed_out')).toBe(0);
  });

  it('sends a delivered but undecided webhook once more, at once, after a restart: the answer may have been lost while it was down', async () => {
    const first = await start();
    const id = await pendingReview(first);
    await waitUntil(async () => ((await review(first, id)).validation.deliveredTime !== null ? true : undefined), 5000, 'delivery');
    await first.close();
    const sent = receiver.received.filter((h) => h.body['review_id'] === id).length;
    const second = await start();
    expect(second.webhooks.active).toBe(1);
    // Not at the end of its 60 s window: right after the start.
    await waitUntil(async () => (receiver.received.filter((h) => h.body['review_id'] === id).length > sent ? true : undefined), 5000, 'the delivery after the restart');
    expect((await call(second, 'POST', '/console/v1/change_validation', { reviewID: id, validated: true }, await receiverKey(second))).statusCode).toBe(200);
    expect((await call(second, 'PUT', `/console/v1/gates/gate1/reviews/${id}/commit`)).json().data.status).toBe('committed');
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(sent + 1);
  });

  it('expires a validation whose deadline passed while the console was down', async () => {
    let now = 1_700_000_000_000;
    const first = await start({ clock: () => now });
    const id = await pendingReview(first);
    const deadline = (await review(first, id)).validation.deadline as number;
    expect(deadline).toBe(now + 60_000);
    await first.close();
    now = deadline + 1;
    const second = await start({ clock: () => now });
    expect((await review(second, id)).status).toBe('validation_timed_out');
    expect(second.webhooks.active).toBe(0);
  });

  it('writes the delivery stamp with the decision when the receiver decides at once, else within moments on its own', async () => {
    const instance = await start();
    // The receiver decides before it answers the delivery.
    receiver.onWebhook(async (hook) => {
      await call(instance, 'POST', '/console/v1/change_validation', { reviewID: hook.body['review_id'], validated: true }, await receiverKey(instance));
    });
    try {
      const decidedAtOnce = await pendingReview(instance);
      const decided = await waitUntil(async () => {
        const r = await review(instance, decidedAtOnce);
        return r.status === 'approved_webhook_validation' && r.validation.deliveredTime !== null ? r : undefined;
      }, 5000, 'decision and stamp');
      expect(decided.validation).toMatchObject({ attempts: 1, validated: true, lastError: null });
    } finally {
      receiver.onWebhook(undefined);
    }
    const undecided = await call(instance, 'POST', '/console/v1/gates', { id: 'gate2', name: 'gate2' }).then(async () => {
      const id = (await call(instance, 'POST', '/console/v1/gates/gate2/reviews', { change: { isEnabled: false } })).json().data.reviewID as string;
      await call(instance, 'PUT', `/console/v1/gates/gate2/reviews/${id}/approve`);
      await call(instance, 'PUT', `/console/v1/gates/gate2/reviews/${id}/commit`);
      return id;
    });
    const stamped = await waitUntil(async () => {
      const r = await review(instance, undecided);
      return r.validation.deliveredTime !== null ? r : undefined;
    }, 5000, 'stamp without a decision');
    expect(stamped).toMatchObject({ status: 'pending_webhook_validation', validation: { attempts: 1, lastError: null } });
  });

  it('counts a decision made while its delivery is in flight as the delivery (written with it); a progress message does not', async () => {
    // The console's clock stands still but for the step below: a stamp taken later would show it.
    let now = Date.now();
    const instance = await start({ clock: () => now });
    const seen: Loose[] = [];
    // The receiver sends progress, then decides, and only then answers the delivery.
    receiver.onWebhook(async (hook) => {
      const reviewID = hook.body['review_id'] as string;
      expect((await call(instance, 'POST', '/console/v1/change_validation', { reviewID, message: 'checking' }, await receiverKey(instance))).statusCode).toBe(200);
      seen.push((await review(instance, reviewID)).validation);
      expect((await call(instance, 'POST', '/console/v1/change_validation', { reviewID, validated: true }, await receiverKey(instance))).statusCode).toBe(200);
      seen.push(await review(instance, reviewID));
      now += 10_000;
    });
    try {
      const id = await pendingReview(instance);
      await waitUntil(async () => (seen.length === 2 ? true : undefined), 5000, 'progress and decision');
      expect(seen[0]).toMatchObject({ message: 'checking', attempts: 0, deliveredTime: null });
      const decided = seen[1];
      expect(decided).toMatchObject({ status: 'approved_webhook_validation', validation: { attempts: 1, validated: true, lastError: null } });
      // Stamped in the decision's transaction, at the decision's time.
      expect(decided.validation.deliveredTime).toBe(decided.validation.decidedTime);
      // The delivery's answer writes nothing more (no second stamp): close() waits for it and
      // writes what is left, and a console reopened on the file reads the review as decided.
      await instance.close();
      expect(await review(await start(), id)).toEqual(decided);
    } finally {
      receiver.onWebhook(undefined);
    }
  });

  it('close() writes a delivery it has not stamped yet; a restart sends it once more', async () => {
    const first = await start();
    const id = await pendingReview(first);
    // Delivered (the console has the receiver's answer) and not stamped yet: the stamp waits for a batch.
    await waitUntil(async () => (/flagops_webhook_deliveries_total\{outcome="delivered"\} 1\b/.test((await first.app.inject({ url: '/metrics' })).body) ? true : undefined), 5000, 'the delivery');
    await first.close();
    const sent = receiver.received.filter((h) => h.body['review_id'] === id).length;
    const second = await start();
    const stamped = (await review(second, id)).validation.deliveredTime;
    expect(stamped).not.toBeNull();
    await waitUntil(async () => (receiver.received.filter((h) => h.body['review_id'] === id).length > sent ? true : undefined), 5000, 'the delivery after the restart');
    // One more, not a retry loop: after close() no further delivery comes.
    await second.close();
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(sent + 1);
    // The first delivery's stamp stays.
    expect((await review(await start(), id)).validation.deliveredTime).toBe(stamped);
  });

  it('treats a redirect as a failed attempt (the key must not follow it)', async () => {
    receiver.respondWith(302);
    const instance = await start({ webhookTimeoutMs: 2000 });
    const id = await pendingReview(instance);
    const seen = await waitUntil(async () => {
      const r = await review(instance, id);
      return r.validation.attempts >= 1 ? r : undefined;
    }, 5000, 'an attempt');
    expect(seen.validation).toMatchObject({ deliveredTime: null, lastError: 'receiver answered HTTP 302' });
  });

  it('gives up on an attempt that gets no answer in time, and tries again', async () => {
    // The receiver answers no attempt until the test ends.
    const unanswered: (() => void)[] = [];
    receiver.onWebhook(() => new Promise<void>((resolve) => unanswered.push(resolve)));
    try {
      const instance = await start({ webhookTimeoutMs: 800 });
      const id = await pendingReview(instance);
      const seen = await waitUntil(async () => {
        const r = await review(instance, id);
        return r.validation.attempts >= 2 ? r : undefined;
      }, 5000, 'two attempts');
      expect(seen.validation).toMatchObject({ deliveredTime: null, lastError: 'no response in time' });
    } finally {
      receiver.onWebhook(undefined);
      for (const answer of unanswered) answer();
    }
  });

  it('logs failed deliveries and timeouts without the webhook key', async () => {
    const lines: string[] = [];
    receiver.respondWith(500);
    const instance = await start({ webhookTimeoutMs: 400, logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } });
    const id = await pendingReview(instance);
    await waitUntil(async () => ((await review(instance, id)).status === 'validation_timed_out' ? true : undefined), 5000, 'timeout');
    const logged = lines.join('');
    expect(logged).toContain('pre-commit webhook delivery failed');
    expect(logged).toContain('pre-commit validation timed out');
    expect(logged).toContain(id);
    expect(logged).not.toContain(KEY);
  });

  it('stops cleanly: close() stops in-flight deliveries and the database stays consistent', async () => {
    let answer: () => void = () => undefined;
    receiver.onWebhook(() => new Promise<void>((resolve) => (answer = resolve)));
    const instance = await start();
    const id = await pendingReview(instance);
    await receiver.waitFor((h) => h.body['review_id'] === id);
    // Closed while the receiver has not answered: the attempt is stopped, the validation stays pending.
    await instance.close();
    answer();
    receiver.onWebhook(undefined);
    const again = await start();
    expect((await review(again, id)).status).toBe('pending_webhook_validation');
  });
});
