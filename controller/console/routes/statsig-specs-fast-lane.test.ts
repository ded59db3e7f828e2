import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

/** The SDKs' spec download answers alike over the fast lane (a real port) and Fastify's route (inject). */

let c: TestConsole;
let base: string;
let key: string;

const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding', 'server-timing']);

function comparable(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!TRANSPORT_HEADERS.has(name.toLowerCase()) && value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

async function both(path: string): Promise<{ status: number; body: string; laned: boolean; serverTiming: string | null }> {
  const before = c.fastLanes.specs.served;
  const res = await fetch(`${base}${path}`);
  const port = { status: res.status, body: await res.text(), headers: comparable(Object.fromEntries(res.headers)) };
  const laned = c.fastLanes.specs.served > before;
  const fastify = await c.app.inject({ method: 'GET', url: path });
  expect(port.status, path).toBe(fastify.statusCode);
  expect(port.body, path).toBe(fastify.body);
  expect(port.headers, path).toEqual(comparable(fastify.headers));
  expect(res.headers.get('server-timing') === null, path).toBe(fastify.headers['server-timing'] === undefined);
  expect(res.headers.get('x-request-id'), path).toMatch(/\S/);
  return { status: port.status, body: port.body, laned, serverTiming: res.headers.get('server-timing') };
}

beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { id: 'dark_mode', name: 'Dark mode', rules: [{ name: 'all', passPercentage: 100, conditions: [{ type: 'public' }] }] })).statusCode).toBe(201);
  key = ((await c.call('POST', '/console/v1/keys', { description: 'app', type: 'SERVER' })).json().data as { key: string }).key;
  base = await c.app.listen({ host: '127.0.0.1', port: 0 });
});

afterEach(() => c.close());

describe('the spec download fast lane', () => {
  it('serves the specs and has_updates false as the route does, once the key is known', async () => {
    // A new key is Fastify's: it authenticates the key and compiles the specs the lane then serves.
    const first = await both(`/v1/download_config_specs/${key}.json`);
    expect(first.laned).toBe(false);
    const time = (JSON.parse(first.body) as { time: number }).time;
    const full = await both(`/v1/download_config_specs/${key}.json`);
    expect([full.laned, full.status, full.body]).toEqual([true, 200, first.body]);
    expect(full.serverTiming).toMatch(/^load;dur=[\d.]+, compile;dur=[\d.]+$/);
    const unchanged = await both(`/v1/download_config_specs/${key}.json?sinceTime=${time}`);
    expect([unchanged.laned, JSON.parse(unchanged.body)]).toEqual([true, { has_updates: false, time }]);
    expect((await both(`/v1/download_config_specs/${key}?sinceTime=${time - 1}`)).laned).toBe(true);

    // A write moves the data mark: Fastify's route rebuilds, then the lane serves the new specs.
    expect((await c.call('PATCH', '/console/v1/gates/dark_mode', { isEnabled: false })).statusCode).toBe(200);
    const after = await both(`/v1/download_config_specs/${key}.json?sinceTime=${time}`);
    expect(after.laned).toBe(false);
    expect((JSON.parse(after.body) as { has_updates: boolean }).has_updates).toBe(true);
    expect((await both(`/v1/download_config_specs/${key}.json?sinceTime=${time}`)).laned).toBe(true);
  });

  it('leaves other requests to the route: unknown keys, other queries, HEAD', async () => {
    await both(`/v1/download_config_specs/${key}.json`);
    for (const path of [`/v1/download_config_specs/secret-nope.json`, `/v1/download_config_specs/${key}.json?sinceTime=soon`, `/v1/download_config_specs/${key}.json?sinceTime=1&x=2`, `/v1/download_config_specs/${key}.json?sinceTime=99999999999999999`]) {
      const answer = await both(path);
      expect(answer.laned, path).toBe(false);
    }
    const before = c.fastLanes.specs.served;
    expect((await fetch(`${base}/v1/download_config_specs/${key}.json`, { method: 'HEAD' })).status).toBe(200);
    expect(c.fastLanes.specs.served).toBe(before);
  });
});
