import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { startTestReceiver, type TestReceiver } from '../../test-support/webhook-receiver.js';
import { DELIVERY_FAILED } from '../reviews/review-view.js';

let c: TestConsole;
let member: string;
beforeEach(async () => {
  c = createTestConsole();
  member = await c.keyFor('bob@example.com', 'member');
});
afterEach(() => c.close());

const WEBHOOK = '/console/v1/settings/precommit_webhook';

describe('review settings', () => {
  it('defaults to reviews not required, updates and audits the change', async () => {
    expect((await c.call('GET', '/console/v1/settings/reviews')).json()).toEqual({ message: 'Settings read successfully.', data: { is_config_review_required: false } });
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    expect((await c.call('GET', '/console/v1/settings/reviews')).json().data).toEqual({ is_config_review_required: true });
    const audit = (await c.call('GET', '/console/v1/audit_logs?kind=settings')).json().data[0];
    expect(audit).toMatchObject({ kind: 'settings', entityId: 'reviews', action: 'update', actorEmail: 'admin@localhost', details: { before: { is_config_review_required: false }, after: { is_config_review_required: true } } });
  });

  it('refuses bad bodies with 400 and non-admins with 403', async () => {
    const bad = await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].property).toBe('is_config_review_required');
    expect((await c.call('POST', '/console/v1/settings/reviews', {})).json().errors[0]).toEqual({ property: 'is_config_review_required', errorMessage: 'is required' });
    expect((await c.call('GET', '/console/v1/settings/reviews', undefined, member)).statusCode).toBe(403);
    expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true }, member)).statusCode).toBe(403);
    expect((await c.call('GET', '/console/v1/settings/reviews')).json().data.is_config_review_required).toBe(false);
  });
});

describe('pre-commit webhook settings', () => {
  it('is off by default and never shows the key, only whether one is set', async () => {
    expect((await c.call('GET', WEBHOOK)).json().data).toEqual({ webhookURL: '', hasWebhookKey: false, initialMessage: '', enabled: false });
    const res = await c.call('POST', WEBHOOK, { webhookURL: 'https://hooks.example.com/flagops', webhookKey: 'very-secret-key', initialMessage: 'CI validates every change.' });
    expect(res.json().data).toEqual({ webhookURL: 'https://hooks.example.com/flagops', hasWebhookKey: true, initialMessage: 'CI validates every change.', enabled: true });
    expect(res.body).not.toContain('very-secret-key');
    expect((await c.call('GET', WEBHOOK)).body).not.toContain('very-secret-key');
    const audit = await c.call('GET', '/console/v1/audit_logs?kind=settings');
    expect(audit.json().data[0]).toMatchObject({ entityId: 'precommit_webhook', details: { webhookKeyChanged: true, after: { hasWebhookKey: true } } });
    expect(audit.body).not.toContain('very-secret-key');
  });

  it('keeps fields left out, and an empty URL turns the webhook off', async () => {
    await c.call('POST', WEBHOOK, { webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k1', initialMessage: 'hello' });
    expect((await c.call('POST', WEBHOOK, { initialMessage: 'changed' })).json().data).toEqual({ webhookURL: 'http://127.0.0.1:9/hook', hasWebhookKey: true, initialMessage: 'changed', enabled: true });
    // Turning the webhook off forgets the key: turning it on again takes one.
    expect((await c.call('POST', WEBHOOK, { webhookURL: '' })).json().data).toMatchObject({ webhookURL: '', enabled: false, hasWebhookKey: false });
    expect((await c.call('POST', WEBHOOK, { webhookURL: 'http://127.0.0.1:9/hook' })).statusCode).toBe(400);
  });

  it.each([
    ['a URL that is not http(s)', { webhookURL: 'ftp://example.com/x', webhookKey: 'k' }, 'webhookURL'],
    ['a relative URL', { webhookURL: '/hook', webhookKey: 'k' }, 'webhookURL'],
    ['a URL without a key', { webhookURL: 'https://example.com/hook' }, 'webhookKey'],
    ['a URL with a user and password', { webhookURL: 'http://user:pass@example.com/hook', webhookKey: 'k' }, 'webhookURL'],
    ['a URL with a user name', { webhookURL: 'https://token@example.com/hook', webhookKey: 'k' }, 'webhookURL'],
    ['an unknown field', { webhookUrl: 'https://example.com/hook' }, 'webhookUrl'],
    ['a message over 1000 characters', { initialMessage: 'x'.repeat(1001) }, 'initialMessage'],
  ])('refuses %s with 400, changing nothing', async (_what, body, property) => {
    const res = await c.call('POST', WEBHOOK, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toContain(property);
    expect((await c.call('GET', WEBHOOK)).json().data.enabled).toBe(false);
  });

  it('is admin only', async () => {
    expect((await c.call('GET', WEBHOOK, undefined, member)).statusCode).toBe(403);
    expect((await c.call('POST', WEBHOOK, { webhookURL: '' }, member)).statusCode).toBe(403);
  });
});

describe('the webhook key never follows a URL set without it', () => {
  let receivers: TestReceiver[] = [];
  afterEach(async () => {
    for (const r of receivers) await r.close();
    receivers = [];
  });

  /** A change of gate g submitted by bob, approved by carol and committed: the webhook is delivered. */
  async function commitAReview(): Promise<string> {
    const bob = await c.keyFor('bob@example.com', 'member');
    const carol = await c.keyFor('carol@example.com', 'member');
    if ((await c.call('GET', '/console/v1/gates/ggg')).statusCode === 404) {
      const created = await c.call('POST', '/console/v1/gates', { id: 'ggg', name: 'ggg' });
      expect(created.statusCode, created.body).toBe(201);
    }
    const submitted = await c.call('POST', '/console/v1/gates/ggg/reviews', { change: { rules: [{ name: 'r', passPercentage: 5, conditions: [{ type: 'public' }] }] } }, bob);
    expect(submitted.statusCode, submitted.body).toBe(201);
    const id = submitted.json().data.reviewID as string;
    expect((await c.call('PUT', `/console/v1/gates/ggg/reviews/${id}/approve`, undefined, carol)).statusCode).toBe(200);
    expect((await c.call('PUT', `/console/v1/gates/ggg/reviews/${id}/commit`, undefined, bob)).json().data.status).toBe('pending_webhook_validation');
    return id;
  }

  it('refuses a new URL from a manage_settings key that does not send a key, and delivers only the key sent with the URL', async () => {
    const [legit, attacker] = [await startTestReceiver(), await startTestReceiver()];
    receivers.push(legit, attacker);
    await c.call('POST', WEBHOOK, { webhookURL: legit.url, webhookKey: 'the-bridge-key' });
    expect((await c.call('POST', '/console/v1/roles', { name: 'settings_only', permissions: ['read', 'manage_settings'] })).statusCode).toBe(201);
    const settingsKey = await c.keyFor('ops@example.com', 'settings_only');

    const moved = await c.call('POST', WEBHOOK, { webhookURL: attacker.url }, settingsKey);
    expect(moved.statusCode).toBe(400);
    expect(moved.json().errors).toEqual([{ property: 'webhookKey', errorMessage: 'is required when webhookURL changes: the stored key is never sent to a new URL' }]);
    expect((await c.call('GET', WEBHOOK)).json().data.webhookURL).toBe(legit.url);

    expect((await c.call('POST', WEBHOOK, { webhookURL: attacker.url, webhookKey: 'my-own-key' }, settingsKey)).statusCode).toBe(200);
    const id = await commitAReview();
    const hook = await attacker.waitFor((h) => h.body['review_id'] === id);
    expect(hook.headers['x-service-webhook-key']).toBe('my-own-key');
    expect(JSON.stringify(attacker.received)).not.toContain('the-bridge-key');
    expect(legit.received).toEqual([]);
  });

  it('shows a URL stored with credentials without them, in reads and in the audit log', async () => {
    await c.store.settings.set('precommit_webhook', { webhookURL: 'http://user:pass@hooks.example.com/x', webhookKey: 'k', initialMessage: '' });
    const read = await c.call('GET', WEBHOOK);
    expect(read.json().data.webhookURL).toBe('http://***@hooks.example.com/x');
    await c.call('POST', WEBHOOK, { initialMessage: 'checked' });
    const audit = await c.call('GET', '/console/v1/audit_logs?kind=settings');
    expect(audit.body).not.toContain('pass');
    expect(audit.json().data[0].details.before.webhookURL).toBe('http://***@hooks.example.com/x');
  });

  it('shows audit rows written before with a URL holding credentials without them', async () => {
    await c.store.audit.append({ time: 1, actorEmail: 'admin@localhost', actorKeyId: null, action: 'update', kind: 'settings', entityId: 'precommit_webhook', version: null, reviewId: null, details: { before: { webhookURL: '' }, after: { webhookURL: 'https://u:secret-pass@hooks.example.com/x' } } });
    const audit = await c.call('GET', '/console/v1/audit_logs?kind=settings', undefined, await c.keyFor('ro@example.com', 'read_only'));
    expect(audit.body).not.toContain('secret-pass');
    expect(audit.json().data[0].details.after.webhookURL).toBe('https://***@hooks.example.com/x');
  });

  it("shows why a delivery failed to manage_settings holders only", async () => {
    const receiver = await startTestReceiver();
    receivers.push(receiver);
    receiver.respondWith(503);
    await c.call('POST', WEBHOOK, { webhookURL: receiver.url, webhookKey: 'k' });
    const id = await commitAReview();
    await receiver.waitFor((h) => h.body['review_id'] === id);
    let admin: { validation: { lastError: string | null } };
    for (;;) {
      admin = (await c.call('GET', `/console/v1/reviews/${id}`)).json().data;
      if (admin.validation.lastError !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(admin.validation.lastError).toBe('receiver answered HTTP 503');
    const readers = [member, await c.keyFor('ro@example.com', 'read_only'), await c.keyFor('ci@example.com', 'webhook_receiver')];
    for (const key of readers) {
      expect((await c.call('GET', `/console/v1/reviews/${id}`, undefined, key)).json().data.validation.lastError).toBe(DELIVERY_FAILED);
      expect((await c.call('GET', `/console/v1/gates/ggg/reviews/${id}`, undefined, key)).json().data.validation.lastError).toBe(DELIVERY_FAILED);
      expect((await c.call('GET', '/console/v1/reviews', undefined, key)).body).not.toContain('503');
    }
  });
});
