/**
 * A holder of the webhook key cannot make the bridge approve what git does not hold: the bridge
 * judges the review the console holds, whatever the payload says. A real console on a real port, a
 * real bridge on a real port, a real git repository; the console delivers its own webhooks to a
 * recording receiver, so each review waits for the payload the test (the attacker) sends the bridge.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { simpleGit } from 'simple-git';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBridge } from '../bridge/create-bridge.js';
import { createHttpClient } from '../net/http-client.js';
import { ConsoleClient } from '../reconcile/console-client.js';
import { useWebhookConsole } from '../test-support/webhook-console.js';

const WEBHOOK_KEY = 'forged-payload-webhook-key';
const ramp = (passPercentage: number) => [{ name: 'ramp', passPercentage, conditions: [{ type: 'public' }] }];
const GATES: Record<string, { description: string; passPercentage: number }> = {
  checkout: { description: 'checkout flow', passPercentage: 10 },
  dark_mode: { description: 'dark theme', passPercentage: 100 },
  kill_switch_payments: { description: 'stops payments', passPercentage: 0 },
};

const env = useWebhookConsole({
  webhookKey: WEBHOOK_KEY,
  webhookTimeoutMs: 60_000,
  seed: async (c) => {
    for (const [id, gate] of Object.entries(GATES)) {
      const res = await c.call('POST', '/console/v1/gates', { id, name: id, description: gate.description, rules: ramp(gate.passPercentage) });
      expect(res.statusCode, res.body).toBe(201);
    }
  },
});
const http = createHttpClient();

let dir: string;
let bridge: FastifyInstance;
let bridgeUrl: string;

function writeGate(id: string, description: string, passPercentage: number): void {
  const file = join(dir, 'gates', `${id}.yaml`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `id: ${id}\nname: ${id}\ndescription: ${description}\nrules:\n  - name: ramp\n    passPercentage: ${passPercentage}\n    conditions: [{ type: public }]\n`);
}

async function commitAll(message: string): Promise<void> {
  await simpleGit(dir).add('.');
  await simpleGit(dir).commit(message);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-forged-'));
  await simpleGit(dir).init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev');
  writeFileSync(join(dir, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\nbridge:\n  protectedEntities: [gates/kill_switch_payments]\n');
  for (const [id, gate] of Object.entries(GATES)) writeGate(id, gate.description, gate.passPercentage);
  await commitAll('gates');
});

beforeEach(async () => {
  const consoleUrl = await env.c.app.listen({ host: '127.0.0.1', port: 0 });
  ({ app: bridge } = createBridge({ repoDir: dir, branch: 'main', console: new ConsoleClient({ baseUrl: consoleUrl, apiKey: env.validator }), webhookKey: WEBHOOK_KEY, failOpen: false, log: () => undefined }));
  bridgeUrl = `${await bridge.listen({ host: '127.0.0.1', port: 0 })}/webhook`;
});

afterEach(() => bridge.close());
afterAll(async () => {
  http.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Submits, approves and commits a review of `gateId`; returns it pending validation, with the payload the console delivered. */
async function pendingReview(gateId: string, change: Record<string, unknown>): Promise<{ id: string; delivered: Record<string, unknown> }> {
  const { c, bob, carol } = env;
  const submitted = await c.call('POST', `/console/v1/gates/${gateId}/reviews`, { change, description: 'change' }, bob);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  expect((await c.call('PUT', `/console/v1/gates/${gateId}/reviews/${id}/approve`, undefined, carol)).statusCode).toBe(200);
  expect((await c.call('PUT', `/console/v1/gates/${gateId}/reviews/${id}/commit`, undefined, bob)).json().data.status).toBe('pending_webhook_validation');
  const hook = await env.receiver.waitFor((h) => h.body['review_id'] === id);
  return { id, delivered: hook.body };
}

/** Sends a payload to the bridge with the webhook key, and waits for the console's review to be decided. */
async function sendToBridge(id: string, payload: Record<string, unknown>): Promise<{ status: string; message: string }> {
  const res = await http.send({ method: 'POST', url: new URL(bridgeUrl), headers: { 'content-type': 'application/json', 'x-service-webhook-key': WEBHOOK_KEY }, body: JSON.stringify(payload) });
  expect(res.status).toBe(202);
  for (;;) {
    const review = (await env.c.call('GET', `/console/v1/reviews/${id}`)).json().data as { status: string; validation: { message: string | null } };
    if (review.status !== 'pending_webhook_validation') return { status: review.status, message: review.validation.message ?? '' };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function liveRules(gateId: string): Promise<unknown> {
  return ((await env.c.call('GET', `/console/v1/gates/${gateId}`)).json().data as { rules: { passPercentage: number }[] }).rules.map((r) => r.passPercentage);
}

describe('the bridge, sent payloads by a holder of the webhook key', () => {
  it('approves the genuine delivery of a review git holds (the comparison the forgeries would pass)', async () => {
    writeGate('dark_mode', GATES['dark_mode']!.description, 50);
    await commitAll('dark_mode to half');
    try {
      const { id, delivered } = await pendingReview('dark_mode', { rules: ramp(50) });
      expect(await sendToBridge(id, delivered)).toMatchObject({ status: 'approved_webhook_validation', message: expect.stringMatching(/^Approved: matches gates\/dark_mode\.yaml/) as string });
    } finally {
      writeGate('dark_mode', GATES['dark_mode']!.description, 100);
      await commitAll('dark_mode back');
    }
  });

  it("rejects a review git does not hold though the payload's new_config is git's version (F1)", async () => {
    const { id, delivered } = await pendingReview('checkout', { rules: ramp(50) });
    // The console's config before the change is exactly what git declares.
    const verdict = await sendToBridge(id, { ...delivered, new_config: delivered['old_config'] });
    expect(verdict.status).toBe('failed_webhook_validation');
    expect(verdict.message).toMatch(/^Rejected: the change does not match gates\/checkout\.yaml .*differs in rules/);
    expect(await liveRules('checkout')).toEqual([10]);
  });

  it('rejects a review git does not hold though the payload leaves new_config out (F2)', async () => {
    const { id, delivered } = await pendingReview('checkout', { rules: ramp(50) });
    const { new_config: _left, ...without } = delivered;
    const verdict = await sendToBridge(id, without);
    expect(verdict.status).toBe('failed_webhook_validation');
    expect(verdict.message).toMatch(/differs in rules/);
    expect(await liveRules('checkout')).toEqual([10]);
  });

  it('rejects a payload naming another gate than the review, naming the mismatch (F3)', async () => {
    const { id, delivered } = await pendingReview('kill_switch_payments', { rules: ramp(100) });
    const darkMode = (await env.c.call('GET', '/console/v1/gates/dark_mode')).json().data as Record<string, unknown>;
    const verdict = await sendToBridge(id, { ...delivered, config_name: 'dark_mode', old_config: darkMode, new_config: darkMode });
    expect(verdict).toEqual({ status: 'failed_webhook_validation', message: `Rejected: the webhook payload does not describe review ${id}: config_name is 'dark_mode' (the review's: 'kill_switch_payments').` });
    expect(await liveRules('kill_switch_payments')).toEqual([0]);
  });
});
