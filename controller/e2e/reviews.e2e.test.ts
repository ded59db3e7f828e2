/**
 * Reviews and the pre-commit protocol over real ports: the compiled console (`flagops serve`, with a
 * short --webhook-timeout) and a webhook receiver started here on 127.0.0.1:0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_VALIDATION_TITLE } from '../../schemas/review.js';
import { callConsole, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';
import { startTestReceiver, waitUntil, type TestReceiver } from '../test-support/webhook-receiver.js';

const WEBHOOK_KEY = 'e2e-webhook-key-0123456789';
const WINDOW_MS = 4000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
type Json = any;

let dir: string;
let server: SpawnedConsole;
let receiver: TestReceiver;
let bob: string;
let carol: string;
let ci: string;

const api = (method: string, path: string, body?: unknown, key = server.key): Promise<{ status: number; body: Json }> => callConsole(server, method, path, body, key);

async function newKey(email: string, role: string): Promise<string> {
  const res = await api('POST', '/console/v1/keys', { description: 'e2e', userEmail: email, role });
  expect(res.status).toBe(201);
  return res.body.data.key as string;
}

const start = (windowMs = WINDOW_MS) => spawnConsole({ db: join(dir, 'console.db'), args: ['--webhook-timeout', String(windowMs)], checkResponses: true });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-reviews-e2e-'));
  receiver = await startTestReceiver();
  server = await start();
  bob = await newKey('bob@example.com', 'member');
  carol = await newKey('carol@example.com', 'member');
  ci = await newKey('ci@example.com', 'webhook_receiver');
  const settings = await api('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: WEBHOOK_KEY, initialMessage: 'Validated by CI.' });
  expect(settings.body.data).toEqual({ webhookURL: receiver.url, hasWebhookKey: true, initialMessage: 'Validated by CI.', enabled: true });
  expect((await api('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })).status).toBe(201);
  expect((await api('POST', '/console/v1/dynamic_configs', { id: 'limits', name: 'limits', defaultValue: { max: 1 } })).status).toBe(201);
  expect((await api('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'rule_based' })).status).toBe(201);
  expect((await api('POST', '/console/v1/experiments', { id: 'exp_one', name: 'exp one' })).status).toBe(201);
  expect((await api('POST', '/console/v1/experiments', { id: 'exp_two', name: 'exp two' })).status).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const reviews = (path: string, id: string) => `/console/v1/${path}/${id}/reviews`;

/** submit (bob) → approve (carol) → commit (bob): the review is then pending validation. */
async function toPendingValidation(path: string, id: string, body: Record<string, unknown>): Promise<string> {
  const submitted = await api('POST', reviews(path, id), body, bob);
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const reviewID = submitted.body.data.reviewID as string;
  expect((await api('PUT', `${reviews(path, id)}/${reviewID}/approve`, undefined, carol)).body.data.status).toBe('approved');
  const commit = await api('PUT', `${reviews(path, id)}/${reviewID}/commit`, undefined, bob);
  expect(commit.body.data.status).toBe('pending_webhook_validation');
  return reviewID;
}

const readReview = async (reviewID: string) => (await api('GET', `/console/v1/reviews/${reviewID}`)).body.data;

describe('submit → approve → commit → webhook → progress → approve → commit', () => {
  const cases: [string, string, string, Record<string, unknown>, Record<string, unknown>, (entity: Json) => void][] = [
    ['gate rules', 'gates', 'checkout', { change: { rules: [{ name: 'ten', passPercentage: 10, conditions: [{ type: 'public' }] }] } }, { config_type: 'gate', config_name: 'checkout', type: 'rules' }, (e) => expect(e.rules[0].passPercentage).toBe(10)],
    ['dynamic config target apps', 'dynamic_configs', 'limits', { change: { targetApps: ['web'] } }, { config_type: 'dynamic_config', config_name: 'limits', type: 'update_target_apps', old_target_apps: [], new_target_apps: ['web'] }, (e) => expect(e.targetApps).toEqual(['web'])],
    ['segment rules', 'segments', 'staff', { change: { rules: [{ name: 'employees', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] }] } }, { config_type: 'segment', config_name: 'staff', type: 'rules' }, (e) => expect(e.rules).toHaveLength(1)],
    ['experiment start', 'experiments', 'exp_one', { action: 'start' }, { config_type: 'experiment', experiment_name: 'exp_one', type: 'start_experiment', new_allocation: 100 }, (e) => expect(e.status).toBe('active')],
    ['experiment allocation', 'experiments', 'exp_one', { change: { allocation: 60 } }, { type: 'update_allocation', old_allocation: 100, new_allocation: 60 }, (e) => expect(e.allocation).toBe(60)],
    ['experiment settings', 'experiments', 'exp_one', { change: { inlineTargetingRules: [{ name: 'beta', passPercentage: 100, conditions: [{ type: 'public' }] }] } }, { type: 'update_experiment_settings' }, (e) => expect(e.inlineTargetingRules[0].name).toBe('beta')],
    ['experiment ship', 'experiments', 'exp_one', { action: 'ship', group: 'Test' }, { type: 'ship_experiment', group: 'Test' }, (e) => expect(e.status).toBe('decision_made')],
    ['experiment abandon', 'experiments', 'exp_two', { action: 'abandon' }, { type: 'abandon_experiment', experiment_name: 'exp_two' }, (e) => expect(e.status).toBe('abandoned')],
  ];

  it.each(cases)('%s', async (_name, path, id, body, expected, check) => {
    const before = (await api('GET', `/console/v1/${path}/${id}`)).body.data;
    const reviewID = await toPendingValidation(path, id, body);
    const hook = await receiver.waitFor((h) => h.body['review_id'] === reviewID);
    expect(hook.headers['x-service-webhook-key']).toBe(WEBHOOK_KEY);
    expect(hook.body).toMatchObject({ review_id: reviewID, submitter: 'bob@example.com', committer: 'bob@example.com', ...expected });
    if (path !== 'experiments') expect(hook.body['old_config']).toMatchObject({ id, version: before.version });
    else if (body['change'] !== undefined) expect(hook.body['old_experiment']).toMatchObject({ id, version: before.version });
    else expect(hook.body).not.toHaveProperty('new_experiment');

    expect((await api('POST', '/console/v1/change_validation', { reviewID, message: 'CI: running 3 checks' }, ci)).status).toBe(200);
    const pending = await readReview(reviewID);
    expect(pending).toMatchObject({ status: 'pending_webhook_validation', validation: { title: PENDING_VALIDATION_TITLE, initialMessage: 'Validated by CI.', message: 'CI: running 3 checks' } });
    expect((await api('GET', `/console/v1/${path}/${id}`)).body.data.version).toBe(before.version);

    expect((await api('POST', '/console/v1/change_validation', { reviewID, validated: true, message: 'CI: all green' }, ci)).body.data.status).toBe('approved_webhook_validation');
    const committed = await api('PUT', `${reviews(path, id)}/${reviewID}/commit`, undefined, bob);
    expect(committed.body.data).toMatchObject({ status: 'committed', committedVersion: before.version + 1 });
    check((await api('GET', `/console/v1/${path}/${id}`)).body.data);
  });
});

describe('other paths', () => {
  it('reject: the entity stays as it was and the change is blocked', async () => {
    const before = (await api('GET', '/console/v1/gates/checkout')).body.data;
    const reviewID = await toPendingValidation('gates', 'checkout', { change: { isEnabled: false } });
    await receiver.waitFor((h) => h.body['review_id'] === reviewID);
    expect((await api('POST', '/console/v1/change_validation', { reviewID, validated: false, message: 'not in git' }, ci)).body.data.status).toBe('failed_webhook_validation');
    expect((await api('PUT', `${reviews('gates', 'checkout')}/${reviewID}/commit`, undefined, bob)).status).toBe(409);
    const after = (await api('GET', '/console/v1/gates/checkout')).body.data;
    expect(after).toMatchObject({ version: before.version, isEnabled: true });
  });

  it('bypass: 403 without the permission; with it, committed at once without a webhook', async () => {
    const submitted = await api('POST', reviews('gates', 'checkout'), { change: { rules: [] } }, bob);
    const reviewID = submitted.body.data.reviewID as string;
    await api('PUT', `${reviews('gates', 'checkout')}/${reviewID}/approve`, undefined, carol);
    const refused = await api('PUT', `${reviews('gates', 'checkout')}/${reviewID}/commit`, { bypassValidation: true }, bob);
    expect(refused.status).toBe(403);
    expect((await readReview(reviewID)).status).toBe('approved');
    const bypassed = await api('PUT', `${reviews('gates', 'checkout')}/${reviewID}/commit`, { bypassValidation: true });
    expect(bypassed.body.data).toMatchObject({ status: 'committed', bypassedValidation: true });
    expect((await api('GET', '/console/v1/gates/checkout')).body.data.rules).toEqual([]);
    const audit = (await api('GET', '/console/v1/audit_logs?kind=gate&entityID=checkout')).body.data[0];
    expect(audit).toMatchObject({ reviewId: reviewID, details: { bypassedValidation: true } });
    // A later delivery arrives after any webhook this commit could have caused.
    const later = await toPendingValidation('gates', 'checkout', { change: { isEnabled: false } });
    await receiver.waitFor((h) => h.body['review_id'] === later);
    expect(receiver.received.some((h) => h.body['review_id'] === reviewID)).toBe(false);
    await api('DELETE', `${reviews('gates', 'checkout')}/${later}`, undefined, bob);
  });

  it('stale: a review of an entity changed since gets 409 and changes nothing', async () => {
    const submitted = await api('POST', reviews('dynamic_configs', 'limits'), { change: { defaultValue: { max: 5 } } }, bob);
    const reviewID = submitted.body.data.reviewID as string;
    await api('PUT', `${reviews('dynamic_configs', 'limits')}/${reviewID}/approve`, undefined, carol);
    await api('PATCH', '/console/v1/dynamic_configs/limits', { defaultValue: { max: 2 } });
    const commit = await api('PUT', `${reviews('dynamic_configs', 'limits')}/${reviewID}/commit`, undefined, bob);
    expect(commit.status).toBe(409);
    expect((await api('GET', '/console/v1/dynamic_configs/limits')).body.data.defaultValue).toEqual({ max: 2 });
    expect((await readReview(reviewID)).status).toBe('stale');
  });

  it('timeout: no decision within --webhook-timeout → validation_timed_out; committing again retries', async () => {
    const reviewID = await toPendingValidation('segments', 'staff', { change: { description: 'ignored', rules: [] } });
    await receiver.waitFor((h) => h.body['review_id'] === reviewID);
    const timedOut = await waitUntil(async () => {
      const r = await readReview(reviewID);
      return r.status === 'validation_timed_out' ? r : undefined;
    }, WINDOW_MS + 5000, 'validation_timed_out');
    expect(timedOut.validation.deliveredTime).not.toBeNull();
    expect((await api('POST', '/console/v1/change_validation', { reviewID, validated: true }, ci)).status).toBe(409);
    expect((await api('PUT', `${reviews('segments', 'staff')}/${reviewID}/commit`, undefined, bob)).body.data.status).toBe('pending_webhook_validation');
    await waitUntil(() => (receiver.received.filter((h) => h.body['review_id'] === reviewID).length >= 2 ? true : undefined), 5000, 'second delivery');
    await api('POST', '/console/v1/change_validation', { reviewID, validated: true }, ci);
    expect((await api('PUT', `${reviews('segments', 'staff')}/${reviewID}/commit`, undefined, bob)).body.data.status).toBe('committed');
  });

  it('restart: an undelivered webhook is delivered by the restarted console', async () => {
    // A window that outlasts two starts of the console however loaded the machine: the review must
    // still be pending when the console is back (the short window is the timeout test's).
    const longWindowMs = 60_000;
    expect(await server.stop()).toBe(0);
    server = await start(longWindowMs);
    receiver.respondWith(503);
    const reviewID = await toPendingValidation('gates', 'checkout', { change: { rules: [{ name: 'five', passPercentage: 5, conditions: [{ type: 'public' }] }] } });
    await waitUntil(async () => ((await readReview(reviewID)).validation.attempts >= 1 ? true : undefined), 5000, 'a failed attempt');
    expect(await server.stop()).toBe(0);
    receiver.respondWith(200);
    server = await start(longWindowMs);
    await waitUntil(async () => ((await readReview(reviewID)).validation.deliveredTime !== null ? true : undefined), longWindowMs, 'delivery after restart');
    await api('POST', '/console/v1/change_validation', { reviewID, validated: true }, ci);
    expect((await api('PUT', `${reviews('gates', 'checkout')}/${reviewID}/commit`, undefined, bob)).body.data.status).toBe('committed');
    expect(server.stderr()).not.toContain(WEBHOOK_KEY);
  }, 180_000);
});
