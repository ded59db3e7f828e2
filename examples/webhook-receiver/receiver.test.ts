/**
 * The example receiver as a customer runs it: `node receiver.mjs` as a child process, against a
 * console listening on 127.0.0.1:0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../controller/test-support/test-console.js';
import { waitUntil } from '../../controller/test-support/webhook-receiver.js';

const SCRIPT = fileURLToPath(new URL('./receiver.mjs', import.meta.url));
const WEBHOOK_KEY = 'example-receiver-key';

let c: TestConsole;
let child: ChildProcess;
let receiverUrl: string;
let stderr = '';
let bob: string;
let carol: string;

beforeAll(async () => {
  c = createTestConsole({ webhookTimeoutMs: 10_000 });
  const consoleUrl = await c.app.listen({ host: '127.0.0.1', port: 0 });
  bob = await c.keyFor('bob@example.com', 'member');
  carol = await c.keyFor('carol@example.com', 'member');
  const validator = await c.keyFor('ci@example.com', 'webhook_receiver');
  child = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, WEBHOOK_KEY, CONSOLE_API_KEY: validator, CONSOLE_URL: consoleUrl, PORT: '0', MAX_STEP: '50' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  receiverUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}: ${stderr}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  await c.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiverUrl, webhookKey: WEBHOOK_KEY });
  await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' });
});

afterAll(async () => {
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await c.close();
});

async function commitThroughReceiver(passPercentage: number): Promise<{ id: string; status: string }> {
  const change = { rules: [{ name: 'rollout', passPercentage, conditions: [{ type: 'public' }] }] };
  const id = (await c.call('POST', '/console/v1/gates/checkout/reviews', { change }, bob)).json().data.reviewID as string;
  await c.call('PUT', `/console/v1/gates/checkout/reviews/${id}/approve`, undefined, carol);
  expect((await c.call('PUT', `/console/v1/gates/checkout/reviews/${id}/commit`, undefined, bob)).json().data.status).toBe('pending_webhook_validation');
  const status = await waitUntil(async () => {
    const s = (await c.call('GET', `/console/v1/reviews/${id}`)).json().data.status as string;
    return s === 'pending_webhook_validation' ? undefined : s;
  }, 10_000, 'a decision');
  return { id, status };
}

describe('examples/webhook-receiver', () => {
  it('approves a small step with a message; the change then commits', async () => {
    const { id, status } = await commitThroughReceiver(20);
    expect(status).toBe('approved_webhook_validation');
    expect((await c.call('GET', `/console/v1/reviews/${id}`)).json().data.validation.message).toMatch(/^Approved/);
    expect((await c.call('PUT', `/console/v1/gates/checkout/reviews/${id}/commit`, undefined, bob)).json().data.status).toBe('committed');
  });

  it('rejects a jump above MAX_STEP; the change stays blocked', async () => {
    const { id, status } = await commitThroughReceiver(95);
    expect(status).toBe('failed_webhook_validation');
    expect((await c.call('GET', `/console/v1/reviews/${id}`)).json().data.validation.message).toMatch(/jumps by 75 points/);
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.rules[0].passPercentage).toBe(20);
  });

  it('refuses a wrong or missing key with 401', async () => {
    const post = (headers: Record<string, string>) => fetch(receiverUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"review_id":"x"}' });
    expect((await post({ 'x-service-webhook-key': 'wrong' })).status).toBe(401);
    expect((await post({})).status).toBe(401);
  });
});
