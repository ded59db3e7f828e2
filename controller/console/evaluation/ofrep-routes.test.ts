import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
let server: string;
let client: string;

async function sdkKey(type: 'SERVER' | 'CLIENT' | 'CONSOLE', extra: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const who = type === 'CONSOLE' ? { userEmail: 'app@acme.example', role: 'read_only' } : {};
  const res = await c.call('POST', '/console/v1/keys', { description: `${type} key`, type, ...who, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { id: string; key: string };
  return { id: data.id, key: data.key };
}

function ofrep(path: string, body: unknown, key: string | undefined, headers: Record<string, string> = {}) {
  return c.app.inject({
    method: 'POST',
    url: `/ofrep/v1/evaluate/flags${path}`,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

beforeEach(async () => {
  c = createTestConsole({ corsOrigins: ['https://app.acme.example'] });
  const made = [
    await c.call('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'rule_based', rules: [{ name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] }),
    await c.call('POST', '/console/v1/gates', {
      id: 'new_checkout', name: 'new checkout',
      rules: [
        { name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }] },
        { name: 'prod only', passPercentage: 100, conditions: [{ type: 'public' }], environments: ['production'] },
      ],
    }),
    await c.call('POST', '/console/v1/gates', { id: 'odd', name: 'odd', rules: [{ name: 'mystery', passPercentage: 100, conditions: [{ type: 'mystery_type', operator: 'any', targetValue: ['x'] }] }] }),
    await c.call('POST', '/console/v1/gates', { id: 'shared', name: 'shared gate', rules: [] }),
    await c.call('POST', '/console/v1/dynamic_configs', { id: 'shared', name: 'shared config', rules: [], defaultValue: { a: 1 } }),
    await c.call('POST', '/console/v1/dynamic_configs', { id: 'pricing', name: 'pricing', defaultValue: { fee: 5 }, rules: [{ name: 'us', passPercentage: 100, conditions: [{ type: 'country', operator: 'any', targetValue: ['US'] }], returnValue: { fee: 1 } }] }),
  ];
  for (const r of made) expect(r.statusCode, r.body).toBe(201);
  server = (await sdkKey('SERVER')).key;
  client = (await sdkKey('CLIENT')).key;
});

afterEach(async () => {
  await c.close();
});

describe('OFREP single evaluation', () => {
  it('answers a gate with a boolean, its reason, variant and deciding rule', async () => {
    const yes = await ofrep('/new_checkout', { context: { targetingKey: 'u1', email: 'ann@acme.example' } }, server);
    expect(yes.statusCode, yes.body).toBe(200);
    expect(yes.json()).toMatchObject({ key: 'new_checkout', value: true, reason: 'TARGETING_MATCH', metadata: { kind: 'gate', ruleName: 'staff' } });
    const no = await ofrep('/new_checkout', { context: { targetingKey: 'u2', email: 'bob@other.example' } }, server);
    // The key serves no environment: the production-only rule does not apply.
    expect(no.json()).toMatchObject({ key: 'new_checkout', value: false, reason: 'DEFAULT', variant: 'default' });
  });

  it('serves the environment of the key', async () => {
    const prod = (await sdkKey('SERVER', { environments: ['production'] })).key;
    const res = await ofrep('/new_checkout', { context: { targetingKey: 'u2' } }, prod);
    expect(res.json()).toMatchObject({ value: true, metadata: { ruleName: 'prod only' } });
  });

  it('answers a dynamic config with its object; custom fields and user fields come from the context', async () => {
    const us = await ofrep('/pricing', { context: { targetingKey: 'u1', country: 'US', plan: 'gold' } }, client);
    expect(us.json()).toMatchObject({ key: 'pricing', value: { fee: 1 }, reason: 'TARGETING_MATCH' });
    const other = await ofrep('/pricing', { context: { targetingKey: 'u1', country: 'FR' } }, client);
    expect(other.json()).toMatchObject({ value: { fee: 5 }, reason: 'DEFAULT' });
  });

  it('names both flags when kinds share an id, and takes the prefixed form', async () => {
    const both = await ofrep('/shared', { context: { targetingKey: 'u1' } }, server);
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ key: 'shared', errorCode: 'GENERAL' });
    expect(both.json().errorDetails).toContain('gates/shared');
    expect(both.json().errorDetails).toContain('dynamic_configs/shared');
    expect((await ofrep('/gates/shared', { context: { targetingKey: 'u1' } }, server)).json()).toMatchObject({ key: 'gates/shared', value: false });
    expect((await ofrep('/dynamic_configs/shared', { context: { targetingKey: 'u1' } }, server)).json()).toMatchObject({ value: { a: 1 } });
  });

  it('reports a rule it cannot evaluate as an error, never as a value', async () => {
    const res = await ofrep('/odd', { context: { targetingKey: 'u1' } }, server);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ key: 'odd', errorCode: 'GENERAL' });
    expect(res.json().errorDetails).toContain('mystery');
  });

  it('refuses bad input with the protocol\'s errors', async () => {
    const consoleKey = (await sdkKey('CONSOLE')).key;
    const deactivated = await sdkKey('SERVER');
    expect((await c.call('PATCH', `/console/v1/keys/${deactivated.id}/deactivate`)).statusCode).toBe(200);
    const ctx = { context: { targetingKey: 'u1' } };
    const cases: [string, Awaited<ReturnType<typeof ofrep>>, number, string | undefined][] = [
      ['no key', await ofrep('/new_checkout', ctx, undefined), 401, undefined],
      ['unknown key', await ofrep('/new_checkout', ctx, 'secret-nope'), 401, undefined],
      ['deactivated key', await ofrep('/new_checkout', ctx, deactivated.key), 401, undefined],
      ['console key', await ofrep('/new_checkout', ctx, consoleKey), 403, undefined],
      ['unknown flag', await ofrep('/nope', ctx, server), 404, 'FLAG_NOT_FOUND'],
      ['no targeting key', await ofrep('/new_checkout', { context: { email: 'a@b.c' } }, server), 400, 'TARGETING_KEY_MISSING'],
      ['targeting key not text', await ofrep('/new_checkout', { context: { targetingKey: 42 } }, server), 400, 'INVALID_CONTEXT'],
      ['email not text', await ofrep('/new_checkout', { context: { targetingKey: 'u1', email: ['x'] } }, server), 400, 'INVALID_CONTEXT'],
      ['custom ids not text', await ofrep('/new_checkout', { context: { targetingKey: 'u1', customIDs: { companyID: 7 } } }, server), 400, 'INVALID_CONTEXT'],
      ['no context', await ofrep('/new_checkout', {}, server), 400, 'INVALID_CONTEXT'],
      ['malformed', await ofrep('/new_checkout', '{"context": ', server), 400, 'PARSE_ERROR'],
      ['not an object', await ofrep('/new_checkout', '[1]', server), 400, 'PARSE_ERROR'],
      ['empty body', await ofrep('/new_checkout', '', server), 400, 'PARSE_ERROR'],
      ['too deep', await ofrep('/new_checkout', `{"context": {"targetingKey": "u", "x": ${'['.repeat(200)}${']'.repeat(200)}}}`, server), 400, 'PARSE_ERROR'],
      ['oversized', await ofrep('/new_checkout', { context: { targetingKey: 'u1', blob: 'x'.repeat(70 * 1024) } }, server), 400, 'PARSE_ERROR'],
      ['not JSON', await ofrep('/new_checkout', 'targetingKey=u1', server, { 'content-type': 'text/plain' }), 400, 'PARSE_ERROR'],
    ];
    for (const [what, res, status, code] of cases) {
      expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
      const body = res.json() as Record<string, unknown>;
      if (code) expect(body, what).toMatchObject({ key: what === 'unknown flag' ? 'nope' : 'new_checkout', errorCode: code });
      expect(typeof body['errorDetails'], what).toBe('string');
    }
  });
});

describe('OFREP bulk evaluation', () => {
  it('evaluates every flag visible to the key, with an ETag that answers 304 while nothing changed', async () => {
    const first = await ofrep('', { context: { targetingKey: 'u1', email: 'ann@acme.example' } }, server);
    expect(first.statusCode, first.body).toBe(200);
    const flags = first.json().flags as { key: string }[];
    expect(flags.map((f) => f.key).sort()).toEqual(['dynamic_configs/shared', 'gates/shared', 'new_checkout', 'odd', 'pricing']);
    expect(flags.find((f) => f.key === 'odd')).toMatchObject({ errorCode: 'GENERAL' });
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await ofrep('', { context: { targetingKey: 'u1', email: 'ann@acme.example' } }, server, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Another user, another answer.
    expect((await ofrep('', { context: { targetingKey: 'u2' } }, server, { 'if-none-match': etag })).statusCode).toBe(200);
    // A write changes the answer: the old tag no longer matches.
    expect((await c.call('PUT', '/console/v1/gates/new_checkout/disable')).statusCode).toBeLessThan(300);
    const after = await ofrep('', { context: { targetingKey: 'u1', email: 'ann@acme.example' } }, server, { 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect((after.json().flags as { key: string; value?: unknown; reason?: string }[]).find((f) => f.key === 'new_checkout')).toMatchObject({ value: false, reason: 'DISABLED' });
  });

  it('refuses a bulk request without a targeting key', async () => {
    const res = await ofrep('', { context: {} }, server);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorCode: 'TARGETING_KEY_MISSING' });
  });

  it('limits the flags to the target apps of the key', async () => {
    expect((await c.call('POST', '/console/v1/gates', { id: 'web_only', name: 'web only', rules: [], targetApps: ['web'] })).statusCode).toBe(201);
    const mobile = (await sdkKey('SERVER', { targetAppID: 'mobile' })).key;
    const keys = ((await ofrep('', { context: { targetingKey: 'u1' } }, mobile)).json().flags as { key: string }[]).map((f) => f.key);
    expect(keys).not.toContain('web_only');
    expect(keys).toContain('new_checkout');
    expect((await ofrep('/web_only', { context: { targetingKey: 'u1' } }, mobile)).statusCode).toBe(404);
  });
});

describe('OFREP from a browser', () => {
  it('lets allowed origins call with a CLIENT key, never with a SERVER key', async () => {
    const pre = await c.app.inject({ method: 'OPTIONS', url: '/ofrep/v1/evaluate/flags', headers: { origin: 'https://app.acme.example', 'access-control-request-method': 'POST' } });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.acme.example');
    expect(String(pre.headers['access-control-allow-headers'])).toContain('Authorization');
    const ok = await ofrep('', { context: { targetingKey: 'u1' } }, client, { origin: 'https://app.acme.example' });
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.acme.example');
    expect(ok.headers['access-control-expose-headers']).toBe('ETag');
    const secret = await ofrep('', { context: { targetingKey: 'u1' } }, server, { origin: 'https://app.acme.example' });
    expect(secret.headers['access-control-allow-origin']).toBeUndefined();
    const stranger = await ofrep('', { context: { targetingKey: 'u1' } }, client, { origin: 'https://evil.example' });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });
});
