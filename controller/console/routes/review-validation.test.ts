/**
 * Every transition of the review states (docs/design.md, "The reviews protocol"), and every
 * refusal of the commit and change_validation endpoints, through app.inject with a real receiver on
 * 127.0.0.1:0.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { PENDING_VALIDATION_TITLE } from '../../../schemas/review.js';
import { useWebhookConsole } from '../../test-support/webhook-console.js';
import { waitUntil } from '../../test-support/webhook-receiver.js';

const KEY = 'whk-test-secret-1234';
const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };

const env = useWebhookConsole({ webhookKey: KEY, webhookTimeoutMs: 1500, initialMessage: 'Checked by CI.', seed: async (console) => void (await console.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })) });
let { receiver, c, bob, carol, validator } = env;
beforeEach(() => ({ receiver, c, bob, carol, validator } = env));

const item = (id: string) => `/console/v1/gates/checkout/reviews/${id}`;
const read = async (id: string) => (await c.call('GET', item(id))).json().data;

async function approved(change: Record<string, unknown> = RULES): Promise<string> {
  const id = (await c.call('POST', '/console/v1/gates/checkout/reviews', { change }, bob)).json().data.reviewID as string;
  expect((await c.call('PUT', `${item(id)}/approve`, undefined, carol)).statusCode).toBe(200);
  return id;
}

async function pendingValidation(change: Record<string, unknown> = RULES): Promise<string> {
  const id = await approved(change);
  const res = await c.call('PUT', `${item(id)}/commit`, undefined, bob);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().message).toBe(`${PENDING_VALIDATION_TITLE}.`);
  return id;
}

const validate = (body: Record<string, unknown>, key = validator) => c.call('POST', '/console/v1/change_validation', body, key);
const gateVersion = async () => (await c.call('GET', '/console/v1/gates/checkout')).json().data.version as number;

describe('approved → pending validation (commit with a webhook)', () => {
  it('sends the webhook with the key header and the reference payload, and shows the pending title and messages', async () => {
    const id = await pendingValidation();
    const hook = await receiver.waitFor((h) => h.body['review_id'] === id);
    expect(hook.headers['x-service-webhook-key']).toBe(KEY);
    expect(hook.headers['content-type']).toBe('application/json');
    const review = await read(id);
    expect(hook.body).toEqual({
      review_id: id,
      submitter: 'bob@example.com',
      committer: 'bob@example.com',
      config_type: 'gate',
      config_name: 'checkout',
      type: 'rules',
      old_config: review.oldConfig,
      new_config: review.newConfig,
    });
    expect(review).toMatchObject({ status: 'pending_webhook_validation', validation: { title: PENDING_VALIDATION_TITLE, initialMessage: 'Checked by CI.', message: null, committer: 'bob@example.com', validated: null } });
    expect(JSON.stringify(review)).not.toContain(KEY);
    expect(await gateVersion()).toBe(1);
    await waitUntil(async () => ((await read(id)).validation.deliveredTime !== null ? true : undefined), 5000, 'delivery recorded');
  });

  it('refuses a second commit while pending (nothing applied)', async () => {
    const id = await pendingValidation();
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).statusCode).toBe(409);
    expect((await c.call('PUT', `${item(id)}/commit`, { bypassValidation: true })).statusCode).toBe(409);
    expect(await gateVersion()).toBe(1);
  });

  it('commits changes that do not trigger the webhook at once', async () => {
    const id = await approved({ description: 'only words', tags: ['a'] });
    const res = await c.call('PUT', `${item(id)}/commit`, undefined, bob);
    expect(res.json().data).toMatchObject({ status: 'committed', type: null, validation: null });
    expect(await gateVersion()).toBe(2);
    // By review: an earlier test's delivery, aborted by its close, may still reach the shared receiver.
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });

  it('commits at once when the webhook is turned off (empty URL)', async () => {
    await c.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: '' });
    const id = await approved();
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).json().data.status).toBe('committed');
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });
});

describe('pending validation → message / committable / blocked', () => {
  it('a message-only call replaces the review-specific message and keeps the status', async () => {
    const id = await pendingValidation();
    const first = await validate({ reviewID: id, message: 'running checks 1/2' });
    expect(first.statusCode).toBe(200);
    expect(first.json().message).toBe('Validation message updated successfully');
    const patch = await c.call('PATCH', '/console/v1/change_validation/message', { reviewID: id, message: 'running checks 2/2' }, validator);
    expect(patch.statusCode).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'pending_webhook_validation', validation: { message: 'running checks 2/2', title: PENDING_VALIDATION_TITLE } });
  });

  it('validated true makes it committable; the commit applies it', async () => {
    const id = await pendingValidation();
    const res = await validate({ reviewID: id, validated: true, message: 'all green', debugLinks: [{ title: 'CI run', url: 'http://ci.test/1' }] });
    expect(res.json()).toMatchObject({ message: 'Validation status updated successfully', data: { status: 'approved_webhook_validation' } });
    expect(await read(id)).toMatchObject({ validation: { validated: true, message: 'all green', title: null, debugLinks: [{ title: 'CI run', url: 'http://ci.test/1' }] } });
    expect(await gateVersion()).toBe(1);
    const commit = await c.call('PUT', `${item(id)}/commit`, undefined, carol);
    expect(commit.json().data).toMatchObject({ status: 'committed', committer: 'carol@example.com', committedVersion: 2 });
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.rules[0].passPercentage).toBe(10);
    const audit = (await c.call('GET', '/console/v1/audit_logs?kind=gate')).json().data[0];
    expect(audit).toMatchObject({ reviewId: id, details: { validatedByWebhook: true } });
  });

  it('validated false blocks it: nothing applied, commit refused even with bypass', async () => {
    const id = await pendingValidation();
    expect((await validate({ reviewID: id, validated: false, message: 'not in git' })).json().data.status).toBe('failed_webhook_validation');
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).statusCode).toBe(409);
    expect((await c.call('PUT', `${item(id)}/commit`, { bypassValidation: true })).statusCode).toBe(409);
    expect(await gateVersion()).toBe(1);
    expect((await read(id)).validation).toMatchObject({ validated: false, message: 'not in git' });
  });

  it('repeating the same decision is harmless; the opposite one, or a message after it, is a 409', async () => {
    const id = await pendingValidation();
    await validate({ reviewID: id, validated: true });
    const again = await validate({ reviewID: id, validated: true });
    expect(again.statusCode).toBe(200);
    expect(again.json().message).toMatch(/unchanged/);
    expect((await validate({ reviewID: id, validated: false })).statusCode).toBe(409);
    expect((await validate({ reviewID: id, message: 'late' })).statusCode).toBe(409);
    await c.call('PUT', `${item(id)}/commit`, undefined, bob);
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(200);
    expect((await read(id)).status).toBe('committed');
  });

  it('refuses unknown reviews (404), reviews not pending validation (409), read-only keys (403) and empty calls (400)', async () => {
    expect((await validate({ reviewID: 'rev_unknown', validated: true })).statusCode).toBe(404);
    const id = await approved();
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(409);
    expect((await c.call('PATCH', '/console/v1/change_validation/message', { reviewID: id, message: 'hi' }, validator)).statusCode).toBe(409);
    const reader = await c.keyFor('rita@example.com', 'read_only');
    const pending = await pendingValidation({ isEnabled: false });
    expect((await validate({ reviewID: pending, validated: true }, reader)).statusCode).toBe(403);
    const empty = await validate({ reviewID: pending });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].property).toBe('validated');
    expect((await validate({ reviewID: pending, validated: 'yes' })).json().errors[0].property).toBe('validated');
    expect((await read(pending)).status).toBe('pending_webhook_validation');
  });

  it.each(['not a url', 'javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'ftp://ci.test/log', '/relative/path', 'http://', ''])(
    'a debug link to %j is a 400 naming debugLinks[i].url, and nothing is decided',
    async (url) => {
      const id = await pendingValidation();
      const res = await validate({ reviewID: id, validated: true, debugLinks: [{ title: 'CI', url: 'https://ci.test/1' }, { title: 'Bad', url }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ property: 'debugLinks[1].url', errorMessage: 'must be an absolute http or https URL' }]);
      expect(await read(id)).toMatchObject({ status: 'pending_webhook_validation', validation: { validated: null, debugLinks: [] } });
    },
  );
});

describe('approved → committed without webhook (bypass)', () => {
  it('needs bypass_precommit_webhook: 403 and nothing changes without it', async () => {
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { bypassValidation: true }, bob);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/bypass_precommit_webhook/);
    expect((await read(id)).status).toBe('approved');
    expect(await gateVersion()).toBe(1);
  });

  it('with the permission commits at once, sends no webhook and records the bypass in the audit log', async () => {
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { bypassValidation: true });
    expect(res.json().data).toMatchObject({ status: 'committed', bypassedValidation: true, committer: 'admin@localhost' });
    expect(await gateVersion()).toBe(2);
    const audit = (await c.call('GET', '/console/v1/audit_logs?kind=gate')).json().data[0];
    expect(audit).toMatchObject({ reviewId: id, actorEmail: 'admin@localhost', details: { bypassedValidation: true, review: id } });
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });
});

describe('pending validation → timed out → commit again', () => {
  it('times out when nobody decides in the window, refuses late decisions, and retries on the next commit', async () => {
    const id = await pendingValidation();
    await receiver.waitFor((h) => h.body['review_id'] === id);
    await waitUntil(async () => ((await read(id)).status === 'validation_timed_out' ? true : undefined), 10_000, 'timeout');
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(409);
    expect(await gateVersion()).toBe(1);
    const again = await c.call('PUT', `${item(id)}/commit`, undefined, bob);
    expect(again.json().data.status).toBe('pending_webhook_validation');
    await waitUntil(() => (receiver.received.filter((h) => h.body['review_id'] === id).length === 2 ? true : undefined), 5000, 'second webhook');
    await validate({ reviewID: id, validated: true });
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).json().data.status).toBe('committed');
  });

  it('keeps retrying a failing receiver inside the window and records why', async () => {
    receiver.respondWith(503);
    const id = await pendingValidation();
    const review = await waitUntil(async () => {
      const r = await read(id);
      return r.validation.attempts >= 3 ? r : undefined;
    }, 10_000, 'three attempts');
    expect(review.validation).toMatchObject({ deliveredTime: null, lastError: 'receiver answered HTTP 503' });
    receiver.respondWith(200);
    await waitUntil(async () => ((await read(id)).validation.deliveredTime !== null ? true : undefined), 10_000, 'delivery');
  });
});

describe('stale and canceled validations', () => {
  it('a review validated by the webhook is still refused when the entity changed meanwhile', async () => {
    const id = await pendingValidation();
    await validate({ reviewID: id, validated: true });
    await c.call('PATCH', '/console/v1/gates/checkout', { description: 'direct edit' });
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).statusCode).toBe(409);
    expect((await read(id)).status).toBe('stale');
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.rules).toEqual([]);
  });

  it('a stale approved review is refused before any webhook is sent', async () => {
    const id = await approved();
    await c.call('PATCH', '/console/v1/gates/checkout', { description: 'direct edit' });
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, bob)).statusCode).toBe(409);
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });

  it('canceling a pending validation stops the dispatcher and refuses the decision', async () => {
    receiver.respondWith(500);
    const id = await pendingValidation();
    expect(c.webhooks.active).toBe(1);
    expect((await c.call('DELETE', item(id), undefined, bob)).statusCode).toBe(200);
    expect(c.webhooks.active).toBe(0);
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(409);
  });
});
