import { timingSafeEqual } from 'node:crypto';
import { AuthenticationError, NotAllowedError } from '../errors.js';
import { DuplicateKeyError } from '../store/ports.js';
import { foldEmail } from '../core/same-email.js';
import { keyTargetApps } from './key-scope.js';
import { READ_ONLY_SCOPE, type Actor } from './permissions.js';
import { hashKey, KeyManagement, newSecret } from './key-management.js';

export { hashKey, type KeyPatch, type KeyView, type NewKey } from './key-management.js';

const ACTOR_CACHE_MAX = 1000;

/**
 * Authentication: the bootstrap key and the actor of a presented key. Keys and roles are managed
 * through KeyManagement and RoleManagement, which it extends. Keys are compared in constant time.
 */
export class AuthService extends KeyManagement {
  /**
   * Actors by the key as presented, until the store's auth mark moves (a key, user or role written by
   * any process). Authentication runs on every request and costs a sha256 and three store reads; the
   * cache makes it one map lookup (bench:api). Only keys that resolved are cached, so bad keys can't
   * fill it; it lives in memory only, like the request that carried the key.
   */
  private actors: { mark: string; bySecret: Map<string, Actor> } | undefined;

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

  /**
   * The actor of a key resolved since the auth mark last moved, at once; undefined when the key must
   * be looked up (`authenticate`). Every request asks: most keys are in the cache, and answering
   * them without a promise is measurable in bench:api.
   */
  cachedActor(secret: string | undefined): Actor | undefined {
    if (secret === undefined || this.actors === undefined) return undefined;
    const mark = this.deps.store.marks?.()?.auth;
    return mark !== undefined && this.actors.mark === mark ? this.actors.bySecret.get(secret) : undefined;
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
    if (key.type !== 'CONSOLE') throw new NotAllowedError(`This is a ${key.type} key, an SDK key: the Console API takes CONSOLE keys only.`);
    const user = await store.auth.getUser(key.userEmail);
    const role = user?.role ?? 'read_only';
    const permissions = key.scopes.includes(READ_ONLY_SCOPE) ? ['read'] : ((await store.roles.get(role))?.permissions ?? []);
    // Folded: what the actor writes (submitter, approver, committer) compares case-insensitively.
    const actor: Actor = { userEmail: foldEmail(key.userEmail), keyId: key.id, role, permissions: new Set(permissions), environments: key.environments, targetApps: keyTargetApps(key) };
    if (cache) {
      if (cache.bySecret.size >= ACTOR_CACHE_MAX) cache.bySecret.clear();
      cache.bySecret.set(secret, actor);
    }
    return actor;
  }
}
