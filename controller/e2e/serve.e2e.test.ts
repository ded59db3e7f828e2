/**
 * `flagops serve` as a user runs it: the compiled CLI in a child process on 127.0.0.1:0 with a file
 * database, driven over real HTTP. Needs `npm run build` first (`npm test` does it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
type Json = any;

let dir: string;
let dbCounter = 0;
const running: SpawnedConsole[] = [];

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/controller/main.js', import.meta.url)))) {
    throw new Error('The CLI is not built: run `npm run build` (npm test does) before the e2e tests.');
  }
  dir = mkdtempSync(join(tmpdir(), 'flagops-serve-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  // A failed test must not leave a console running.
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

const newDb = (): string => join(dir, `db-${++dbCounter}`, 'console.db');

async function start(options: Parameters<typeof spawnConsole>[0]): Promise<SpawnedConsole> {
  const server = await spawnConsole(options);
  running.push(server);
  return server;
}

async function stop(server: SpawnedConsole): Promise<number | null> {
  running.splice(running.indexOf(server), 1);
  return server.stop();
}

async function api(server: SpawnedConsole, method: string, path: string, body?: unknown, key = server.key): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Waits (bounded) until the child's stderr matches, since stderr and stdout arrive on separate pipes. */
async function stderrMatch(server: SpawnedConsole, pattern: RegExp, timeoutMs = 5000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(server.stderr());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`stderr never matched ${pattern}:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('flagops serve (child process, real HTTP)', () => {
  it('prints exactly one stdout line, with the real port', async () => {
    const server = await start({ db: newDb() });
    expect(server.stdout()).toMatch(/^flagops console listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:(\d+)$/);
    expect(Number(new URL(server.url).port)).toBeGreaterThan(0);
    await api(server, 'GET', '/console/v1/gates');
    expect(await stop(server)).toBe(0);
    expect(server.stdout().split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('creates, patches, enables, lists and reads a gate and a dynamic config', async () => {
    const server = await start({ db: newDb() });

    const gate = await api(server, 'POST', '/console/v1/gates', { name: 'new checkout', isEnabled: false, rules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] }] });
    expect(gate.status).toBe(201);
    expect(gate.body.data).toMatchObject({ id: 'new_checkout', isEnabled: false, version: 1, permalink: `${server.url}/console/v1/gates/new_checkout` });
    const patched = await api(server, 'PATCH', '/console/v1/gates/new_checkout', { description: 'The new checkout flow' });
    expect(patched).toMatchObject({ status: 200, body: { data: { description: 'The new checkout flow', version: 2, isEnabled: false } } });
    const enabled = await api(server, 'PUT', '/console/v1/gates/new_checkout/enable');
    expect(enabled).toMatchObject({ status: 200, body: { data: { isEnabled: true, version: 3 } } });
    const gates = await api(server, 'GET', '/console/v1/gates');
    expect(gates.body.data.map((g: Json) => g.id)).toEqual(['new_checkout']);
    expect(gates.body.pagination).toMatchObject({ totalItems: 1, pageNumber: 1 });
    const readGate = await api(server, 'GET', '/console/v1/gates/new_checkout');
    expect(readGate.body.data).toEqual(enabled.body.data);

    const config = await api(server, 'POST', '/console/v1/dynamic_configs', { name: 'pricing', isEnabled: false, defaultValueJson5: '{price: 10 /* EUR */}', schema: JSON.stringify({ type: 'object', required: ['price'] }) });
    expect(config.status).toBe(201);
    expect(config.body.data).toMatchObject({ id: 'pricing', defaultValue: { price: 10 } });
    const patchedConfig = await api(server, 'PATCH', '/console/v1/dynamic_configs/pricing', { defaultValue: { price: 12 } });
    expect(patchedConfig).toMatchObject({ status: 200, body: { data: { defaultValue: { price: 12 }, version: 2 } } });
    const invalid = await api(server, 'PATCH', '/console/v1/dynamic_configs/pricing', { defaultValue: { cost: 1 } });
    expect(invalid).toMatchObject({ status: 400, body: { errors: [{ property: 'defaultValue' }] } });
    expect((await api(server, 'PUT', '/console/v1/dynamic_configs/pricing/enable')).body.data).toMatchObject({ isEnabled: true, version: 3 });
    expect((await api(server, 'GET', '/console/v1/dynamic_configs')).body.data.map((d: Json) => d.id)).toEqual(['pricing']);
    expect((await api(server, 'GET', '/console/v1/dynamic_configs/pricing')).body.data).toMatchObject({ isEnabled: true, defaultValue: { price: 12 }, version: 3 });

    const openapi = await fetch(`${server.url}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as Json).servers).toEqual([{ url: server.url }]);
    expect(await stop(server)).toBe(0);
  });

  it('SIGTERM → exit 0, data persisted: a restart on the same file reads it back', async () => {
    const db = newDb();
    const first = await start({ db });
    await api(first, 'POST', '/console/v1/gates', { name: 'durable gate' });
    await api(first, 'PATCH', '/console/v1/gates/durable_gate', { description: 'survives restarts' });
    expect(await stop(first)).toBe(0);
    expect(first.stderr()).toMatch(/shutting down/);

    const second = await start({ db });
    const read = await api(second, 'GET', '/console/v1/gates/durable_gate');
    expect(read).toMatchObject({ status: 200, body: { data: { description: 'survives restarts', version: 2 } } });
    expect((await api(second, 'GET', '/console/v1/gates/durable_gate/versions')).body.pagination.totalItems).toBe(2);
    expect(await stop(second)).toBe(0);
  });

  describe('bootstrap key', () => {
    it('FLAGOPS_BOOTSTRAP_KEY creates that exact admin key; nothing is printed', async () => {
      const server = await start({ db: newDb(), key: 'console-my-chosen-bootstrap-key' });
      const keys = await api(server, 'GET', '/console/v1/keys');
      expect(keys.status).toBe(200);
      expect(keys.body.data).toEqual([expect.objectContaining({ userEmail: 'admin@localhost', role: 'admin', isActive: true })]);
      expect(server.stderr()).not.toContain('console-my-chosen-bootstrap-key');
      expect(server.stdout()).not.toContain('console-my-chosen-bootstrap-key');
      expect((await api(server, 'GET', '/console/v1/gates', undefined, 'console-other')).status).toBe(401);
    });

    it('a FLAGOPS_BOOTSTRAP_KEY shorter than 20 characters is refused, naming the variable', async () => {
      await expect(start({ db: newDb(), key: 'console-7chars' })).rejects.toThrow(/FLAGOPS_BOOTSTRAP_KEY: must be at least 20 characters long/);
    });

    it('without it, a key is generated and printed once on stderr; a restart creates no new key', async () => {
      const db = newDb();
      const first = await start({ db, withoutBootstrapKey: true });
      const [, generated] = await stderrMatch(first, /Created admin key for admin@localhost[^\n]*\n\s+(console-\S+)/);
      expect(first.stdout()).not.toContain(String(generated));
      expect((await api(first, 'GET', '/console/v1/keys', undefined, generated)).body.data).toHaveLength(1);
      expect(await stop(first)).toBe(0);

      const second = await start({ db, withoutBootstrapKey: true });
      await stderrMatch(second, /Need a key\? flagops keys create/);
      expect(second.stderr()).not.toMatch(/Created admin key/);
      expect(second.stderr()).not.toContain(String(generated));
      const keys = await api(second, 'GET', '/console/v1/keys', undefined, generated);
      expect(keys.status).toBe(200);
      expect(keys.body.data).toHaveLength(1);
    });

    it('on a database that has keys, FLAGOPS_BOOTSTRAP_KEY adds nothing', async () => {
      const db = newDb();
      await stop(await start({ db, key: 'console-first-bootstrap-key' }));
      const second = await start({ db, key: 'console-second-bootstrap-key' });
      expect((await api(second, 'GET', '/console/v1/gates', undefined, 'console-second-bootstrap-key')).status).toBe(401);
      expect((await api(second, 'GET', '/console/v1/keys', undefined, 'console-first-bootstrap-key')).body.data).toHaveLength(1);
    });
  });
});
