/**
 * Key types over HTTP: CONSOLE keys call the Console API; SERVER and CLIENT keys are SDK keys, managed
 * through /keys (created, listed, rotated, deactivated, deleted) and refused by every Console API route.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../auth-service.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { name: 'checkout' })).statusCode).toBe(201);
});
afterEach(() => c.close());

/** Keys as stored, hashes included: what "nothing changed" compares. */
const storedKeys = async (): Promise<string> => JSON.stringify(await c.store.auth.listKeys());

async function createKey(body: Record<string, unknown>, key?: string): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const res = await c.call('POST', '/console/v1/keys', { description: 'sdk', ...body }, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('SDK keys (SERVER, CLIENT)', () => {
  it.each([
    ['SERVER', /^secret-[A-Za-z0-9_-]{20,}$/],
    ['CLIENT', /^client-[A-Za-z0-9_-]{20,}$/],
  ])('a %s key: 201 with a secret of its own prefix, owned by the caller, no role, its environments and target apps', async (type, prefix) => {
    const created = await createKey({ type, environments: ['production', 'staging', 'production'], targetAppID: 'web', secondaryTargetAppIDs: ['ios', 'web', 'ios'] });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(prefix),
      type,
      description: 'sdk',
      userEmail: 'admin@localhost',
      role: null,
      scopes: [],
      environments: ['production', 'staging'],
      primaryTargetApp: 'web',
      secondaryTargetApps: ['ios'],
      isActive: true,
      status: 'active',
      createdTime: expect.any(Number),
      lastRotatedTime: null,
    });
    expect((await c.store.auth.getKey(created.id))?.hash).toBe(hashKey(created.key));
    const { key: _secret, ...shown } = created;
    expect((await c.call('GET', `/console/v1/keys/${created.id}`)).json().data).toEqual(shown);
    expect((await c.call('GET', '/console/v1/keys')).json().data).toContainEqual(shown);
  });

  it('belongs to the user given, when that user exists', async () => {
    await c.keyFor('dev@example.com', 'member');
    const created = await createKey({ type: 'SERVER', userEmail: 'dev@example.com' });
    expect(created).toMatchObject({ userEmail: 'dev@example.com', role: null });
    expect((await c.store.auth.getUser('dev@example.com'))?.role).toBe('member');
  });

  it.each([
    ['GET', '/console/v1/gates'],
    ['GET', '/console/v1/whoami'],
    ['PATCH', '/console/v1/gates/checkout'],
    ['GET', '/console/v1/keys'],
  ])('is refused by the Console API: %s %s → 403 naming the key type, never the secret', async (method, url) => {
    for (const type of ['SERVER', 'CLIENT']) {
      const { key } = await createKey({ type });
      const before = JSON.stringify((await c.call('GET', '/console/v1/gates/checkout')).json().data);
      const res = await c.call(method, url, method === 'PATCH' ? { description: 'sdk' } : undefined, key);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 403, message: `This is a ${type} key, an SDK key: the Console API takes CONSOLE keys only.` });
      expect(res.body).not.toContain(key);
      expect(JSON.stringify((await c.call('GET', '/console/v1/gates/checkout')).json().data)).toBe(before);
    }
  });

  it('a deactivated SDK key is a 401 like any deactivated key', async () => {
    const created = await createKey({ type: 'SERVER' });
    expect((await c.call('PATCH', `/console/v1/keys/${created.id}/deactivate`)).json().data).toMatchObject({ isActive: false, status: 'deactivated', type: 'SERVER' });
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(401);
  });

  it('rotates with the prefix of its type; the old secret stops matching', async () => {
    const created = await createKey({ type: 'CLIENT', environments: ['production'] });
    const rotated = (await c.call('PATCH', `/console/v1/keys/${created.id}/rotate`)).json().data;
    expect(rotated).toMatchObject({ id: created.id, type: 'CLIENT', environments: ['production'], key: expect.stringMatching(/^client-/), lastRotatedTime: expect.any(Number) });
    expect(rotated.key).not.toBe(created.key);
    expect((await c.store.auth.getKey(created.id))?.hash).toBe(hashKey(rotated.key));
  });

  it('PATCH changes description, environments and target apps; null clears them', async () => {
    const created = await createKey({ type: 'SERVER', targetAppID: 'web', secondaryTargetAppIDs: ['ios'] });
    const patched = await c.call('PATCH', `/console/v1/keys/${created.id}`, { description: 'prod sdk', environments: ['production'], targetAppID: 'android' });
    expect(patched.json().data).toMatchObject({ description: 'prod sdk', environments: ['production'], primaryTargetApp: 'android', secondaryTargetApps: ['ios'] });
    const cleared = await c.call('PATCH', `/console/v1/keys/${created.id}`, { environments: [], targetAppID: null, secondaryTargetAppIDs: null });
    expect(cleared.json().data).toMatchObject({ environments: [], primaryTargetApp: null, secondaryTargetApps: [], type: 'SERVER' });
  });

  it('deletes an SDK key', async () => {
    const created = await createKey({ type: 'SERVER' });
    expect((await c.call('DELETE', `/console/v1/keys/${created.id}`)).statusCode).toBe(200);
    expect((await c.call('GET', `/console/v1/keys/${created.id}`)).statusCode).toBe(404);
  });

  it('only a role with manage_keys creates them (403, nothing stored)', async () => {
    const member = await c.keyFor('dev@example.com', 'member');
    const before = await storedKeys();
    const res = await c.call('POST', '/console/v1/keys', { description: 'sdk', type: 'SERVER' }, member);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/manage_keys/);
    expect(await storedKeys()).toBe(before);
  });
});

describe('console keys', () => {
  it('type defaults to CONSOLE; an explicit CONSOLE key is the same', async () => {
    const implicit = await createKey({ userEmail: 'a@example.com', role: 'member' });
    const explicit = await createKey({ type: 'CONSOLE', userEmail: 'a@example.com', role: 'member' });
    for (const key of [implicit, explicit]) {
      expect(key).toMatchObject({ type: 'CONSOLE', role: 'member', key: expect.stringMatching(/^console-/) });
      expect((await c.call('GET', '/console/v1/gates', undefined, key.key)).statusCode).toBe(200);
    }
  });

  it('whoami shows the environments and target apps of the calling key', async () => {
    const { key } = await createKey({ userEmail: 'a@example.com', role: 'member', environments: ['staging'], targetAppID: 'web', secondaryTargetAppIDs: ['ios'] });
    expect((await c.call('GET', '/console/v1/whoami', undefined, key)).json().data).toMatchObject({ environments: ['staging'], targetApps: ['web', 'ios'] });
    expect((await c.call('GET', '/console/v1/whoami')).json().data).toMatchObject({ environments: [], targetApps: [] });
  });
});

describe('bad input → 400 naming the field, nothing stored', () => {
  it.each([
    ['an unknown type', { type: 'SCIM' }, ['type']],
    ['a lower-case type', { type: 'server' }, ['type']],
    ['a role on an SDK key', { type: 'SERVER', role: 'member' }, ['role']],
    ['scopes on an SDK key', { type: 'CLIENT', scopes: ['omni_read_only'] }, ['scopes']],
    ['an SDK key for an unknown user', { type: 'SERVER', userEmail: 'nobody@example.com' }, ['userEmail']],
    ['a console key without role', { userEmail: 'a@example.com' }, ['role']],
    ['a console key without user', { role: 'member' }, ['userEmail']],
    ['an empty environment', { type: 'SERVER', environments: ['production', ''] }, ['environments[1]']],
    ['environments not a list', { type: 'SERVER', environments: 'production' }, ['environments']],
    ['an empty target app', { type: 'SERVER', targetAppID: '' }, ['targetAppID']],
    ['secondary apps without a primary one', { type: 'SERVER', secondaryTargetAppIDs: ['ios'] }, ['targetAppID']],
    ['a secondary app that is not a string', { type: 'SERVER', targetAppID: 'web', secondaryTargetAppIDs: [3] }, ['secondaryTargetAppIDs[0]']],
  ])('POST /keys with %s', async (_what, body, properties) => {
    const before = await storedKeys();
    const users = await c.store.auth.getUser('a@example.com');
    const res = await c.call('POST', '/console/v1/keys', { description: 'x', ...body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual(properties);
    expect(await storedKeys()).toBe(before);
    expect(await c.store.auth.getUser('a@example.com')).toEqual(users);
  });

  it.each([
    ['a role on an SDK key', { role: 'admin' }, ['role']],
    ['scopes on an SDK key', { scopes: ['omni_read_only'] }, ['scopes']],
    ['the type (fixed at creation)', { type: 'CONSOLE' }, ['type']],
    ['clearing the primary app while secondary ones stay', { targetAppID: null }, ['targetAppID']],
    ['an empty environment', { environments: [''] }, ['environments[0]']],
  ])('PATCH /keys/{id} of an SDK key with %s', async (_what, body, properties) => {
    const created = await createKey({ type: 'SERVER', targetAppID: 'web', secondaryTargetAppIDs: ['ios'] });
    const before = await storedKeys();
    const res = await c.call('PATCH', `/console/v1/keys/${created.id}`, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual(properties);
    expect(await storedKeys()).toBe(before);
  });

  it('404 for PATCH of an unknown key, whatever the body', async () => {
    const res = await c.call('PATCH', '/console/v1/keys/key_nope', { environments: ['staging'], targetAppID: 'web' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, message: 'Key not found.' });
  });
});
