/**
 * The body rules every route shares: a route without a body refuses one with content; a required
 * body that is missing or null is a 400; a write that changes nothing leaves no audit row or version.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })).statusCode).toBe(201);
});
afterEach(() => c.close());

const auditCount = async (kind?: string) => (await c.call('GET', `/console/v1/audit_logs${kind ? `?kind=${kind}` : ''}`)).json().pagination.totalItems as number;
const gate = async () => (await c.call('GET', '/console/v1/gates/checkout')).json().data as Record<string, unknown>;

describe('routes without a body', () => {
  it('refuse a body with content, naming each field, and change nothing', async () => {
    const before = await auditCount();
    const res = await c.call('PUT', '/console/v1/gates/checkout/disable', { x: 1, isEnabled: true });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 400,
      message: 'This action takes no request body.',
      errors: [
        { property: 'x', errorMessage: 'is not a known field: this action takes no body' },
        { property: 'isEnabled', errorMessage: 'is not a known field: this action takes no body' },
      ],
    });
    for (const body of ['null', '[1]', '"text"', '0', 'true']) {
      const other = await c.call('PUT', '/console/v1/gates/checkout/disable', body);
      expect(other.statusCode, body).toBe(400);
      expect(other.json().errors, body).toEqual([{ property: '(body)', errorMessage: 'must be empty: this action takes no body' }]);
    }
    const key = (await c.auth.listKeys())[0]!.id;
    expect((await c.call('PATCH', `/console/v1/keys/${key}/rotate`, { description: 'x' })).statusCode).toBe(400);
    expect((await c.call('DELETE', '/console/v1/gates/checkout', { force: true })).statusCode).toBe(400);
    expect((await gate())['isEnabled']).toBe(true);
    expect(await auditCount()).toBe(before);
  });

  it('accept no body, an empty body and {}', async () => {
    expect((await c.call('PUT', '/console/v1/gates/checkout/disable')).statusCode).toBe(200);
    expect((await c.call('PUT', '/console/v1/gates/checkout/enable', '')).statusCode).toBe(200);
    expect((await c.call('PUT', '/console/v1/gates/checkout/disable', {})).statusCode).toBe(200);
    expect((await gate())['isEnabled']).toBe(false);
  });
});

describe('a required body that is missing or null', () => {
  it('is a 400 naming (body), for settings, keys and entities alike, and writes nothing', async () => {
    const key = (await c.auth.listKeys())[0]!.id;
    const before = await auditCount();
    for (const [method, url] of [
      ['POST', '/console/v1/settings/precommit_webhook'],
      ['POST', '/console/v1/settings/reviews'],
      ['PATCH', `/console/v1/keys/${key}`],
      ['PATCH', '/console/v1/gates/checkout'],
      ['POST', '/console/v1/gates'],
    ] as const) {
      for (const body of [undefined, 'null']) {
        const res = await c.call(method, url, body);
        expect(res.statusCode, `${method} ${url} ${body}`).toBe(400);
        expect(res.json(), `${method} ${url} ${body}`).toEqual({ status: 400, message: 'Invalid request body.', errors: [{ property: '(body)', errorMessage: 'must be an object' }] });
      }
    }
    expect(await auditCount()).toBe(before);
  });

  it('an optional body may be left out but not be null', async () => {
    const id = (await c.call('POST', '/console/v1/gates/checkout/reviews', { change: { description: 'd' } })).json().data.reviewID as string;
    const res = await c.call('PUT', `/console/v1/gates/checkout/reviews/${id}/approve`, 'null');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: '(body)', errorMessage: 'must be an object, or left out' }]);
  });
});

describe('a body that is not an object', () => {
  it('is a 400 naming (body) in the same words on every route that takes a body, and writes nothing', async () => {
    const key = (await c.auth.listKeys())[0]!.id;
    const before = await auditCount();
    for (const [method, url] of [
      ['POST', '/console/v1/settings/precommit_webhook'],
      ['POST', '/console/v1/settings/reviews'],
      ['POST', '/console/v1/keys'],
      ['PATCH', `/console/v1/keys/${key}`],
      ['POST', '/console/v1/roles'],
      ['PATCH', '/console/v1/roles/member'],
      ['POST', '/console/v1/change_validation'],
      ['POST', '/console/v1/gates/checkout/reviews'],
      ['PATCH', '/console/v1/gates/checkout'],
      ['POST', '/console/v1/gates'],
    ] as const) {
      for (const body of ['[]', '[{"name":"x"}]', '"text"', '0', 'true']) {
        const res = await c.call(method, url, body);
        expect(res.json(), `${method} ${url} ${body}`).toEqual({ status: 400, message: 'Request body must be a JSON object.', errors: [{ property: '(body)', errorMessage: 'must be a JSON object' }] });
      }
    }
    expect(await auditCount()).toBe(before);
  });
});

describe('a valid write that changes nothing', () => {
  it('answers 200 and leaves no audit row: settings', async () => {
    const before = await auditCount('settings');
    const webhook = await c.call('POST', '/console/v1/settings/precommit_webhook', {});
    expect(webhook.statusCode).toBe(200);
    expect(webhook.json().data).toEqual({ webhookURL: '', hasWebhookKey: false, initialMessage: '', enabled: false });
    expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: false })).statusCode).toBe(200);
    expect(await auditCount('settings')).toBe(before);
    expect((await c.call('POST', '/console/v1/settings/precommit_webhook', { initialMessage: 'hi' })).statusCode).toBe(200);
    expect(await auditCount('settings')).toBe(before + 1);
    expect((await c.call('POST', '/console/v1/settings/precommit_webhook', { initialMessage: 'hi' })).statusCode).toBe(200);
    expect(await auditCount('settings')).toBe(before + 1);
  });

  it('answers 200 and writes no version or audit row: entities and keys', async () => {
    const before = await auditCount();
    const version = (await gate())['version'];
    expect((await c.call('PATCH', '/console/v1/gates/checkout', {})).statusCode).toBe(200);
    expect((await gate())['version']).toBe(version);
    const key = (await c.auth.listKeys())[0]!;
    const patched = await c.call('PATCH', `/console/v1/keys/${key.id}`, {});
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ id: key.id, description: key.description, role: 'admin' });
    expect(await auditCount()).toBe(before);
  });
});
