import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthenticationError, ConflictError, InputError, NotFoundError } from '../errors.js';
import { DuplicateKeyError, type KeyRecord, type RoleRecord, type Store, type StoreRepos } from '../store/ports.js';
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

const ACTOR_CACHE_MAX = 1000;

/** Users, keys and roles. Keys are stored as sha256 hashes and compared in constant time. */
export class AuthService {
  /**
   * Actors by the key as presented, until the store's auth mark moves (a key, user or role written by
   * any process). Authentication runs on every request and costs a sha256 and three store reads; the
   * cache makes it one map lookup (bench:api). Only keys that resolved are cached, so bad keys can't
   * fill it; it lives in memory only, like the request that carried the key.
   */
  private actors: { mark: string; bySecret: Map<string, Actor> } | undefined;

  constructor(private readonly deps: { store: Store; clock: () => number }) {}

  /** Creates the built-in roles on an empty database; never overwrites edited ones. */
  async ensureBuiltinRoles(): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      for (const [name, permissions] of Object.entries(BUILTIN_ROLES)) {
        if (!(await tx.roles.get(name))) await tx.roles.upsert({ name, permissions: [...permissions], builtin: true });
      }
    });
  }

  /**
   * On a database without keys, creates the admin key: with the given secret (FLAGOPS_BOOTSTRAP_KEY),
   * or a generated one, returned so the caller can print it once. Replicas starting together on one
   * database create one key between them: the count and the insert share a transaction.
   */
  async bootstrap(secret: string | undefined): Promise<{ created: boolean; secret?: string; generated: boolean }> {
    await this.ensureBuiltinRoles();
    const value = secret ?? newSecret();
    let created: boolean;
    try {
      created = await this.deps.store.transaction(async (tx) => {
        if ((await tx.auth.countKeys()) > 0) return false;
        await this.insertKeyIn(tx, { description: 'bootstrap admin key', userEmail: 'admin@localhost', role: 'admin' }, value);
        return true;
      });
    } catch (error) {
      // Another replica counted no keys at the same moment and created the same key first.
      if (!(error instanceof DuplicateKeyError)) throw error;
      created = false;
    }
    return created ? { created: true, secret: value, generated: secret === undefined } : { created: false, generated: false };
  }

  async authenticate(secret: string | undefined): Promise<Actor> {
    if (secret === undefined || secret === '') throw new AuthenticationError('Missing SERVICE-API-KEY header.');
    const { store } = this.deps;
    const mark = store.marks?.()?.auth;
    const cache = mark === undefined ? undefined : this.actors?.mark === mark ? this.actors : (this.actors = { mark, bySecret: new Map() });
    const cached = cache?.bySecret.get(secret);
    if (cached) return cached;
    const hash = hashKey(secret);
    const computed = Buffer.from(hash, 'hex');
    const key = await store.auth.findKeyByHash(hash);
    // The lookup is by hash, so timing leaks nothing about the secret; the constant-time compare
    // guards against a store that matched loosely.
    if (!key || !timingSafeEqual(Buffer.from(key.hash, 'hex'), computed)) throw new AuthenticationError('Invalid SERVICE-API-KEY.');
    if (!key.active) throw new AuthenticationError('This API key is deactivated.');
    const user = await store.auth.getUser(key.userEmail);
    const role = user?.role ?? 'read_only';
    const permissions = key.scopes.includes(READ_ONLY_SCOPE) ? ['read'] : ((await store.roles.get(role))?.permissions ?? []);
    const actor: Actor = { userEmail: key.userEmail, keyId: key.id, role, permissions: new Set(permissions) };
    if (cache) {
      if (cache.bySecret.size >= ACTOR_CACHE_MAX) cache.bySecret.clear();
      cache.bySecret.set(secret, actor);
    }
    return actor;
  }

  /** Creates a custom role; 409 when the name exists. Permissions are de-duplicated. */
  createRole(name: string, permissions: readonly string[]): Promise<RoleRecord> {
    return this.deps.store.transaction(async (tx) => {
      if (await tx.roles.get(name)) throw new ConflictError(`Role ${name} already exists.`);
      const created = { name, permissions: [...new Set(permissions)], builtin: false };
      await tx.roles.upsert(created);
      return created;
    });
  }

  /** Replaces a role's permissions; the admin role keeps every permission. */
  updateRole(name: string, permissions: readonly string[]): Promise<RoleRecord> {
    return this.deps.store.transaction(async (tx) => {
      const existing = await tx.roles.get(name);
      if (!existing) throw new NotFoundError('Role not found.');
      if (name === 'admin') throw new ConflictError('The admin role keeps every permission; create a custom role instead.');
      const updated = { ...existing, permissions: [...new Set(permissions)] };
      await tx.roles.upsert(updated);
      return updated;
    });
  }

  async getRole(name: string): Promise<RoleRecord> {
    const role = await this.deps.store.roles.get(name);
    if (!role) throw new NotFoundError('Role not found.');
    return role;
  }

  /** Deletes a custom role that no user holds; built-in roles stay. */
  async deleteRole(name: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const existing = await tx.roles.get(name);
      if (!existing) throw new NotFoundError('Role not found.');
      if (existing.builtin) throw new ConflictError(`Role ${name} is built in and cannot be deleted.`);
      const holders = await tx.auth.countUsersWithRole(name);
      if (holders > 0) {
        throw new ConflictError(`Role ${name} is held by ${holders} ${holders === 1 ? 'user' : 'users'}; give them another role first (PATCH /console/v1/keys/{id} { "role": ... }).`);
      }
      await tx.roles.delete(name);
    });
  }

  private async assertRole(tx: StoreRepos, role: string): Promise<void> {
    if (!(await tx.roles.get(role))) throw new InputError('Unknown role.', [{ property: 'role', errorMessage: `unknown role '${role}'` }]);
  }

  private async insertKeyIn(tx: StoreRepos, input: NewKey, secret: string): Promise<KeyRecord> {
    const { clock } = this.deps;
    await this.assertRole(tx, input.role);
    const user = await tx.auth.getUser(input.userEmail);
    if (user && user.role !== input.role) {
      throw new ConflictError(`User ${input.userEmail} already has role '${user.role}'; change it with PATCH /console/v1/keys/{id} { "role": ... }.`);
    }
    if (!user) await tx.auth.upsertUser({ email: input.userEmail, role: input.role, createdTime: clock() });
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
    await tx.auth.insertKey(key);
    return key;
  }

  async createKey(input: NewKey): Promise<{ key: KeyView; secret: string }> {
    const secret = newSecret();
    return this.deps.store.transaction(async (tx) => {
      const record = await this.insertKeyIn(tx, input, secret);
      return { key: await this.view(record, tx), secret };
    });
  }

  async view(key: KeyRecord, repos: StoreRepos = this.deps.store): Promise<KeyView> {
    const role = (await repos.auth.getUser(key.userEmail))?.role ?? 'read_only';
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

  async listKeys(): Promise<KeyView[]> {
    const keys = await this.deps.store.auth.listKeys();
    return Promise.all(keys.map((k) => this.view(k)));
  }

  async getKey(id: string): Promise<KeyView> {
    return this.view(await this.requireKey(this.deps.store, id));
  }

  private async requireKey(repos: StoreRepos, id: string): Promise<KeyRecord> {
    const key = await repos.auth.getKey(id);
    if (!key) throw new NotFoundError('Key not found.');
    return key;
  }

  updateKey(id: string, patch: { description?: string; role?: string; scopes?: string[] }): Promise<KeyView> {
    return this.deps.store.transaction(async (tx) => {
      const key = await this.requireKey(tx, id);
      if (patch.role !== undefined) {
        await this.assertRole(tx, patch.role);
        const user = await tx.auth.getUser(key.userEmail);
        await tx.auth.upsertUser({ email: key.userEmail, role: patch.role, createdTime: user?.createdTime ?? this.deps.clock() });
      }
      const updated = { ...key, description: patch.description ?? key.description, scopes: patch.scopes ?? key.scopes };
      await tx.auth.updateKey(updated);
      return this.view(updated, tx);
    });
  }

  rotateKey(id: string): Promise<{ key: KeyView; secret: string }> {
    const secret = newSecret();
    return this.deps.store.transaction(async (tx) => {
      const key = { ...(await this.requireKey(tx, id)), hash: hashKey(secret), lastRotatedTime: this.deps.clock() };
      await tx.auth.updateKey(key);
      return { key: await this.view(key, tx), secret };
    });
  }

  deactivateKey(id: string): Promise<KeyView> {
    return this.deps.store.transaction(async (tx) => {
      const key = { ...(await this.requireKey(tx, id)), active: false };
      await tx.auth.updateKey(key);
      return this.view(key, tx);
    });
  }

  async deleteKey(id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await this.requireKey(tx, id);
      await tx.auth.deleteKey(id);
    });
  }
}
