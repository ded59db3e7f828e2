import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, ConflictError, InputError, NotFoundError } from '../errors.js';
import { createMemoryStore } from '../store/memory/memory-store.js';
import type { Store } from '../store/ports.js';
import { AuthService, hashKey } from './auth-service.js';
import { BUILTIN_ROLES, PERMISSIONS } from './permissions.js';

let store: Store;
let now: number;
let auth: AuthService;
beforeEach(() => {
  store = createMemoryStore();
  now = 1000;
  auth = new AuthService({ store, clock: () => now });
  auth.ensureBuiltinRoles();
});

describe('hashKey', () => {
  it('is the sha256 of the secret, hex', () => {
    expect(hashKey('console-abc')).toBe(createHash('sha256').update('console-abc').digest('hex'));
    expect(hashKey('console-abc')).not.toBe(hashKey('console-abd'));
  });
});

describe('built-in roles', () => {
  it('creates admin (every permission), member and read_only', () => {
    expect(store.roles.get('admin')).toEqual({ name: 'admin', permissions: [...PERMISSIONS], builtin: true });
    expect(store.roles.get('member')?.permissions).toEqual([...(BUILTIN_ROLES['member'] ?? [])]);
    expect(store.roles.get('read_only')?.permissions).toEqual(['read']);
    expect(store.roles.get('member')?.permissions).toEqual(expect.arrayContaining(['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews']));
    expect(store.roles.get('member')?.permissions).not.toContain('manage_keys');
  });

  it('never overwrites an edited built-in role', () => {
    store.roles.upsert({ name: 'member', permissions: ['read'], builtin: true });
    auth.ensureBuiltinRoles();
    expect(store.roles.get('member')?.permissions).toEqual(['read']);
  });
});

describe('bootstrap', () => {
  it('with a secret: creates exactly that admin key for admin@localhost', () => {
    const result = auth.bootstrap('console-chosen');
    expect(result).toEqual({ created: true, secret: 'console-chosen', generated: false });
    const actor = auth.authenticate('console-chosen');
    expect(actor).toMatchObject({ userEmail: 'admin@localhost', role: 'admin' });
    expect([...actor.permissions].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('without a secret: generates a console- key and says so', () => {
    const result = auth.bootstrap(undefined);
    expect(result).toMatchObject({ created: true, generated: true, secret: expect.stringMatching(/^console-[A-Za-z0-9_-]{20,}$/) });
    expect(auth.authenticate(result.secret).role).toBe('admin');
  });

  it('on a store that has keys: creates nothing, whatever the secret', () => {
    auth.bootstrap('console-first');
    expect(auth.bootstrap('console-second')).toEqual({ created: false, generated: false });
    expect(auth.bootstrap(undefined)).toEqual({ created: false, generated: false });
    expect(store.auth.countKeys()).toBe(1);
    expect(() => auth.authenticate('console-second')).toThrow(AuthenticationError);
  });
});

describe('authenticate', () => {
  it.each([
    ['missing', undefined, /Missing/],
    ['empty', '', /Missing/],
    ['unknown', 'console-nope', /Invalid/],
  ])('a %s key → AuthenticationError', (_what, secret, message) => {
    expect(() => auth.authenticate(secret)).toThrow(AuthenticationError);
    expect(() => auth.authenticate(secret)).toThrow(message);
  });

  it('resolves the user, role and its permissions', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    expect(auth.authenticate(secret)).toEqual({ userEmail: 'dev@example.com', keyId: key.id, role: 'member', permissions: new Set(BUILTIN_ROLES['member']) });
  });

  it('follows role changes made through the service at once (no stale cached permissions)', () => {
    const { secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    expect(auth.authenticate(secret).permissions.has('write')).toBe(true);
    expect(auth.updateRole('member', ['read', 'read'])).toEqual({ name: 'member', permissions: ['read'], builtin: true });
    expect([...auth.authenticate(secret).permissions]).toEqual(['read']);
  });

  it('caches resolved keys; a change made behind its back (another process) is seen once the entry expires', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    const first = auth.authenticate(secret);
    store.auth.updateKey({ ...(store.auth.getKey(key.id) ?? (undefined as never)), active: false });
    expect(auth.authenticate(secret)).toBe(first);
    now += 5001;
    expect(() => auth.authenticate(secret)).toThrow(/deactivated/);
  });

  it('creates custom roles; refuses duplicates, unknown roles and narrowing admin', () => {
    expect(auth.createRole('release', ['read', 'write'])).toEqual({ name: 'release', permissions: ['read', 'write'], builtin: false });
    expect(() => auth.createRole('release', [])).toThrow(ConflictError);
    expect(() => auth.updateRole('nobody', [])).toThrow(NotFoundError);
    expect(() => auth.updateRole('admin', ['read'])).toThrow(ConflictError);
    expect(store.roles.get('admin')?.permissions).toEqual([...PERMISSIONS]);
  });

  it.each([
    ['deactivated', (id: string) => auth.deactivateKey(id)],
    ['rotated', (id: string) => auth.rotateKey(id)],
    ['deleted', (id: string) => auth.deleteKey(id)],
  ])('a cached key that is then %s through the service fails at once', (_what, change) => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    auth.authenticate(secret);
    change(key.id);
    expect(() => auth.authenticate(secret)).toThrow(AuthenticationError);
  });

  it('the omni_read_only scope leaves only read, even for an admin', () => {
    const { secret } = auth.createKey({ description: 'ro', userEmail: 'boss@example.com', role: 'admin', scopes: ['omni_read_only'] });
    expect([...auth.authenticate(secret).permissions]).toEqual(['read']);
  });

  it('a deactivated key → AuthenticationError', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    auth.deactivateKey(key.id);
    expect(() => auth.authenticate(secret)).toThrow(/deactivated/);
  });

  it('a rotated-away secret → AuthenticationError; the new one works', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    now = 5000;
    const rotated = auth.rotateKey(key.id);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.key.lastRotatedTime).toBe(5000);
    expect(() => auth.authenticate(secret)).toThrow(AuthenticationError);
    expect(auth.authenticate(rotated.secret).keyId).toBe(key.id);
  });

  it('a deleted key → AuthenticationError', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    auth.deleteKey(key.id);
    expect(() => auth.authenticate(secret)).toThrow(AuthenticationError);
  });
});

describe('keys', () => {
  it('stores only the hash of the secret', () => {
    const { key, secret } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member' });
    const stored = store.auth.getKey(key.id);
    expect(stored?.hash).toBe(hashKey(secret));
    expect(JSON.stringify(store.auth.listKeys())).not.toContain(secret);
    expect(JSON.stringify(auth.listKeys())).not.toContain(stored?.hash);
  });

  it('shows keys without hash or secret', () => {
    const { key } = auth.createKey({ description: 'ci', userEmail: 'dev@example.com', role: 'member', scopes: ['omni_read_only'] });
    expect(auth.getKey(key.id)).toEqual({ id: key.id, description: 'ci', userEmail: 'dev@example.com', role: 'member', scopes: ['omni_read_only'], isActive: true, createdTime: 1000, lastRotatedTime: null });
  });

  it('gives every key a distinct id and secret', () => {
    const a = auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' });
    const b = auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'member' });
    expect(a.key.id).not.toBe(b.key.id);
    expect(a.secret).not.toBe(b.secret);
  });

  it('refuses an unknown role (InputError naming role), creating no user', () => {
    expect(() => auth.createKey({ description: 'x', userEmail: 'dev@example.com', role: 'wizard' })).toThrow(InputError);
    try {
      auth.createKey({ description: 'x', userEmail: 'dev@example.com', role: 'wizard' });
    } catch (error) {
      expect((error as InputError).errors).toEqual([{ property: 'role', errorMessage: expect.stringContaining('wizard') }]);
    }
    expect(store.auth.getUser('dev@example.com')).toBeUndefined();
  });

  it('a user has one role: a key with another role for the same user is a conflict', () => {
    auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' });
    expect(() => auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'admin' })).toThrow(ConflictError);
    expect(store.auth.countKeys()).toBe(1);
  });

  it("updating a key's role changes its user's role for every key of the user", () => {
    const a = auth.createKey({ description: 'a', userEmail: 'dev@example.com', role: 'member' });
    const b = auth.createKey({ description: 'b', userEmail: 'dev@example.com', role: 'member' });
    expect(auth.updateKey(a.key.id, { role: 'read_only', description: 'demoted' })).toMatchObject({ role: 'read_only', description: 'demoted' });
    expect(auth.authenticate(b.secret).role).toBe('read_only');
    expect(() => auth.updateKey(a.key.id, { role: 'wizard' })).toThrow(InputError);
  });

  it('NotFoundError for a missing key on every operation', () => {
    for (const op of [() => auth.getKey('nope'), () => auth.updateKey('nope', {}), () => auth.rotateKey('nope'), () => auth.deactivateKey('nope'), () => auth.deleteKey('nope')]) {
      expect(op).toThrow(NotFoundError);
    }
  });
});
