import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { plainDownload } from './statsig-specs-fast-lane.js';

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

/** What the lane takes, said with regular expressions: the scanner must agree with it on every URL. */
function expected(url: string): { secret: string; sinceTime: number | undefined } | undefined {
  const match = /^\/v1\/download_config_specs\/([A-Za-z0-9_-]{1,200})(?:\.json)?(?:\?sinceTime=(\d{1,16}))?$/.exec(url);
  if (!match?.[1]) return undefined;
  const sinceTime = match[2] === undefined ? undefined : Number(match[2]);
  return sinceTime === undefined || Number.isSafeInteger(sinceTime) ? { secret: match[1], sinceTime } : undefined;
}

describe('plainDownload', () => {
  const prefix = '/v1/download_config_specs/';
  it('reads the key and sinceTime of the URLs the SDKs send, and nothing else', () => {
    expect(plainDownload(`${prefix}secret-abc_1.json`)).toEqual({ secret: 'secret-abc_1', sinceTime: undefined });
    expect(plainDownload(`${prefix}secret-abc_1`)).toEqual({ secret: 'secret-abc_1', sinceTime: undefined });
    expect(plainDownload(`${prefix}k.json?sinceTime=0`)).toEqual({ secret: 'k', sinceTime: 0 });
    expect(plainDownload(`${prefix}k?sinceTime=1732800000000`)).toEqual({ secret: 'k', sinceTime: 1732800000000 });
    expect(plainDownload(`${prefix}k.json?sinceTime=9007199254740991`)).toEqual({ secret: 'k', sinceTime: 9007199254740991 });
    for (const rest of ['', '.json', 'k.json?sinceTime=', 'k.json?sinceTime=9007199254740992', 'k.json?sinceTime=99999999999999999', 'k.json?sinceTime=1e3', 'k.json?sinceTime= 1', 'k.json?sinceTime=0x1', 'k.json?sinceTime=-1', 'k.json?sinceTime=1&x=2', 'k.json?x=1', 'k.json.json', 'k.jso', 'k%41.json', 'k/.json', 'k.json#x', `${'k'.repeat(201)}.json`]) {
      expect(plainDownload(prefix + rest), rest).toBeUndefined();
    }
    expect(plainDownload(`${prefix}${'k'.repeat(200)}`)).toEqual({ secret: 'k'.repeat(200), sinceTime: undefined });
  });

  it('agrees with the regular expressions on random URLs', () => {
    const pieces = ['a', 'Z', '9', '_', '-', '.', '.json', '?', '?sinceTime=', 'sinceTime', '=', '0', '7', '1732800000000', '%', '/', ' ', 'é', '#', '&x=1'];
    let seed = 42;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 20000; i++) {
      let rest = '';
      const count = next(8);
      for (let j = 0; j < count; j++) rest += pieces[next(pieces.length)];
      const url = prefix + rest;
      expect(plainDownload(url), url).toEqual(expected(url));
    }
  });
});
