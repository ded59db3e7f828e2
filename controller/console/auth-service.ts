import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthenticationError, ConflictError, InputError, NotFoundError } from '../errors.js';
import type { KeyRecord, RoleRecord, Store } from '../store/ports.js';
import { BUILTIN_ROLES, READ_ONLY_SCOPE, type Actor } from './permissions.js';

const KEY_PREFIX = 'console-';

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function newSecret(): string {
  return `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
}

/** A key as the API shows it: never the hash, never the secret. */
export interface KeyView {
  id: string;
  description: string;
  userEmail: string;
  role: string;
  scopes: string[];
  isActive: boolean;
  createdTime: number;
  lastRotatedTime: number | null;
}

export interface NewKey {
  description: string;
  userEmail: string;
  role: string;
  scopes?: string[];
}

/**
 * How long a resolved key stays cached. Changes made through this service clear the cache at once;
 * the expiry only bounds how long a change made by another process on the same database file goes
 * unseen (today that process, `flagops keys create`, only adds keys, which are never cached misses).
 */
const ACTOR_CACHE_TTL_MS = 5000;
const ACTOR_CACHE_MAX = 1000;

/** Users, keys and roles. Keys are stored as sha256 hashes and compared in constant time. */
export class AuthService {
  /**
   * Actors by the key as presented. Authentication runs on every request and costs a sha256 and
   * three store reads; the cache makes it one map lookup (bench:api). Only keys that resolved are
   * cached, so bad keys can't fill it; it lives in memory only, like the request that carried the key.
   */
  private readonly actors = new Map<string, { actor: Actor; expires: number }>();

  constructor(private readonly deps: { store: Store; clock: () => number }) {}

  /** Forgets every resolved key: called after any change to keys, users or roles. */
  private invalidate(): void {
    this.actors.clear();
  }

  /** Creates the built-in roles on an empty database; never overwrites edited ones. */
  ensureBuiltinRoles(): void {
    const { store } = this.deps;
    store.transaction(() => {
      for (const [name, permissions] of Object.entries(BUILTIN_ROLES)) {
        if (!store.roles.get(name)) store.roles.upsert({ name, permissions: [...permissions], builtin: true });
      }
    });
    this.invalidate();
  }

  /**
   * On a database without keys, creates the admin key: with the given secret (FLAGOPS_BOOTSTRAP_KEY),
   * or a generated one, returned so the caller can print it once.
   */
  bootstrap(secret: string | undefined): { created: boolean; secret?: string; generated: boolean } {
    this.ensureBuiltinRoles();
    if (this.deps.store.auth.countKeys() > 0) return { created: false, generated: false };
    const value = secret ?? newSecret();
    this.insertKey({ description: 'bootstrap admin key', userEmail: 'admin@localhost', role: 'admin' }, value);
    return { created: true, secret: value, generated: secret === undefined };
  }

  authenticate(secret: string | undefined): Actor {
    if (secret === undefined || secret === '') throw new AuthenticationError('Missing SERVICE-API-KEY header.');
    const now = this.deps.clock();
    const cached = this.actors.get(secret);
    if (cached && cached.expires > now) return cached.actor;
    const hash = hashKey(secret);
    const computed = Buffer.from(hash, 'hex');
    const key = this.deps.store.auth.findKeyByHash(hash);
    // The lookup is by hash, so timing leaks nothing about the secret; the constant-time compare
    // guards against a store that matched loosely.
    if (!key || !timingSafeEqual(Buffer.from(key.hash, 'hex'), computed)) throw new AuthenticationError('Invalid SERVICE-API-KEY.');
    if (!key.active) throw new AuthenticationError('This API key is deactivated.');
    const user = this.deps.store.auth.getUser(key.userEmail);
    const role = user?.role ?? 'read_only';
    const permissions = key.scopes.includes(READ_ONLY_SCOPE) ? ['read'] : (this.deps.store.roles.get(role)?.permissions ?? []);
    const actor: Actor = { userEmail: key.userEmail, keyId: key.id, role, permissions: new Set(permissions) };
    if (this.actors.size >= ACTOR_CACHE_MAX) this.actors.clear();
    this.actors.set(secret, { actor, expires: now + ACTOR_CACHE_TTL_MS });
    return actor;
  }

  /** Creates a custom role; 409 when the name exists. Permissions are de-duplicated. */
  createRole(name: string, permissions: readonly string[]): RoleRecord {
    const { store } = this.deps;
    const role = store.transaction(() => {
      if (store.roles.get(name)) throw new ConflictError(`Role ${name} already exists.`);
      const created = { name, permissions: [...new Set(permissions)], builtin: false };
      store.roles.upsert(created);
      return created;
    });
    this.invalidate();
    return role;
  }

  /** Replaces a role's permissions; the admin role keeps every permission. */
  updateRole(name: string, permissions: readonly string[]): RoleRecord {
    const { store } = this.deps;
    const role = store.transaction(() => {
      const existing = store.roles.get(name);
      if (!existing) throw new NotFoundError('Role not found.');
      if (name === 'admin') throw new ConflictError('The admin role keeps every permission; create a custom role instead.');
      const updated = { ...existing, permissions: [...new Set(permissions)] };
      store.roles.upsert(updated);
      return updated;
    });
    this.invalidate();
    return role;
  }

  private assertRole(role: string): void {
    if (!this.deps.store.roles.get(role)) throw new InputError('Unknown role.', [{ property: 'role', errorMessage: `unknown role '${role}'` }]);
  }

  private insertKey(input: NewKey, secret: string): KeyRecord {
    const { store, clock } = this.deps;
    return store.transaction(() => {
      this.assertRole(input.role);
      const user = store.auth.getUser(input.userEmail);
      if (user && user.role !== input.role) {
        throw new ConflictError(`User ${input.userEmail} already has role '${user.role}'; change it with PATCH /console/v1/keys/{id} { "role": ... }.`);
      }
      if (!user) store.auth.upsertUser({ email: input.userEmail, role: input.role, createdTime: clock() });
      const key: KeyRecord = {
        id: `key_${randomBytes(8).toString('hex')}`,
        userEmail: input.userEmail,
        description: input.description,
        hash: hashKey(secret),
        scopes: input.scopes ?? [],
        active: true,
        createdTime: clock(),
        lastRotatedTime: null,
      };
      store.auth.insertKey(key);
      return key;
    });
  }

  createKey(input: NewKey): { key: KeyView; secret: string } {
    const secret = newSecret();
    const record = this.insertKey(input, secret);
    return { key: this.view(record), secret };
  }

  view(key: KeyRecord): KeyView {
    const role = this.deps.store.auth.getUser(key.userEmail)?.role ?? 'read_only';
    return {
      id: key.id,
      description: key.description,
      userEmail: key.userEmail,
      role,
      scopes: key.scopes,
      isActive: key.active,
      createdTime: key.createdTime,
      lastRotatedTime: key.lastRotatedTime,
    };
  }

  listKeys(): KeyView[] {
    return this.deps.store.auth.listKeys().map((k) => this.view(k));
  }

  getKey(id: string): KeyView {
    return this.view(this.requireKey(id));
  }

  private requireKey(id: string): KeyRecord {
    const key = this.deps.store.auth.getKey(id);
    if (!key) throw new NotFoundError('Key not found.');
    return key;
  }

  updateKey(id: string, patch: { description?: string; role?: string; scopes?: string[] }): KeyView {
    const { store } = this.deps;
    return store.transaction(() => {
      const key = this.requireKey(id);
      if (patch.role !== undefined) {
        this.assertRole(patch.role);
        const user = store.auth.getUser(key.userEmail);
        store.auth.upsertUser({ email: key.userEmail, role: patch.role, createdTime: user?.createdTime ?? this.deps.clock() });
      }
      const updated = { ...key, description: patch.description ?? key.description, scopes: patch.scopes ?? key.scopes };
      store.auth.updateKey(updated);
      this.invalidate();
      return this.view(updated);
    });
  }

  rotateKey(id: string): { key: KeyView; secret: string } {
    const secret = newSecret();
    return this.deps.store.transaction(() => {
      const key = { ...this.requireKey(id), hash: hashKey(secret), lastRotatedTime: this.deps.clock() };
      this.deps.store.auth.updateKey(key);
      this.invalidate();
      return { key: this.view(key), secret };
    });
  }

  deactivateKey(id: string): KeyView {
    return this.deps.store.transaction(() => {
      const key = { ...this.requireKey(id), active: false };
      this.deps.store.auth.updateKey(key);
      this.invalidate();
      return this.view(key);
    });
  }

  deleteKey(id: string): void {
    this.deps.store.transaction(() => {
      this.requireKey(id);
      this.deps.store.auth.deleteKey(id);
      this.invalidate();
    });
  }
}
