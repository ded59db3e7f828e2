/**
 * Authentication and authorization over HTTP (docs/design.md, "HTTP conventions"; docs/keys-and-roles.md): SERVICE-API-KEY on every endpoint,
 * 401 for missing/unknown/deactivated/rotated-away keys, 403 for roles and scopes that lack the
 * permission, and the admin-only /keys and /roles endpoints.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../auth-service.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/gates', { name: 'checkout' })).statusCode).toBe(201);
});
afterEach(() => c.close());

interface Call {
  method: string;
  url: string;
  body?: unknown;
}

const call = (method: string, url: string, body?: unknown): Call => ({ method, url, body });

const READS: Call[] = [
  call('GET', '/console/v1/gates'),
  call('GET', '/console/v1/gates/checkout'),
  call('GET', '/console/v1/gates/checkout/versions'),
  call('GET', '/console/v1/dynamic_configs'),
  call('GET', '/console/v1/segments'),
  call('GET', '/console/v1/audit_logs'),
];

const WRITES: Call[] = [
  call('POST', '/console/v1/gates', { name: 'another gate' }),
  call('POST', '/console/v1/gates/checkout', { isEnabled: true, description: 'x', rules: [] }),
  call('PATCH', '/console/v1/gates/checkout', { description: 'x' }),
  call('PUT', '/console/v1/gates/checkout/disable'),
  call('DELETE', '/console/v1/gates/checkout'),
  call('POST', '/console/v1/dynamic_configs', { name: 'config' }),
  call('POST', '/console/v1/segments', { name: 'segment', type: 'id_list', ids: ['a'] }),
];

const ADMIN_ONLY: Call[] = [
  call('GET', '/console/v1/keys'),
  call('POST', '/console/v1/keys', { description: 'x', userEmail: 'new@example.com', role: 'member' }),
  call('GET', '/console/v1/roles'),
  call('POST', '/console/v1/roles', { name: 'custom', permissions: ['read'] }),
  call('PATCH', '/console/v1/roles/member', { permissions: ['read'] }),
  call('GET', '/console/v1/roles/member'),
  call('DELETE', '/console/v1/roles/member'),
];

/** Sends a call with the key, or with no SERVICE-API-KEY header at all when key is undefined. */
const send = (method: string, url: string, body: unknown, key?: string) =>
  key === undefined
    ? c.app.inject({ method: method as 'GET', url, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) })
    : c.call(method, url, body, key);

describe('authentication (401)', () => {
  it.each([...READS, ...WRITES, ...ADMIN_ONLY])('$method $url without SERVICE-API-KEY → 401, nothing changed', async ({ method, url, body }) => {
    const before = await storeSnapshot(c);
    const res = await send(method, url, body);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 401, message: expect.stringMatching(/SERVICE-API-KEY/) });
    expect(await storeSnapshot(c)).toBe(before);
  });

  it.each([
    ['an unknown key', 'console-not-a-key'],
    ['an empty key', ''],
    ['the hash of a real key', hashKey(ADMIN_KEY)],
  ])('%s → 401', async (_what, key) => {
    const res = await c.call('GET', '/console/v1/gates', undefined, key);
    expect(res.statusCode).toBe(401);
  });

  it('the key in another header or the query string does not count', async () => {
    expect((await c.app.inject({ method: 'GET', url: '/console/v1/gates', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).statusCode).toBe(401);
    expect((await c.app.inject({ method: 'GET', url: `/console/v1/gates?SERVICE-API-KEY=${ADMIN_KEY}` })).statusCode).toBe(401);
  });

  it('accepts the header name in any case', async () => {
    const res = await c.app.inject({ method: 'GET', url: '/console/v1/gates', headers: { 'Service-Api-Key': ADMIN_KEY } });
    expect(res.statusCode).toBe(200);
  });

  it('a percent-encoded path to a console route still needs the key (401, not 403 or 200)', async () => {
    const res = await c.app.inject({ method: 'GET', url: '/%63onsole/v1/gates' });
    expect(res.statusCode).toBe(401);
  });

  it('a deactivated key → 401', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'ci', userEmail: 'ci@example.com', role: 'member' })).json().data;
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(200);
    const deactivated = await c.call('PATCH', `/console/v1/keys/${created.id}/deactivate`);
    expect(deactivated.json().data).toMatchObject({ id: created.id, isActive: false });
    const res = await c.call('GET', '/console/v1/gates', undefined, created.key);
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/deactivated/);
  });

  it('a rotated-away key → 401; the new secret works', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'ci', userEmail: 'ci@example.com', role: 'member' })).json().data;
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(200);
    const rotated = await c.call('PATCH', `/console/v1/keys/${created.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json().data.key as string;
    expect(secret).toMatch(/^console-/);
    expect(secret).not.toBe(created.key);
    expect(rotated.json().data.lastRotatedTime).toEqual(expect.any(Number));
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(401);
    expect((await c.call('GET', '/console/v1/gates', undefined, secret)).statusCode).toBe(200);
  });

  it('a deleted key → 401', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'ci', userEmail: 'ci@example.com', role: 'member' })).json().data;
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(200);
    expect((await c.call('DELETE', `/console/v1/keys/${created.id}`)).json()).toEqual({ message: expect.any(String) });
    expect((await c.call('GET', '/console/v1/gates', undefined, created.key)).statusCode).toBe(401);
    expect((await c.call('GET', `/console/v1/keys/${created.id}`)).statusCode).toBe(404);
  });
});

describe('authorization (403)', () => {
  describe.each([
    ['role read_only', async () => await c.keyFor('viewer@example.com', 'read_only')],
    ['scope omni_read_only on an admin', async () => await c.keyFor('boss@example.com', 'admin', ['omni_read_only'])],
    ['scope omni_read_only on a member', async () => await c.keyFor('dev@example.com', 'member', ['omni_read_only'])],
  ])('a read-only key (%s)', (_what, makeKey) => {
    let key: string;
    beforeEach(async () => {
      key = await makeKey();
    });

    it.each(READS)('may read: $method $url → 200', async ({ method, url, body }) => {
      expect((await send(method, url, body, key)).statusCode).toBe(200);
    });

    it.each([...WRITES, ...ADMIN_ONLY])('may not write: $method $url → 403, nothing changed', async ({ method, url, body }) => {
      const before = await storeSnapshot(c);
      const res = await send(method, url, body, key);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 403, message: expect.stringMatching(/lacks the '\w+' permission/) });
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('a member', () => {
    let key: string;
    beforeEach(async () => {
      key = await c.keyFor('dev@example.com', 'member');
    });

    it.each(WRITES)('may write entities: $method $url', async ({ method, url, body }) => {
      expect((await send(method, url, body, key)).statusCode).toBeLessThan(300);
    });

    it.each(ADMIN_ONLY)('may not manage keys or roles: $method $url → 403', async ({ method, url, body }) => {
      const res = await send(method, url, body, key);
      expect(res.statusCode).toBe(403);
    });

    it('may not rotate, deactivate or delete even its own key', async () => {
      const [own] = (await c.auth.listKeys()).filter((k) => k.userEmail === 'dev@example.com');
      for (const [method, suffix] of [['PATCH', '/rotate'], ['PATCH', '/deactivate'], ['DELETE', ''], ['GET', '']] as const) {
        expect((await c.call(method, `/console/v1/keys/${own?.id}${suffix}`, undefined, key)).statusCode).toBe(403);
      }
    });
  });
});

describe('/keys (admin)', () => {
  it('creates a key: 201 with the secret once; lists and reads it without the secret or hash', async () => {
    const res = await c.call('POST', '/console/v1/keys', { description: 'deploy bot', userEmail: 'bot@example.com', role: 'member' });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^console-/),
      type: 'CONSOLE',
      description: 'deploy bot',
      userEmail: 'bot@example.com',
      role: 'member',
      scopes: [],
      environments: [],
      primaryTargetApp: null,
      secondaryTargetApps: [],
      isActive: true,
      status: 'active',
      createdTime: expect.any(Number),
      lastRotatedTime: null,
    });
    const listed = await c.call('GET', '/console/v1/keys');
    expect(listed.json().data.map((k: { id: string }) => k.id)).toContain(created.id);
    for (const body of [listed.body, (await c.call('GET', `/console/v1/keys/${created.id}`)).body]) {
      expect(body).not.toContain(created.key);
      expect(body).not.toContain(hashKey(created.key));
      expect(body).not.toContain('"key"');
    }
    expect((await c.call('POST', '/console/v1/gates', { name: 'bot gate' }, created.key)).json().data.creatorName).toBe('bot@example.com');
  });

  it('stores the key hashed', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'bot@example.com', role: 'member' })).json().data;
    expect((await c.store.auth.getKey(created.id))?.hash).toBe(hashKey(created.key));
    expect(JSON.stringify((await c.store.auth.listKeys()))).not.toContain(created.key);
  });

  it.each([
    ['a bad e-mail', { description: 'x', userEmail: 'not-an-email', role: 'member' }, 'userEmail'],
    ['an unknown role', { description: 'x', userEmail: 'a@example.com', role: 'wizard' }, 'role'],
    ['a role with capitals', { description: 'x', userEmail: 'a@example.com', role: 'Admin' }, 'role'],
    ['an unknown scope', { description: 'x', userEmail: 'a@example.com', role: 'member', scopes: ['omni_write'] }, 'scopes[0]'],
    ['no description', { userEmail: 'a@example.com', role: 'member' }, 'description'],
    ['an unknown field', { description: 'x', userEmail: 'a@example.com', role: 'member', secret: 'mine' }, 'secret'],
  ])('POST /keys with %s → 400 naming %s, nothing stored', async (_what, body, property) => {
    const keys = (await c.store.auth.countKeys());
    const res = await c.call('POST', '/console/v1/keys', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual([property]);
    expect((await c.store.auth.countKeys())).toBe(keys);
  });

  it('a second key for a user with another role → 409', async () => {
    await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'a@example.com', role: 'member' });
    const res = await c.call('POST', '/console/v1/keys', { description: 'y', userEmail: 'a@example.com', role: 'admin' });
    expect(res.statusCode).toBe(409);
  });

  it("PATCH /keys/{id} changes the description, scopes and the user's role", async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'a@example.com', role: 'member' })).json().data;
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'y' }, created.key)).statusCode).toBe(200);
    const demoted = await c.call('PATCH', `/console/v1/keys/${created.id}`, { role: 'read_only', description: 'demoted' });
    expect(demoted.json().data).toMatchObject({ role: 'read_only', description: 'demoted' });
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' }, created.key)).statusCode).toBe(403);
    await c.call('PATCH', `/console/v1/keys/${created.id}`, { role: 'member', scopes: ['omni_read_only'] });
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' }, created.key)).statusCode).toBe(403);
    await c.call('PATCH', `/console/v1/keys/${created.id}`, { scopes: [] });
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' }, created.key)).statusCode).toBe(200);
    expect((await c.call('PATCH', `/console/v1/keys/${created.id}`, { role: 'wizard' })).statusCode).toBe(400);
  });

  it('a scope listed twice is kept once, as a role keeps a permission listed twice', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'a@example.com', role: 'member', scopes: ['omni_read_only', 'omni_read_only'] })).json().data;
    expect(created.scopes).toEqual(['omni_read_only']);
    const patched = await c.call('PATCH', `/console/v1/keys/${created.id}`, { scopes: ['omni_read_only', 'omni_read_only'] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.scopes).toEqual(['omni_read_only']);
    expect((await c.call('GET', `/console/v1/keys/${created.id}`)).json().data.scopes).toEqual(['omni_read_only']);
    const role = await c.call('POST', '/console/v1/roles', { name: 'twice', permissions: ['read', 'read'] });
    expect(role.json().data.permissions).toEqual(['read']);
  });

  it('404 for an unknown key id', async () => {
    for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['PATCH', '/rotate'], ['PATCH', '/deactivate'], ['DELETE', '']] as const) {
      const res = await c.call(method, `/console/v1/keys/key_nope${suffix}`, method === 'PATCH' && suffix === '' ? {} : undefined);
      expect(res.statusCode, `${method} ${suffix}`).toBe(404);
      expect(res.json()).toEqual({ status: 404, message: 'Key not found.' });
    }
  });
});

describe('/roles (admin)', () => {
  it('lists the built-in roles with their permissions', async () => {
    const res = await c.call('GET', '/console/v1/roles');
    expect(res.statusCode).toBe(200);
    const roles = res.json().data as { name: string; permissions: string[]; builtin: boolean }[];
    expect(roles.map((r) => r.name)).toEqual(['admin', 'member', 'read_only', 'webhook_receiver']);
    expect(roles.every((r) => r.builtin)).toBe(true);
    expect(roles[0]?.permissions).toEqual(expect.arrayContaining(['manage_keys', 'manage_roles', 'bypass_precommit_webhook', 'bypass_reviews', 'validate_changes']));
    expect(roles[1]?.permissions).not.toContain('validate_changes');
    expect(roles[2]?.permissions).toEqual(['read']);
    expect(roles[3]?.permissions).toEqual(['read', 'validate_changes']);
  });

  it('creates a custom role whose keys get exactly its permissions', async () => {
    const res = await c.call('POST', '/console/v1/roles', { name: 'release_manager', permissions: ['read', 'write', 'write'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ name: 'release_manager', permissions: ['read', 'write'], builtin: false });
    const key = await c.keyFor('rm@example.com', 'release_manager');
    expect((await c.call('PUT', '/console/v1/gates/checkout/launch', undefined, key)).statusCode).toBe(200);
    expect((await c.call('GET', '/console/v1/keys', undefined, key)).statusCode).toBe(403);
  });

  it.each([
    ['an unknown permission', { name: 'custom', permissions: ['fly'] }, 'permissions[0]'],
    ['a bad name', { name: 'Custom Role', permissions: [] }, 'name'],
    ['no permissions', { name: 'custom' }, 'permissions'],
  ])('POST /roles with %s → 400 naming %s', async (_what, body, property) => {
    const res = await c.call('POST', '/console/v1/roles', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual([property]);
    expect((await c.store.roles.get('custom'))).toBeUndefined();
  });

  it('POST /roles for an existing name → 409', async () => {
    expect((await c.call('POST', '/console/v1/roles', { name: 'member', permissions: [] })).statusCode).toBe(409);
  });

  it("PATCH /roles/{name} replaces the permissions and takes effect on the next request", async () => {
    expect((await c.call('POST', '/console/v1/roles', { name: 'writer', permissions: ['read', 'write'] })).statusCode).toBe(201);
    const member = await c.keyFor('dev@example.com', 'writer');
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'a' }, member)).statusCode).toBe(200);
    const res = await c.call('PATCH', '/console/v1/roles/writer', { permissions: ['read'] });
    expect(res.json().data).toEqual({ name: 'writer', permissions: ['read'], builtin: false });
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'b' }, member)).statusCode).toBe(403);
  });

  it('built-in roles cannot be changed (409); an unknown role is a 404', async () => {
    for (const role of ['admin', 'member', 'read_only', 'webhook_receiver']) {
      const res = await c.call('PATCH', `/console/v1/roles/${role}`, { permissions: ['read'] });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe(`Role ${role} is built in and cannot be changed; create a custom role with the permissions you need.`);
    }
    expect((await c.call('GET', '/console/v1/roles/member')).json().data.permissions).toContain('write');
    expect((await c.call('GET', '/console/v1/gates', undefined, ADMIN_KEY)).statusCode).toBe(200);
    expect((await c.call('PATCH', '/console/v1/roles/nobody', { permissions: ['read'] })).statusCode).toBe(404);
  });

  it('GET /roles/{name} reads one role; an unknown name is a 404', async () => {
    const res = await c.call('GET', '/console/v1/roles/read_only');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Role read successfully.', data: { name: 'read_only', permissions: ['read'], builtin: true } });
    expect((await c.call('GET', '/console/v1/roles/nobody')).statusCode).toBe(404);
  });

  it('DELETE /roles/{name} removes a custom role nobody holds', async () => {
    await c.call('POST', '/console/v1/roles', { name: 'auditor', permissions: ['read'] });
    const res = await c.call('DELETE', '/console/v1/roles/auditor');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Role deleted successfully.' });
    expect(await c.store.roles.get('auditor')).toBeUndefined();
    expect((await c.call('GET', '/console/v1/roles/auditor')).statusCode).toBe(404);
    expect((await c.call('DELETE', '/console/v1/roles/auditor')).statusCode).toBe(404);
  });

  it('DELETE /roles/{name} of a built-in role → 409, the role stays', async () => {
    const res = await c.call('DELETE', '/console/v1/roles/read_only');
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/built in/);
    expect(await c.store.roles.get('read_only')).toBeDefined();
  });

  it('DELETE /roles/{name} of a role users hold → 409 naming how many; deletable once they move', async () => {
    await c.call('POST', '/console/v1/roles', { name: 'auditor', permissions: ['read'] });
    await c.keyFor('a@example.com', 'auditor');
    const second = (await c.call('POST', '/console/v1/keys', { description: 'b', userEmail: 'b@example.com', role: 'auditor' })).json().data;
    const res = await c.call('DELETE', '/console/v1/roles/auditor');
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/held by 2 users/);
    await c.call('PATCH', `/console/v1/keys/${second.id}`, { role: 'read_only' });
    expect((await c.call('DELETE', '/console/v1/roles/auditor')).json().message).toMatch(/held by 1 user;/);
    expect(await c.store.roles.get('auditor')).toBeDefined();
  });

  it('DELETE /roles/{name} with a body → 400 naming the field, the role stays', async () => {
    await c.call('POST', '/console/v1/roles', { name: 'auditor', permissions: ['read'] });
    const res = await c.call('DELETE', '/console/v1/roles/auditor', { force: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual(['force']);
    expect(await c.store.roles.get('auditor')).toBeDefined();
  });
});
