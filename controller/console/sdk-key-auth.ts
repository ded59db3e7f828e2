import { timingSafeEqual } from 'node:crypto';
import { AuthenticationError, NotAllowedError } from '../errors.js';
import type { ChangeMarks, KeyRecord, Store } from '../store/ports.js';
import { hashKey } from './auth-service.js';
import { keyTargetApps } from './key-scope.js';

/** An SDK key as the evaluation routes need it: never its secret or hash. */
export interface SdkKey {
  id: string;
  type: 'SERVER' | 'CLIENT';
  /** Empty: every environment. */
  environments: readonly string[];
  /** Primary first; empty: every app. */
  targetApps: readonly string[];
  /** The environments and target apps as one string: keys with the same scope see the same flags. */
  scope: string;
}

export type SdkKeyType = SdkKey['type'];

const CACHE_MAX = 1000;

/**
 * Authenticates the SDK keys applications present (SERVER and CLIENT keys). Keys are looked up by
 * their sha256 and compared in constant time, as the Console API's keys are; a CONSOLE key, which
 * can change flags, is refused here so it never ends up in an app. Resolved keys are remembered
 * until the store's auth mark moves (a key created, rotated, deactivated or deleted on any
 * replica), so an app polling every few seconds costs one map lookup.
 */
export class SdkKeyAuth {
  private cache: { mark: string; bySecret: Map<string, SdkKey> } | undefined;

  constructor(private readonly store: Store) {}

  /**
   * The key of `secret` when it is an active SDK key of one of `types`: 401 when missing, unknown or
   * deactivated, 403 for a CONSOLE key or a key of another type. Refreshes the store's change marks
   * first, so a key deactivated on another replica is refused at once (and the caller's own reads
   * through mark-keyed caches see every acknowledged write).
   */
  /**
   * The key of `secret` at once, when it was resolved since the auth mark last moved and is of one
   * of `types`; undefined when `authenticate` must answer (always, on a store shared by replicas,
   * whose marks a request refreshes first).
   */
  cached(secret: string | undefined, types: readonly SdkKeyType[], marks: ChangeMarks | undefined = this.store.marks?.()): SdkKey | undefined {
    if (secret === undefined || this.store.refreshMarks !== undefined || this.cache === undefined) return undefined;
    if (this.cache.mark !== marks?.auth) return undefined;
    const key = this.cache.bySecret.get(secret);
    return key !== undefined && types.includes(key.type) ? key : undefined;
  }

  async authenticate(secret: string | undefined, types: readonly SdkKeyType[]): Promise<SdkKey> {
    if (secret === undefined || secret === '') throw new AuthenticationError('Missing SDK key.');
    await this.store.refreshMarks?.();
    const mark = this.store.marks?.()?.auth;
    const cache = mark === undefined ? undefined : this.cache?.mark === mark ? this.cache : (this.cache = { mark, bySecret: new Map() });
    const key = cache?.bySecret.get(secret) ?? (await this.lookUp(secret));
    if (cache && !cache.bySecret.has(secret)) {
      if (cache.bySecret.size >= CACHE_MAX) cache.bySecret.clear();
      cache.bySecret.set(secret, key);
    }
    if (!types.includes(key.type)) throw new NotAllowedError(`This is a ${key.type} key; this endpoint takes ${types.join(' or ')} keys.`);
    return key;
  }

  private async lookUp(secret: string): Promise<SdkKey> {
    const hash = hashKey(secret);
    const record = await this.store.auth.findKeyByHash(hash);
    // The lookup is by hash, so timing leaks nothing about the secret; the constant-time compare
    // guards against a store that matched loosely.
    if (!record || !timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) throw new AuthenticationError('Invalid SDK key.');
    if (!record.active) throw new AuthenticationError('This SDK key is deactivated.');
    if (record.type === 'CONSOLE') throw new NotAllowedError('This is a CONSOLE key, which can change flags: applications take a SERVER or CLIENT key.');
    return sdkKeyOf(record as KeyRecord & { type: SdkKeyType });
  }
}

function sdkKeyOf(record: KeyRecord & { type: SdkKeyType }): SdkKey {
  const targetApps = keyTargetApps(record);
  return { id: record.id, type: record.type, environments: [...record.environments], targetApps, scope: JSON.stringify([record.environments, targetApps]) };
}
