import { afterEach, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance } from '../compose.js';
import { InputError } from '../errors.js';
import { stderrLogger } from './cli-helpers.js';
import type { CliIO } from './command.js';

const BOOTSTRAP = 'console-log-test-bootstrap-key';

/** A console logging at `level` through stderrLogger into `lines`, as `flagops serve --log-level` does. */
function loggingConsole(level: string): { instance: ConsoleInstance; lines: string[] } {
  const lines: string[] = [];
  const io: CliIO = { stdout: () => undefined, stderr: (text) => lines.push(text), env: {}, cwd: '/', isTTY: false, signal: new AbortController().signal };
  const instance = createConsole({ db: ':memory:', bootstrapKey: BOOTSTRAP, publicUrl: 'http://console.test', logger: stderrLogger(io, level) });
  return { instance, lines };
}

let instance: ConsoleInstance | undefined;
afterEach(async () => {
  await instance?.close();
  instance = undefined;
});

const parsed = (lines: string[]): Record<string, unknown>[] => lines.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('stderrLogger: the console log', () => {
  it('writes one JSON line per request with reqId, keyId, method, route, status and responseTime, and never a secret', async () => {
    const logged = loggingConsole('info');
    instance = logged.instance;
    await instance.app.ready();
    const { key, secret } = await instance.auth.createKey({ description: 'ops', userEmail: 'ops@example.com', role: 'admin', scopes: [] });
    const before = logged.lines.length;

    const res = await instance.app.inject({
      method: 'POST',
      url: '/console/v1/settings/precommit_webhook',
      headers: { 'service-api-key': secret, 'content-type': 'application/json', authorization: 'Bearer bearer-must-not-show', 'x-service-webhook-key': 'hook-header-must-not-show' },
      payload: JSON.stringify({ webhookURL: 'http://hooks.example.com/x', webhookKey: 'webhook-secret-must-not-show' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);

    const lines = parsed(logged.lines.slice(before));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        reqId: requestId,
        keyId: key.id,
        method: 'POST',
        route: '/console/v1/settings/precommit_webhook',
        status: 200,
        responseTime: expect.any(Number),
        msg: 'request completed',
      }),
    ]);
    const output = logged.lines.join('');
    for (const secretText of [secret, BOOTSTRAP, 'bearer-must-not-show', 'hook-header-must-not-show', 'webhook-secret-must-not-show']) expect(output).not.toContain(secretText);
  });

  it('adopts a safe incoming x-request-id and echoes it; replaces an unsafe one', async () => {
    const logged = loggingConsole('info');
    instance = logged.instance;
    await instance.app.ready();
    const adopted = await instance.app.inject({ method: 'GET', url: '/console/v1/gates', headers: { 'service-api-key': BOOTSTRAP, 'x-request-id': 'lb-7f3a.42' } });
    expect(adopted.headers['x-request-id']).toBe('lb-7f3a.42');
    const unsafe = 'evil\u0000id {"keyId":"x"}';
    const replaced = await instance.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': unsafe } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
    const replacedTooLong = await instance.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(replacedTooLong.headers['x-request-id']).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
    expect(replacedTooLong.headers['x-request-id']).not.toBe(replaced.headers['x-request-id']);

    const lines = parsed(logged.lines);
    expect(lines).toContainEqual(expect.objectContaining({ reqId: 'lb-7f3a.42', route: '/console/v1/gates', status: 200, keyId: expect.any(String) }));
    // A request without a key (a probe) logs no keyId; one no route matched logs the route as unmatched.
    expect(lines).toContainEqual(expect.objectContaining({ reqId: replaced.headers['x-request-id'], route: '/healthz', status: 200 }));
    expect(lines.find((l) => l['route'] === '/healthz')).not.toHaveProperty('keyId');
    expect(logged.lines.join('')).not.toContain('evil');
  });

  it('logs the route of an unmatched request as "unmatched", not the raw URL', async () => {
    const logged = loggingConsole('info');
    instance = logged.instance;
    await instance.app.ready();
    expect((await instance.app.inject({ method: 'GET', url: '/wp-admin/secret-path' })).statusCode).toBe(404);
    expect(parsed(logged.lines)).toContainEqual(expect.objectContaining({ route: 'unmatched', status: 404, method: 'GET' }));
    expect(logged.lines.join('')).not.toContain('secret-path');
  });

  it('writes no request lines at warn (the default)', async () => {
    const logged = loggingConsole('warn');
    instance = logged.instance;
    await instance.app.ready();
    expect((await instance.app.inject({ method: 'GET', url: '/console/v1/gates', headers: { 'service-api-key': BOOTSTRAP } })).statusCode).toBe(200);
    expect(parsed(logged.lines).filter((l) => l['msg'] === 'request completed')).toEqual([]);
  });

  it('refuses an unknown level, naming --log-level', () => {
    const io: CliIO = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: '/', isTTY: false, signal: new AbortController().signal };
    expect(() => stderrLogger(io, 'loud')).toThrow(InputError);
    try {
      stderrLogger(io, 'loud');
    } catch (error) {
      expect((error as InputError).errors).toEqual([{ property: '--log-level', errorMessage: 'must be one of fatal, error, warn, info, debug, trace, silent' }]);
    }
  });
});
