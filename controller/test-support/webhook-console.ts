import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTestConsole, type TestConsole } from './test-console.js';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.js';

/** What a test of the pre-commit protocol works with; set before each test. */
export interface WebhookConsole {
  /** One receiver for the file, reset before each test (nothing received, answers 200, no handler). */
  receiver: TestReceiver;
  /** A fresh console per test, its pre-commit webhook pointed at the receiver. */
  c: TestConsole;
  /** bob submits and commits, carol reviews (members); ci@example.com validates (webhook_receiver). */
  bob: string;
  carol: string;
  validator: string;
}

/**
 * Registers the hooks of a pre-commit protocol test file: `seed` runs on each fresh console before the
 * webhook is configured (e.g. creating the gate under review).
 */
export function useWebhookConsole(options: { webhookKey: string; webhookTimeoutMs: number; initialMessage?: string; seed: (c: TestConsole) => Promise<void> }): WebhookConsole {
  const env = {} as WebhookConsole;
  beforeAll(async () => {
    env.receiver = await startTestReceiver();
  });
  afterAll(() => env.receiver.close());
  beforeEach(async () => {
    env.receiver.received.length = 0;
    env.receiver.respondWith(200);
    env.receiver.onWebhook(undefined);
    env.c = createTestConsole({ webhookTimeoutMs: options.webhookTimeoutMs });
    env.bob = await env.c.keyFor('bob@example.com', 'member');
    env.carol = await env.c.keyFor('carol@example.com', 'member');
    env.validator = await env.c.keyFor('ci@example.com', 'webhook_receiver');
    await options.seed(env.c);
    const settings = { webhookURL: env.receiver.url, webhookKey: options.webhookKey, ...(options.initialMessage === undefined ? {} : { initialMessage: options.initialMessage }) };
    const res = await env.c.call('POST', '/console/v1/settings/precommit_webhook', settings);
    if (res.statusCode !== 200) throw new Error(`precommit_webhook settings: HTTP ${res.statusCode} ${res.body}`);
  });
  afterEach(() => env.c.close());
  return env;
}
