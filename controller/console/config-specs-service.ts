import { compileConfigSpecsJson, SpecMemo, type CompileSource } from '../core/eval/compile-config-specs.js';
import type { ConfigSpecs } from '../core/eval/config-spec-types.js';
import type { JsonObject } from '../core/repo-entity.js';
import type { EntityRecord, Store } from '../store/ports.js';
import type { SdkKey } from './sdk-key-auth.js';

/** The specs of one key scope, compiled once per data mark, with both answers serialised. */
export interface CompiledSpecs {
  specs: ConfigSpecs;
  /** `time` of the specs: when the data they were compiled from last changed (the newest audit entry). */
  time: number;
  /** The whole download, as JSON. */
  body: string;
  /** The answer to a client that has `time` already. */
  unchangedBody: string;
}

/** Key scopes kept per data mark: one per distinct environments and target apps of the keys polling. */
const SCOPES_MAX = 200;

const KINDS = { gates: 'gate', dynamicConfigs: 'dynamic_config', segments: 'segment', experiments: 'experiment', layers: 'layer', holdouts: 'holdout' } as const;

/**
 * The console's entities compiled into config specs for an SDK key, from a cache that any write
 * (by this replica or another) invalidates: the cache is keyed on the store's data mark, which a
 * shared store refreshes before the lookup, so a change committed anywhere is in the next download.
 */
export class ConfigSpecsService {
  private cache: { mark: string; source: Promise<{ source: CompileSource; time: number }>; scopes: Map<string, CompiledSpecs> } | undefined;
  /** Rebuilds since start (what a benchmark or a test can watch). */
  rebuilds = 0;
  /** Specs of unchanged entities, reused by the rebuild after a write. */
  private readonly memo = new SpecMemo();

  constructor(private readonly store: Store) {}

  /** `marksFresh`: the caller refreshed the store's marks during this request already (authenticating the key). */
  async specsFor(key: Pick<SdkKey, 'environments' | 'targetApps'>, marksFresh = false): Promise<CompiledSpecs> {
    if (!marksFresh) await this.store.refreshMarks?.();
    // Taken before reading: a write that lands while the entities are read moves the mark again, so
    // the next request rebuilds instead of keeping a mix of before and after.
    const mark = this.store.marks?.()?.data;
    const scope = JSON.stringify([key.environments, key.targetApps]);
    if (mark === undefined) return this.compile(await this.load(), key);
    if (this.cache?.mark !== mark) this.cache = { mark, source: this.load(), scopes: new Map() };
    const cache = this.cache;
    const known = cache.scopes.get(scope);
    if (known) return known;
    let loaded: { source: CompileSource; time: number };
    try {
      loaded = await cache.source;
    } catch (error) {
      // A failed read is not kept: the next request tries again.
      if (this.cache === cache) this.cache = undefined;
      throw error;
    }
    const compiled = this.compile(loaded, key);
    if (cache.scopes.size >= SCOPES_MAX) cache.scopes.clear();
    cache.scopes.set(scope, compiled);
    return compiled;
  }

  private compile({ source, time }: { source: CompileSource; time: number }, key: Pick<SdkKey, 'environments' | 'targetApps'>): CompiledSpecs {
    this.rebuilds += 1;
    const { specs, json } = compileConfigSpecsJson(source, { environments: key.environments, targetApps: key.targetApps, time }, this.memo);
    return { specs, time, body: json, unchangedBody: JSON.stringify({ has_updates: false, time }) };
  }

  private async load(): Promise<{ source: CompileSource; time: number }> {
    const { entities, audit } = this.store;
    const read = (kind: string): Promise<readonly EntityRecord[]> => (entities.listFrozen ? entities.listFrozen(kind) : entities.list(kind));
    const withIds = (records: readonly EntityRecord[]): JsonObject[] => records.map((r) => (r.data['id'] === r.id ? r.data : { ...r.data, id: r.id }));
    const [lists, newest] = await Promise.all([
      Promise.all(Object.values(KINDS).map(read)),
      audit.list({ offset: 0, limit: 1 }),
    ]);
    const [gates, dynamicConfigs, segments, experiments, layers, holdouts] = lists.map(withIds) as [JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[]];
    return { source: { gates, dynamicConfigs, segments, experiments, layers, holdouts }, time: newest.items[0]?.time ?? 0 };
  }
}
