import { describe, expect, it } from 'vitest';
import { BridgeService, type PrecommitPayload } from './bridge-service.js';
import { buildBridgeApp } from './build-bridge-app.js';

function app() {
  const handled: PrecommitPayload[] = [];
  const service = new BridgeService({
    source: { read: async () => ({ branch: 'main', commit: 'c'.repeat(40), path: 'gates/g.yaml', entity: undefined }), contains: async () => true },
    console: { progress: async () => undefined, decide: async () => undefined },
    reviews: { review: async () => ({ description: undefined, configType: 'gate', configName: 'g', type: 'rules', oldConfig: null, newConfig: { id: 'g' } }) },
    compare: () => [],
    policies: () => ({}),
    clock: () => 0,
    failOpen: false,
    log: () => undefined,
  });
  const original = service.handle.bind(service);
  service.handle = (payload) => (handled.push(payload), original(payload));
  return { app: buildBridgeApp({ service, webhookKey: 'the-key' }), handled };
}

const payload = { review_id: 'r1', submitter: 'a@x', committer: 'b@x', config_type: 'gate', config_name: 'g', type: 'rules', old_config: null, new_config: { id: 'g' } };

describe('bridge webhook endpoint', () => {
  it.each([
    ['missing', undefined],
    ['wrong', 'not-the-key'],
    ['longer', 'the-key-and-more'],
  ])('answers 401 to a %s key and decides nothing', async (_name, key) => {
    const { app: a, handled } = app();
    const res = await a.inject({ method: 'POST', url: '/webhook', payload, headers: key === undefined ? {} : { 'x-service-webhook-key': key } });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('the-key');
    expect(handled).toEqual([]);
  });

  it('checks the key before it reads the body: without it, a body that is not even JSON gets 401', async () => {
    const { app: a, handled } = app();
    const res = await a.inject({ method: 'POST', url: '/webhook', payload: '{"review_id": [[[[', headers: { 'content-type': 'application/json', 'x-service-webhook-key': 'wrong' } });
    expect(res.statusCode).toBe(401);
    expect(handled).toEqual([]);
    const keyed = await a.inject({ method: 'POST', url: '/webhook', payload: '{"review_id": [[[[', headers: { 'content-type': 'application/json', 'x-service-webhook-key': 'the-key' } });
    expect(keyed.statusCode).toBe(400);
  });

  it('answers 400 naming the missing field of a bad payload', async () => {
    const { app: a, handled } = app();
    const res = await a.inject({ method: 'POST', url: '/webhook', payload: { ...payload, review_id: undefined }, headers: { 'x-service-webhook-key': 'the-key' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].property).toBe('review_id');
    expect(handled).toEqual([]);
  });

  it('accepts a delivery at once (202) and decides in the background', async () => {
    const { app: a, handled } = app();
    const res = await a.inject({ method: 'POST', url: '/webhook', payload, headers: { 'x-service-webhook-key': 'the-key' } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ reviewID: 'r1' });
    expect(handled.map((p) => p.review_id)).toEqual(['r1']);
  });

  it('answers the readiness probe GET /healthz without a webhook key', async () => {
    const { app: a } = app();
    const res = await a.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
});
