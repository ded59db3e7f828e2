import { describe, expect, it } from 'vitest';
import { BridgeService } from '../../bridge/bridge-service.js';
import { buildBridgeApp } from '../../bridge/build-bridge-app.js';
import { createTestConsole } from '../../test-support/test-console.js';

describe('GET /healthz', () => {
  it('answers the console readiness probe without a key', async () => {
    const c = createTestConsole();
    const res = await c.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    await c.close();
  });

  it('answers the bridge readiness probe without a webhook key', async () => {
    const service = new BridgeService({
      source: { read: async () => ({ branch: 'main', commit: 'c'.repeat(40), path: 'gates/g.yaml', entity: undefined }), contains: async () => true },
      console: { progress: async () => undefined, decide: async () => undefined },
      compare: () => [],
      policies: () => ({}),
      clock: () => 0,
      failOpen: false,
      log: () => undefined,
    });
    const app = buildBridgeApp({ service, webhookKey: 'the-key' });
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    await app.close();
  });
});
