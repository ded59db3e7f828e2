import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

/**
 * The fast lane and Fastify's routes answer OFREP alike: each request goes once over a real port
 * (the lane takes it when it can) and once through `inject` (always Fastify's route), and status,
 * body and headers must match.
 */

let c: TestConsole;
let base: string;
let server: string;
let client: string;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Headers that differ by transport or by request (a fresh id, a date), not by answer. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding']);

function comparable(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!TRANSPORT_HEADERS.has(name.toLowerCase()) && value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

async function overPort(path: string, body: string, headers: Record<string, string>): Promise<Answer & { requestId: string | null }> {
  const res = await fetch(`${base}/ofrep/v1/evaluate/flags${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.text(), headers: comparable(Object.fromEntries(res.headers)), requestId: res.headers.get('x-request-id') };
}

async function throughFastify(path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const res = await c.app.inject({ method: 'POST', url: `/ofrep/v1/evaluate/flags${path}`, headers, payload: body });
  return { status: res.statusCode, body: res.body, headers: comparable(res.headers) };
}

function request(key: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...extra };
}

/** Sends over both paths; returns the port's answer and whether the lane took it. */
async function both(path: string, body: unknown, headers: Record<string, string>): Promise<{ answer: Answer; laned: boolean }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const before = c.fastLanes.ofrep.served;
  const port = await overPort(path, text, headers);
  const laned = c.fastLanes.ofrep.served > before;
  const fastify = await throughFastify(path, text, headers);
  const what = `${path} ${text.slice(0, 80)}`;
  expect(port.status, what).toBe(fastify.status);
  expect(port.body, what).toBe(fastify.body);
  expect(port.headers, what).toEqual(fastify.headers);
  expect(port.requestId, what).toMatch(/\S/);
  return { answer: port, laned };
}

beforeEach(async () => {
  c = createTestConsole({ corsOrigins: ['https://app.acme.example'] });
  const made = [
    await c.call('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'rule_based', rules: [{ name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] }),
    await c.call('POST', '/console/v1/gates', { id: 'new_checkout', name: 'new checkout', rules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }] }, { name: 'half', passPercentage: 50, conditions: [{ type: 'public' }] }] }),
    await c.call('POST', '/console/v1/gates', { id: 'odd', name: 'odd', rules: [{ name: 'mystery', passPercentage: 100, conditions: [{ type: 'mystery_type', operator: 'any', targetValue: ['x'] }] }] }),
    await c.call('POST', '/console/v1/gates', { id: 'shared', name: 'shared gate', rules: [] }),
    await c.call('POST', '/console/v1/dynamic_configs', { id: 'shared', name: 'shared config', rules: [], defaultValue: { a: 1 } }),
    await c.call('POST', '/console/v1/dynamic_configs', { id: 'pricing', name: 'pricing', defaultValue: { fee: 5 }, rules: [{ name: 'us', passPercentage: 100, conditions: [{ type: 'country', operator: 'any', targetValue: ['US'] }], returnValue: { fee: 1 } }] }),
  ];
  for (const r of made) expect(r.statusCode, r.body).toBe(201);
  const key = async (type: string) => ((await c.call('POST', '/console/v1/keys', { description: type, type })).json().data as { key: string }).key;
  server = await key('SERVER');
  client = await key('CLIENT');
  base = await c.app.listen({ host: '127.0.0.1', port: 0 });
  // The first request of a key is Fastify's: it resolves the key and compiles the specs the lane then uses.
  for (const k of [server, client]) await overPort('/new_checkout', JSON.stringify({ context: { targetingKey: 'warm' } }), request(k));
});

afterEach(async () => {
  await c.close();
});

describe('the OFREP fast lane', () => {
  it('answers single evaluations, values and errors alike, byte for byte as Fastify does', async () => {
    const cases: [string, unknown][] = [
      ['/new_checkout', { context: { targetingKey: 'u1', email: 'ann@acme.example' } }],
      ...Array.from({ length: 20 }, (_, i): [string, unknown] => ['/new_checkout', { context: { targetingKey: `user-${i}` } }]),
      ['/pricing', { context: { targetingKey: 'u1', country: 'US', plan: 'gold' } }],
      ['/gates/shared', { context: { targetingKey: 'u1' } }],
      ['/dynamic_configs/shared', { context: { targetingKey: 'u1' } }],
      ['/shared', { context: { targetingKey: 'u1' } }],
      ['/odd', { context: { targetingKey: 'u1' } }],
      ['/nope', { context: { targetingKey: 'u1' } }],
      ['/new_checkout', { context: { email: 'a@b.c' } }],
      ['/new_checkout', { context: { targetingKey: 42 } }],
      ['/new_checkout', { context: { targetingKey: 'u1', email: ['x'] } }],
      ['/new_checkout', { context: { targetingKey: 'u1', customIDs: { companyID: 7 } } }],
      ['/new_checkout', {}],
      ['/new_checkout', '{"context": '],
      ['/new_checkout', '[1]'],
      ['/new_checkout', ''],
      ['/new_checkout', '   '],
      ['/new_checkout', '\uFEFF{"context": {"targetingKey": "bom"}}'],
      ['/new_checkout', `{"context": {"targetingKey": "u", "x": ${'['.repeat(200)}${']'.repeat(200)}}}`],
      ['/new_checkout', '{"context": {"targetingKey": "u", "__proto__": {"x": 1}}}'],
    ];
    for (const [path, body] of cases) {
      const { laned } = await both(path, body, request(server));
      expect(laned, `${path} ${JSON.stringify(body)}`).toBe(true);
    }
  });

  it('answers bulk evaluations and their 304s alike, and a poll repeating its body gets the 304', async () => {
    const ctx = { context: { targetingKey: 'u1', email: 'ann@acme.example' } };
    const first = await both('', ctx, request(server));
    expect(first.laned).toBe(true);
    expect(first.answer.status).toBe(200);
    const etag = first.answer.headers['etag'] as string;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await both('', ctx, request(server, { 'if-none-match': tag }));
      expect([again.laned, again.answer.status, again.answer.body], tag).toEqual([true, 304, '']);
    }
    expect((await both('', ctx, request(server, { 'if-none-match': '"stale"' }))).answer.status).toBe(200);
    expect((await both('', { context: { targetingKey: 'u2' } }, request(server, { 'if-none-match': etag }))).answer.status).toBe(200);
    expect((await both('', { context: {} }, request(server))).answer.status).toBe(400);

    // A write moves the data mark: the kept tag no longer answers, on either path.
    expect((await c.call('PATCH', '/console/v1/gates/new_checkout', { rules: [] })).statusCode).toBe(200);
    const after = await both('', ctx, request(server, { 'if-none-match': etag }));
    expect(after.answer.status).toBe(200);
    expect(after.answer.headers['etag']).not.toBe(etag);
  });

  it('sends a bulk answer written in parts whole, with multi-byte text, as Fastify sends it joined', async () => {
    // Four answers of ~12,000 characters: past one part of the bulk text (ofrep-answers.ts).
    const note = 'grüße ✓ 😀 '.repeat(1000);
    for (let i = 0; i < 4; i++) expect((await c.call('POST', '/console/v1/dynamic_configs', { id: `big_${i}`, name: `big ${i}`, rules: [], defaultValue: { note, i } })).statusCode).toBe(201);
    await overPort('/big_0', JSON.stringify({ context: { targetingKey: 'warm' } }), request(server));
    const { answer, laned } = await both('', { context: { targetingKey: 'u1' } }, request(server));
    expect([laned, answer.status]).toEqual([true, 200]);
    const flags = (JSON.parse(answer.body) as { flags: { key: string; value: unknown }[] }).flags;
    expect(flags.filter((f) => f.key.startsWith('big_')).map((f) => f.value)).toEqual([0, 1, 2, 3].map((i) => ({ note, i })));
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    expect(answer.headers['etag']).toBe(`"${createHash('sha256').update(answer.body).digest('base64url').slice(0, 27)}"`);
  });

  it('leaves to Fastify what it cannot answer wholly: unknown keys, browsers, other bodies', async () => {
    const keyRes = await c.call('POST', '/console/v1/keys', { description: 'console', type: 'CONSOLE', userEmail: 'app@acme.example', role: 'read_only' });
    const consoleKey = (keyRes.json().data as { key: string }).key;
    const ctx = { context: { targetingKey: 'u1' } };
    const cases: [string, Record<string, string>, string, number][] = [
      ['no key', request(undefined), JSON.stringify(ctx), 401],
      ['unknown key', request('secret-nope'), JSON.stringify(ctx), 401],
      ['console key', request(consoleKey), JSON.stringify(ctx), 403],
      ['a browser', request(client, { origin: 'https://app.acme.example' }), JSON.stringify(ctx), 200],
      ['oversized', request(server), JSON.stringify({ context: { targetingKey: 'u1', blob: 'x'.repeat(70 * 1024) } }), 400],
      ['not JSON', request(server, { 'content-type': 'text/plain' }), 'targetingKey=u1', 400],
    ];
    for (const [what, headers, body, status] of cases) {
      const before = c.fastLanes.ofrep.served;
      const res = await overPort('/new_checkout', body, headers);
      expect(res.status, what).toBe(status);
      expect(c.fastLanes.ofrep.served, what).toBe(before);
    }
    const browser = await overPort('', JSON.stringify(ctx), request(client, { origin: 'https://app.acme.example' }));
    expect(browser.headers['access-control-allow-origin']).toBe('https://app.acme.example');
    // An escaped flag key is Fastify's to decode.
    const before = c.fastLanes.ofrep.served;
    expect((await overPort('/new%5Fcheckout', JSON.stringify(ctx), request(server))).body).toContain('"key":"new_checkout"');
    expect(c.fastLanes.ofrep.served).toBe(before);
  });

  it('counts its requests in /metrics under the route patterns Fastify reports', async () => {
    for (let i = 0; i < 3; i++) await overPort('/new_checkout', JSON.stringify({ context: { targetingKey: `m${i}` } }), request(server));
    await overPort('/nope', JSON.stringify({ context: { targetingKey: 'm' } }), request(server));
    const metrics = (await c.call('GET', '/metrics')).body;
    // The warm-up requests went through Fastify; these four through the lane: both count in the same series.
    expect(metrics).toMatch(/flagops_http_requests_total\{method="POST",route="\/ofrep\/v1\/evaluate\/flags\/\*",status="200"\} 5/);
    expect(metrics).toMatch(/flagops_http_requests_total\{method="POST",route="\/ofrep\/v1\/evaluate\/flags\/\*",status="404"\} 1/);
  });
});
