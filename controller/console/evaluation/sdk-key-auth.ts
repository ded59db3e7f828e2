import { timingSafeEqual } from 'node:crypto';
import { AuthenticationError, NotAllowedError } from '../../errors.js';
import type { KeyRecord, Store } from '../../store/ports.js';
import { hashKey } from '../auth-service.js';
import { keyTargetApps } from '../key-scope.js';

/** An SDK key as evaluation routes use it: what it may see. */
export interface SdkKey {
  id: string;
  type: 'SERVER' | 'CLIENT';
  environments: readonly string[];
  targetApps: readonly string[];
}

const MAX_CACHED = 10000;

/**
 * Authenticates SDK keys (SERVER and CLIENT; a CONSOLE key is refused: it manages the console, and
 * an app holding one could change flags). Answers are kept until the store's auth mark moves, so a
 * deactivated or rotated key stops working on every replica at its next request.
 */
export class SdkKeyAuth {
  private cache: { mark: string; bySecret: Map<string, SdkKey> } | undefined;

  constructor(private readonly store: Store) {}

  async authenticate(secret: string | undefined): Promise<SdkKey> {
    if (secret === undefined || secret === '') throw new AuthenticationError('Missing SDK key: send Authorization: Bearer <SERVER or CLIENT key>.');
    const mark = this.store.marks?.()?.auth;
    if (mark !== undefined && this.cache?.mark !== mark) this.cache = { mark, bySecret: new Map() };
    const cached = mark === undefined ? undefined : this.cache?.bySecret.get(secret);
    if (cached) return cached;
    const hash = hashKey(secret);
    const key: KeyRecord | undefined = await this.store.auth.findKeyByHash(hash);
    // Looked up by hash: timing says nothing about the secret; the constant-time compare guards against a loose match.
    if (!key || !timingSafeEqual(Buffer.from(key.hash, 'hex'), Buffer.from(hash, 'hex'))) throw new AuthenticationError('Invalid SDK key.');
    if (!key.active) throw new AuthenticationError('This SDK key is deactivated.');
    if (key.type === 'CONSOLE') throw new NotAllowedError('This is a CONSOLE key: evaluation takes a SERVER or CLIENT key.');
    const sdkKey: SdkKey = { id: key.id, type: key.type, environments: key.environments, targetApps: keyTargetApps(key) };
    if (mark !== undefined && this.cache) {
      if (this.cache.bySecret.size >= MAX_CACHED) this.cache.bySecret.clear();
      this.cache.bySecret.set(secret, sdkKey);
    }
    return sdkKey;
  }
}
