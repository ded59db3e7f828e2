import { afterEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

const HOLDER_A = 'holder-aaaaaaaaaaaaaaaa';
const HOLDER_B = 'holder-bbbbbbbbbbbbbbbb';
const NAME = encodeURIComponent('git@example.com:acme/flags.git@main');

let consoles: TestConsole[] = [];
afterEach(async () => {
  for (const c of consoles) await c.close();
  consoles = [];
});

function start(): { console: TestConsole; advance: (ms: number) => void } {
  let now = 1_800_000_000_000;
  const c = createTestConsole({ clock: () => now });
  consoles.push(c);
  return { console: c, advance: (ms) => (now += ms) };
}

describe('apply locks', () => {
  it('one holder at a time: a second gets 409 naming who holds it, the holder renews, and after release the other takes it', async () => {
    const { console: c } = start();
    const other = await c.keyFor('ci@example.com', 'member');
    const taken = await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_A, description: 'runner-1 pid 42', ttlSeconds: 30 });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json().data).toEqual({ name: 'git@example.com:acme/flags.git@main', heldBy: expect.any(String), description: 'runner-1 pid 42', expiresTime: 1_800_000_030_000 });
    const refused = await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B, description: 'runner-2' }, other);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/^locked by .+ \(runner-1 pid 42\), until 2027-01-15T08:00:30\.000Z unless renewed$/);
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_A, description: 'runner-1 pid 42', ttlSeconds: 30 })).statusCode).toBe(200);
    // Listed for status and the web console; the holder's token is not shown.
    const listed = await c.call('GET', '/console/v1/apply_locks', undefined, other);
    expect(listed.json().data).toHaveLength(1);
    expect(listed.body).not.toContain(HOLDER_A);
    // Another's release changes nothing; the holder's frees it.
    expect((await c.call('DELETE', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B }, other)).statusCode).toBe(200);
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B }, other)).statusCode).toBe(409);
    expect((await c.call('DELETE', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_A })).statusCode).toBe(200);
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B }, other)).statusCode).toBe(200);
  });

  it('expires when its holder stops renewing (a killed apply)', async () => {
    const { console: c, advance } = start();
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_A, ttlSeconds: 10 })).statusCode).toBe(200);
    advance(9_000);
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B })).statusCode).toBe(409);
    advance(2_000);
    expect((await c.call('GET', '/console/v1/apply_locks')).json().data).toEqual([]);
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_B })).statusCode).toBe(200);
  });

  it('refuses a bad holder, lease or name, naming the field, and needs submit_reviews to lock', async () => {
    const { console: c } = start();
    const bad = await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: 'short', ttlSeconds: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { property: string }) => e.property).sort()).toEqual(['holder', 'ttlSeconds']);
    const badName = await c.call('PUT', `/console/v1/apply_locks/${encodeURIComponent('a\u0001b')}`, { holder: HOLDER_A });
    expect(badName.statusCode).toBe(400);
    expect(badName.json().errors[0].property).toBe('name');
    const reader = await c.keyFor('viewer@example.com', 'read_only');
    expect((await c.call('PUT', `/console/v1/apply_locks/${NAME}`, { holder: HOLDER_A }, reader)).statusCode).toBe(403);
    expect((await c.call('GET', '/console/v1/apply_locks', undefined, reader)).statusCode).toBe(200);
  });
});
