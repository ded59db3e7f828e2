import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

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
    expect((await c.call('POST', WEBHOOK, { webhookURL: '' })).json().data).toMatchObject({ webhookURL: '', enabled: false, hasWebhookKey: true });
    expect((await c.call('POST', WEBHOOK, { webhookKey: '' })).json().data.hasWebhookKey).toBe(false);
  });

  it.each([
    ['a URL that is not http(s)', { webhookURL: 'ftp://example.com/x', webhookKey: 'k' }, 'webhookURL'],
    ['a relative URL', { webhookURL: '/hook', webhookKey: 'k' }, 'webhookURL'],
    ['a URL without a key', { webhookURL: 'https://example.com/hook' }, 'webhookKey'],
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
