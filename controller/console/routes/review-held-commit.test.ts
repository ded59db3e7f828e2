/**
 * PUT .../commit with awaitValidationMs: the commit that starts the pre-commit validation holds its
 * answer until the webhook decides, and commits an approved change then, as the committer's second
 * commit would. Through app.inject, and over a real port for a client that goes away.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { REVIEW_MAX_WAIT_MS } from '../../../schemas/review.js';
import { useWebhookConsole } from '../../test-support/webhook-console.js';
import { waitUntil } from '../../test-support/webhook-receiver.js';

const KEY = 'whk-held-commit-secret';
const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };

const env = useWebhookConsole({ webhookKey: KEY, webhookTimeoutMs: 1500, seed: async (console) => void (await console.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })) });
let { receiver, c, bob, carol, validator } = env;
beforeEach(() => ({ receiver, c, bob, carol, validator } = env));

const item = (id: string) => `/console/v1/gates/checkout/reviews/${id}`;
const read = async (id: string) => (await c.call('GET', item(id))).json().data;
const gate = async () => (await c.call('GET', '/console/v1/gates/checkout')).json().data;
const validate = (body: Record<string, unknown>) => c.call('POST', '/console/v1/change_validation', body, validator);

async function approved(): Promise<string> {
  const id = (await c.call('POST', '/console/v1/gates/checkout/reviews', { change: RULES }, bob)).json().data.reviewID as string;
  expect((await c.call('PUT', `${item(id)}/approve`, undefined, carol)).statusCode).toBe(200);
  return id;
}

/** Open connections of the console's real port. */
const connections = (console_: typeof c): Promise<number> => new Promise((resolve) => console_.app.server.getConnections((_error, count) => resolve(count)));

/** The receiver decides each webhook of this test through change_validation, after a short delay. */
function decideWith(validated: boolean | undefined, delayMs = 20): void {
  receiver.onWebhook((hook) => {
    const reviewID = hook.body['review_id'];
    setTimeout(() => void validate(validated === undefined ? { reviewID, message: 'still checking' } : { reviewID, validated, message: validated ? 'ok' : 'no' }), delayMs);
  });
}

describe('commit with awaitValidationMs', () => {
  it('answers with the committed review once the webhook approves: one request, applied as the committer, audited as validated', async () => {
    decideWith(true);
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: 5000 }, bob);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Review committed successfully.', data: { reviewID: id, status: 'committed', committer: 'bob@example.com', validation: { validated: true, message: 'ok' } } });
    expect((await gate()).rules[0].passPercentage).toBe(10);
    const audit = (await c.call('GET', '/console/v1/audit_logs?kind=gate')).json().data[0];
    expect(audit).toMatchObject({ reviewId: id, actorEmail: 'bob@example.com', details: { validatedByWebhook: true } });
  });

  it('answers with the blocked review when the webhook rejects; nothing applied', async () => {
    decideWith(false);
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: 5000 }, bob);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: 'The pre-commit validation rejected the change; it is blocked.', data: { status: 'failed_webhook_validation' } });
    expect((await gate()).version).toBe(1);
  });

  it('keeps holding through progress messages, and answers with the pending review when awaitValidationMs passes; a later approval does not commit', async () => {
    decideWith(undefined);
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: 800 }, bob);
    expect(res.json()).toMatchObject({ data: { status: 'pending_webhook_validation', validation: { message: 'still checking' } } });
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(200);
    expect((await read(id)).status).toBe('approved_webhook_validation');
    expect((await gate()).version).toBe(1);
  });

  it('answers when the validation times out', async () => {
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: REVIEW_MAX_WAIT_MS }, bob);
    expect(res.json()).toMatchObject({ message: 'The pre-commit validation timed out; commit again to retry.', data: { status: 'validation_timed_out' } });
  }, 10_000);

  it('commits for a client on a real connection, whose request has been read to the end long before', async () => {
    decideWith(true, 100);
    const id = await approved();
    const url = await c.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${url}${item(id)}/commit`, { method: 'PUT', headers: { 'service-api-key': bob, 'content-type': 'application/json' }, body: JSON.stringify({ awaitValidationMs: 5000 }) });
    expect(((await res.json()) as { data: { status: string } }).data.status).toBe('committed');
  });

  it('commits nothing for a client that has gone when the approval comes', async () => {
    const id = await approved();
    // The held commit's own end, seen from the service: no clock decides when to look.
    const commitAwaiting = c.reviews.commitAwaiting.bind(c.reviews);
    let heldDone: Promise<unknown> | undefined;
    c.reviews.commitAwaiting = (...args) => {
      const result = commitAwaiting(...args);
      heldDone = result.catch(() => undefined);
      return result;
    };
    await c.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = c.app.server.address() as AddressInfo;
    const held = httpRequest({ host: '127.0.0.1', port, method: 'PUT', path: `${item(id)}/commit`, headers: { 'service-api-key': bob, 'content-type': 'application/json' } });
    held.on('error', () => undefined);
    held.end(JSON.stringify({ awaitValidationMs: 5000 }));
    await waitUntil(async () => ((await read(id)).status === 'pending_webhook_validation' ? true : undefined), 5000, 'validation started');
    held.destroy();
    await waitUntil(async () => ((await connections(c)) === 0 ? true : undefined), 5000, 'the console saw the client go');
    expect((await validate({ reviewID: id, validated: true })).statusCode).toBe(200);
    expect(heldDone).toBeDefined();
    await heldDone;
    expect((await read(id)).status).toBe('approved_webhook_validation');
    expect((await gate()).version).toBe(1);
  });

  it('answers held requests at once when the console closes, with the review as it is; the commit stays uncommitted', async () => {
    const id = await approved();
    const url = await c.app.listen({ host: '127.0.0.1', port: 0 });
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, { method, headers: { 'service-api-key': bob, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: { status: string } } }));
    // The long poll is held once it waits for the next change (known by its async context, not by time).
    const inPoll = new AsyncLocalStorage<true>();
    const awaitChange = c.reviews.awaitChange.bind(c.reviews);
    c.reviews.awaitChange = (...args) => inPoll.run(true, () => awaitChange(...args));
    const nextChange = c.reviews.nextChange.bind(c.reviews);
    let pollHeld: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (pollHeld = resolve));
    c.reviews.nextChange = (reviewId, ms) => {
      if (inPoll.getStore() === true) pollHeld();
      return nextChange(reviewId, ms);
    };
    const commit = send('PUT', `${item(id)}/commit`, { awaitValidationMs: REVIEW_MAX_WAIT_MS });
    await waitUntil(async () => ((await read(id)).status === 'pending_webhook_validation' ? true : undefined), 5000, 'validation started');
    const poll = send('GET', `/console/v1/reviews/${id}?waitWhile=pending_webhook_validation&waitMs=${REVIEW_MAX_WAIT_MS}`);
    await held;
    await c.close();
    expect(await commit).toMatchObject({ status: 200, body: { data: { status: 'pending_webhook_validation' } } });
    expect(await poll).toMatchObject({ status: 200, body: { data: { status: 'pending_webhook_validation' } } });
    // A close that waited out the holds (REVIEW_MAX_WAIT_MS each) would run past this test's limit.
  }, REVIEW_MAX_WAIT_MS / 2);

  it('commits at once without a webhook, as a plain commit', async () => {
    expect((await c.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: '' })).statusCode).toBe(200);
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: 5000 }, bob);
    expect(res.json()).toMatchObject({ message: 'Review committed successfully.', data: { status: 'committed', validation: null } });
  });

  it.each([[-1], [1.5], [REVIEW_MAX_WAIT_MS + 1], ['100']])('refuses awaitValidationMs %j with 400 naming it; the review stays approved', async (value) => {
    const id = await approved();
    const res = await c.call('PUT', `${item(id)}/commit`, { awaitValidationMs: value }, bob);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual(['awaitValidationMs']);
    expect((await read(id)).status).toBe('approved');
  });
});
