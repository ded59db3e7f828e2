import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, ConflictError, InputError, NotAllowedError, NotFoundError } from '../errors.js';
import { createMemoryStore } from '../store/memory/memory-store.js';
import type { Store } from '../store/ports.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { AuthService, hashKey } from './auth-service.js';
import { BUILTIN_ROLES, PERMISSIONS } from './permissions.js';

let store: Store;
let now: number;
let auth: AuthService;
beforeEach(async () => {
  store = createMemoryStore();
  now = 1000;
  auth = new AuthService({ store, clock: () => now });
  await auth.ensureBuiltinRoles();
});

describe('hashKey', () => {
  it('is the sha256 of the secret, hex', () => {
    expect(hashKey('console-abc')).toBe(createHash('sha256').update('console-abc').digest('hex'));
    expect(hashKey('console-abc')).not.toBe(hashKey('console-abd'));
  });
});

describe('built-in roles', () => {
  it('creates admin (every permission), member and read_only', async () => {
    expect((await store.roles.get('admin'))).toEqual({ name: 'admin', permissions: [...PERMISSIONS], builtin: true });
    expect((await store.roles.get('member'))?.permissions).toEqual([...(BUILTIN_ROLES['member'] ?? [])]);
    expect((await store.roles.get('read_only'))?.permissions).toEqual(['read']);
    expect((await store.roles.get('member'))?.permissions).toEqual(expect.arrayContaining(['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews']));
    expect((await store.roles.get('member'))?.permissions).not.toContain('manage_keys');
  });

  it('never overwrites an edited built-in role', async () => {
    await store.roles.upsert({ name: 'member', permissions: ['read'], builtin: true });
    await auth.ensureBuiltinRoles();
    expect((await store.roles.get('member'))?.permissions).toEqual(['read']);
  });
});

describe('bootstrap', () => {
  it('with a secret: creates exactly that admin key for admin@localhost', async () => {
    const result = (await auth.bootstrap('console-chosen'));
    expect(result).toEqual({ created: true, secret: 'console-chosen', generated: false });
    const actor = (await auth.authenticate('console-chosen'));
    expect(actor).toMatchObject({ userEmail: 'admin@localhost', role: 'admin' });
    expect([...actor.permissions].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('without a secret: generates a console- key and says so', async () => {
    const result = (await auth.bootstrap(undefined));
    expect(result).toMatchObject({ created: true, generated: true, secret: expect.stringMatching(/^console-[A-Za-z0-9_-]{20,}$/) });
    expect((await auth.authenticate(result.secret)).role).toBe('admin');
  });

  it('on a store that has keys: creates nothing, whatever the secret', async () => {
    await auth.bootstrap('console-first');
    expect((await auth.bootstrap('console-second'))).toEqual({ created: false, generated: false });
    expect((await auth.bootstrap(undefined))).toEqual({ created: false, generated: false });
    expect((await store.auth.countKeys())).toBe(1);
    await expect(auth.authenticate('console-second')).rejects.toThrow(AuthenticationError);
  });
});

describe('authenticate', () => {
  it.each([
    ['missing', undefined, /Missing/],
    ['empty', '', /Missing/],
    ['unknown', 'console-nope', /Invalid/],
  ])('a %s key → AuthenticationError', async (_what, secret, message) => {
    await expect(auth.authenticate(secret)).rejects.toThrow(AuthenticationError);
    await expect(auth.authenticate(secret)).rejects.toThrow(message);
  });

  it('refuses SDK keys with NotAllowedError naming the type, and caches no actor for them', async () => {
    await auth.createKey({ description: 'owner', userEmail: 'dev@example.com', role: 'member' });
    for (const type of ['SERVER', 'CLIENT'] as const) {
      const { secret } = await auth.createKey({ description: 'sdk', type, userEmail: 'dev@example.com' });
      for (let i = 0; i < 2; i++) await expect(auth.authenticate(secret)).rejects.toThrow(new NotAllowedError(`This is a ${type} key, an SDK key: the Console API takes CONSOLE keys only.`));
    }
  });

  it("carries the key's environments and target apps (primary first) on the actor", async () => {
    const { secret } = await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member', environments: ['staging'], targetAppID: 'web', secondaryTargetAppIDs: ['ios', 'web'] });
    expect(await auth.authenticate(secret)).toMatchObject({ environments: ['staging'], targetApps: ['web', 'ios'] });
  });

  it('resolves the user, role and its permissions', async () => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    expect((await auth.authenticate(secret))).toEqual({ userEmail: 'dev@example.com', keyId: key.id, role: 'member', permissions: new Set(BUILTIN_ROLES['member']), environments: [], targetApps: [] });
  });

  it('follows role changes made through the service at once (no stale cached permissions)', async () => {
    await auth.createRole('writer', ['read', 'write']);
    const { secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'writer' }));
    expect((await auth.authenticate(secret)).permissions.has('write')).toBe(true);
    expect((await auth.updateRole('writer', ['read', 'read'])).after).toEqual({ name: 'writer', permissions: ['read'], builtin: false });
    expect([...(await auth.authenticate(secret)).permissions]).toEqual(['read']);
  });

  it('caches resolved keys while the auth mark holds; a key change moves it, an entity write does not', async () => {
    let marks = { data: 'd1', settings: 's1', auth: 'a1' };
    const marked: Store = Object.assign(Object.create(store) as Store, { marks: () => marks });
    const cached = new AuthService({ store: marked, clock: () => now });
    const { key, secret } = await cached.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    const first = await cached.authenticate(secret);
    await store.auth.updateKey({ ...((await store.auth.getKey(key.id)) ?? (undefined as never)), active: false });
    marks = { ...marks, data: 'd2' };
    expect(await cached.authenticate(secret)).toBe(first);
    marks = { ...marks, auth: 'a2' };
    await expect(cached.authenticate(secret)).rejects.toThrow(/deactivated/);
  });

  it('creates custom roles; refuses duplicates, unknown roles and narrowing admin', async () => {
    expect((await auth.createRole('release', ['read', 'write']))).toEqual({ name: 'release', permissions: ['read', 'write'], builtin: false });
    await expect(auth.createRole('release', [])).rejects.toThrow(ConflictError);
    await expect(auth.updateRole('nobody', [])).rejects.toThrow(NotFoundError);
    await expect(auth.updateRole('admin', ['read'])).rejects.toThrow(ConflictError);
    expect((await store.roles.get('admin'))?.permissions).toEqual([...PERMISSIONS]);
  });

  it.each([
    ['deactivated', async (id: string) => (await auth.deactivateKey(id))],
    ['rotated', async (id: string) => (await auth.rotateKey(id))],
    ['deleted', async (id: string) => (await auth.deleteKey(id))],
  ])('a cached key that is then %s through the service fails at once', async (_what, change) => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    await auth.authenticate(secret);
    await change(key.id);
    await expect(auth.authenticate(secret)).rejects.toThrow(AuthenticationError);
  });

  it('the omni_read_only scope leaves only read, even for an admin', async () => {
    const { secret } = (await auth.createKey({ description: 'ro', userEmail: 'boss@example.com', role: 'admin', scopes: ['omni_read_only'] }));
    expect([...(await auth.authenticate(secret)).permissions]).toEqual(['read']);
  });

  it('a deactivated key → AuthenticationError', async () => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    await auth.deactivateKey(key.id);
    await expect(auth.authenticate(secret)).rejects.toThrow(/deactivated/);
  });

  it('a rotated-away secret → AuthenticationError; the new one works', async () => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    now = 5000;
    const rotated = (await auth.rotateKey(key.id));
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.key.lastRotatedTime).toBe(5000);
    await expect(auth.authenticate(secret)).rejects.toThrow(AuthenticationError);
    expect((await auth.authenticate(rotated.secret)).keyId).toBe(key.id);
  });

  it('a deleted key → AuthenticationError', async () => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    await auth.deleteKey(key.id);
    await expect(auth.authenticate(secret)).rejects.toThrow(AuthenticationError);
  });
});

describe('cachedActor', () => {
  it('answers a key resolved since the last auth change, never one not yet looked up, and drops all on a key change', async () => {
    const sqlite = openSqliteStore(':memory:');
    try {
      const service = new AuthService({ store: sqlite, clock: () => now });
      await service.bootstrap('console-chosen');
      expect(service.cachedActor('console-chosen')).toBeUndefined();
      const actor = await service.authenticate('console-chosen');
      expect(service.cachedActor('console-chosen')).toBe(actor);
      expect(service.cachedActor('console-other')).toBeUndefined();
      expect(service.cachedActor(undefined)).toBeUndefined();
      await service.deactivateKey(actor.keyId!);
      expect(service.cachedActor('console-chosen')).toBeUndefined();
      await expect(service.authenticate('console-chosen')).rejects.toThrow(AuthenticationError);
    } finally {
      await sqlite.close();
    }
  });

  it('answers nothing on a store without change marks', async () => {
    await auth.bootstrap('console-chosen');
    await auth.authenticate('console-chosen');
    expect(auth.cachedActor('console-chosen')).toBeUndefined();
  });
});

describe('keys', () => {
  it('stores only the hash of the secret', async () => {
    const { key, secret } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' }));
    const stored = (await store.auth.getKey(key.id));
    expect(stored?.hash).toBe(hashKey(secret));
    expect(JSON.stringify((await store.auth.listKeys()))).not.toContain(secret);
    expect(JSON.stringify((await auth.listKeys()))).not.toContain(stored?.hash);
  });

  it('shows keys without hash or secret', async () => {
    const { key } = (await auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member', scopes: ['omni_read_only'] }));
    expect((await auth.getKey(key.id))).toEqual({
      id: key.id,
      type: 'CONSOLE',
      description: 'ci',
      userEmail: 'dev@example.com',
      role: 'member',
      scopes: ['omni_read_only'],
      environments: [],
      primaryTargetApp: null,
      secondaryTargetApps: [],
      isActive: true,
      status: 'active',
      createdTime: 1000,
      lastRotatedTime: null,
    });
  });

  it('gives every key a distinct id and secret', async () => {
    const a = (await auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' }));
    const b = (await auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'member' }));
    expect(a.key.id).not.toBe(b.key.id);
    expect(a.secret).not.toBe(b.secret);
  });

  it('refuses an unknown role (InputError naming role), creating no user', async () => {
    await expect(auth.createKey({ description: 'x', userEmail: 'dev@example.com', role: 'wizard' })).rejects.toThrow(InputError);
    try {
      await auth.createKey({ description: 'x', userEmail: 'dev@example.com', role: 'wizard' });
    } catch (error) {
      expect((error as InputError).errors).toEqual([{ property: 'role', errorMessage: expect.stringContaining('wizard') }]);
    }
    expect((await store.auth.getUser('dev@example.com'))).toBeUndefined();
  });

  it('a user has one role: a key with another role for the same user is a conflict', async () => {
    await auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' });
    await expect(auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'admin' })).rejects.toThrow(ConflictError);
    expect((await store.auth.countKeys())).toBe(1);
  });

  it("updating a key's role changes its user's role for every key of the user", async () => {
    const a = (await auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' }));
    const b = (await auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'member' }));
    expect((await auth.updateKey(a.key.id, { role: 'read_only', description: 'demoted' })).after).toMatchObject({ role: 'read_only', description: 'demoted' });
    expect((await auth.authenticate(b.secret)).role).toBe('read_only');
    await expect(auth.updateKey(a.key.id, { role: 'wizard' })).rejects.toThrow(InputError);
  });

  it('NotFoundError for a missing key on every operation', async () => {
    for (const op of [() => auth.getKey('nope'), () => auth.updateKey('nope', {}), () => auth.rotateKey('nope'), () => auth.deactivateKey('nope'), () => auth.deleteKey('nope')]) {
      await expect(op()).rejects.toThrow(NotFoundError);
    }
  });
});
