/**
 * The Statsig SDK endpoints over HTTP: config specs for a SERVER key (scoped by its environments and
 * target apps, `has_updates: false` when nothing changed, rebuilt after a write), id lists, and
 * log_event; every bad key or body a clear 4xx that changes nothing.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigSpecs } from '../../core/eval/config-spec-types.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

async function sdkKey(body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await c.call('POST', '/console/v1/keys', { description: 'app', type: 'SERVER', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const download = (key: string, query = '') => c.app.inject({ method: 'GET', url: `/v1/download_config_specs/${key}.json${query}` });
const gateNames = (specs: ConfigSpecs): string[] => specs.feature_gates.map((g) => g.name);

describe('GET /v1/download_config_specs/{key}.json', () => {
  it('serves the compiled specs, then has_updates false until a write', async () => {
    expect((await c.call('POST', '/console/v1/gates', { id: 'dark_mode', name: 'Dark mode', rules: [{ name: 'all', passPercentage: 100, conditions: [{ type: 'public' }] }] })).statusCode).toBe(201);
    const { key } = await sdkKey();
    const first = await download(key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['server-timing']).toMatch(/^load;dur=[\d.]+, compile;dur=[\d.]+$/);
    const specs = first.json<ConfigSpecs>();
    expect(specs.has_updates).toBe(true);
    expect(gateNames(specs)).toEqual(['dark_mode']);
    expect(specs.time).toBeGreaterThan(0);
    const again = await download(key, `?sinceTime=${specs.time}`);
    expect(again.json()).toEqual({ has_updates: false, time: specs.time });
    expect((await c.call('PATCH', '/console/v1/gates/dark_mode', { isEnabled: false })).statusCode).toBe(200);
    const after = (await download(key, `?sinceTime=${specs.time}`)).json<ConfigSpecs>();
    expect(after.has_updates).toBe(true);
    expect(after.time).toBeGreaterThanOrEqual(specs.time);
    expect(after.feature_gates[0]?.enabled).toBe(false);
  });

  it("answers from a cache that a write renews: the same bytes until then", async () => {
    const { key } = await sdkKey();
    await download(key);
    const before = c.configSpecs.rebuilds;
    const a = await download(key);
    const b = await download(key);
    expect(a.body).toBe(b.body);
    expect(c.configSpecs.rebuilds).toBe(before);
    expect((await c.call('POST', '/console/v1/gates', { id: 'new_gate', name: 'New gate' })).statusCode).toBe(201);
    expect(gateNames((await download(key)).json())).toEqual(['new_gate']);
    expect(c.configSpecs.rebuilds).toBe(before + 1);
  });

  it("a key's environment and target apps scope what it gets", async () => {
    expect((await c.call('POST', '/console/v1/gates', { id: 'web_only', name: 'Web only', targetApps: ['web'], rules: [{ name: 'staging', passPercentage: 100, conditions: [{ type: 'public' }], environments: ['staging'] }] })).statusCode).toBe(201);
    expect((await c.call('POST', '/console/v1/gates', { id: 'ios_only', name: 'iOS only', targetApps: ['ios'] })).statusCode).toBe(201);
    const web = (await download((await sdkKey({ environments: ['production'], targetAppID: 'web' })).key)).json<ConfigSpecs>();
    expect(gateNames(web)).toEqual(['web_only']);
    expect(web.feature_gates[0]?.rules).toEqual([]);
    expect(web.default_environment).toBe('production');
    expect(web.app_id).toBe('web');
    const staging = (await download((await sdkKey({ environments: ['staging'] })).key)).json<ConfigSpecs>();
    expect(gateNames(staging)).toEqual(['web_only', 'ios_only']);
    expect(staging.feature_gates[0]?.rules.map((r) => r.conditions.map((x) => x.type))).toEqual([['public']]);
  });

  it('refuses a missing, unknown, deactivated, CONSOLE or CLIENT key, and a bad sinceTime', async () => {
    const unknown = await download('secret-nope');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ status: 401, message: 'Invalid SDK key.' });
    expect((await download('')).statusCode).toBe(401);
    const consoleKey = await c.keyFor('dev@acme.example', 'admin');
    const refused = await download(consoleKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/CONSOLE key/);
    const client = await sdkKey({ type: 'CLIENT' });
    expect((await download(client.key)).statusCode).toBe(403);
    const server = await sdkKey();
    for (const bad of ['-1', 'abc', '1.5', '99999999999999999999']) {
      const res = await download(server.key, `?sinceTime=${bad}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ property: 'sinceTime', errorMessage: 'must be a non-negative integer (epoch milliseconds)' }]);
    }
    expect((await c.call('PATCH', `/console/v1/keys/${server.id}/deactivate`)).statusCode).toBe(200);
    const deactivated = await download(server.key);
    expect(deactivated.statusCode).toBe(401);
    expect(deactivated.json().message).toMatch(/deactivated/);
  });
});

describe('the other SDK endpoints', () => {
  const post = (url: string, key: string | undefined, payload: string | Buffer, headers: Record<string, string> = {}) =>
    c.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'statsig-api-key': key }), ...headers } });

  it('POST /v1/download_config_specs takes the key in STATSIG-API-KEY and sinceTime in the body', async () => {
    const { key } = await sdkKey();
    const full = await post('/v1/download_config_specs', key, '{}');
    expect(full.statusCode).toBe(200);
    const { time } = full.json<ConfigSpecs>();
    expect((await post('/v1/download_config_specs', key, JSON.stringify({ sinceTime: time }))).json().has_updates).toBe(time === 0);
    expect((await post('/v1/download_config_specs', key, JSON.stringify({ sinceTime: 'x' }))).statusCode).toBe(400);
    expect((await post('/v1/download_config_specs', key, '[]')).statusCode).toBe(400);
    expect((await post('/v1/download_config_specs', undefined, '{}')).statusCode).toBe(401);
  });

  it('POST /v1/get_id_lists: no lists (segments are in the specs)', async () => {
    const { key } = await sdkKey();
    const res = await post('/v1/get_id_lists', key, '{}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await post('/v1/get_id_lists', 'secret-nope', '{}')).statusCode).toBe(401);
  });

  it('POST /v1/log_event accepts plain and gzipped batches and counts exposures in /metrics', async () => {
    const { key } = await sdkKey();
    const batch = {
      statsigMetadata: { sdkType: 'statsig-node' },
      events: [
        { eventName: 'statsig::gate_exposure', user: { userID: '1' }, metadata: { gate: 'dark_mode', gateValue: 'true' } },
        { eventName: 'statsig::config_exposure', user: { userID: '1' } },
        { eventName: 'purchase', user: { userID: '1' }, value: 10 },
      ],
    };
    expect((await post('/v1/log_event', key, JSON.stringify(batch))).statusCode).toBe(202);
    const zipped = await post('/v1/log_event', key, gzipSync(JSON.stringify(batch)), { 'content-encoding': 'gzip' });
    expect(zipped.statusCode).toBe(202);
    expect(zipped.json()).toEqual({ success: true });
    const metrics = (await c.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/flagops_sdk_events_total\{kind="gate_exposure"\} 2/);
    expect(metrics).toMatch(/flagops_sdk_events_total\{kind="config_exposure"\} 2/);
    expect(metrics).toMatch(/flagops_sdk_events_total\{kind="custom"\} 2/);
  });

  it('POST /v1/log_event: bad bodies and keys are 4xx, never a 500', async () => {
    const { key } = await sdkKey();
    const cases: [string | undefined, string | Buffer, Record<string, string>, number][] = [
      [key, '{"events": 3}', {}, 400],
      [key, '{not json', {}, 400],
      [key, Buffer.from('definitely not gzip'), { 'content-encoding': 'gzip' }, 400],
      [key, '{"events": []}', { 'content-encoding': 'br' }, 400],
      [key, '['.repeat(5000) + ']'.repeat(5000), {}, 400],
      [undefined, '{"events": []}', {}, 401],
      [await c.keyFor('dev@acme.example', 'admin'), '{"events": []}', {}, 403],
    ];
    for (const [k, payload, headers, status] of cases) {
      const res = await post('/v1/log_event', k, payload, headers);
      expect(res.statusCode, `${String(payload).slice(0, 30)} ${JSON.stringify(headers)}`).toBe(status);
      expect(res.json().status).toBe(status);
    }
    const client = await sdkKey({ type: 'CLIENT' });
    expect((await post('/v1/log_event', client.key, '{"events": []}')).statusCode).toBe(202);
  });
});
