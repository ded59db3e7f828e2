import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, NotAllowedError } from '../errors.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

async function key(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await c.call('POST', '/console/v1/keys', { description: 'app', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('SdkKeyAuth', () => {
  it('resolves an SDK key to its type, environments and target apps, and remembers it until a key changes', async () => {
    const server = await key({ type: 'SERVER', environments: ['production'], targetAppID: 'web', secondaryTargetAppIDs: ['ios'] });
    expect(c.sdkKeys.cached(server.key, ['SERVER'])).toBeUndefined();
    const resolved = await c.sdkKeys.authenticate(server.key, ['SERVER']);
    expect(resolved).toEqual({ id: server.id, type: 'SERVER', environments: ['production'], targetApps: ['web', 'ios'], scope: JSON.stringify([['production'], ['web', 'ios']]) });
    expect(c.sdkKeys.cached(server.key, ['SERVER'])).toEqual(resolved);
    // Not for an endpoint of other key types.
    expect(c.sdkKeys.cached(server.key, ['CLIENT'])).toBeUndefined();
    await expect(c.sdkKeys.authenticate(server.key, ['CLIENT'])).rejects.toThrow(NotAllowedError);
    expect((await c.call('PATCH', `/console/v1/keys/${server.id}/deactivate`)).statusCode).toBe(200);
    expect(c.sdkKeys.cached(server.key, ['SERVER'])).toBeUndefined();
    await expect(c.sdkKeys.authenticate(server.key, ['SERVER'])).rejects.toThrow(new AuthenticationError('This SDK key is deactivated.'));
  });

  it('refuses a missing or unknown key (401) and a CONSOLE key (403), and remembers none of them', async () => {
    await expect(c.sdkKeys.authenticate(undefined, ['SERVER'])).rejects.toThrow(AuthenticationError);
    await expect(c.sdkKeys.authenticate('secret-unknown', ['SERVER'])).rejects.toThrow(new AuthenticationError('Invalid SDK key.'));
    const consoleKey = await c.keyFor('dev@acme.example', 'admin');
    await expect(c.sdkKeys.authenticate(consoleKey, ['SERVER', 'CLIENT'])).rejects.toThrow(NotAllowedError);
    expect(c.sdkKeys.cached(consoleKey, ['SERVER', 'CLIENT'])).toBeUndefined();
  });
});
