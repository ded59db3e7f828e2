import { compileConfigSpecsJson, SpecMemo, type CompileSource } from '../core/eval/compile-config-specs.js';
import type { ConfigSpecs } from '../core/eval/config-spec-types.js';
import type { JsonObject } from '../core/repo-entity.js';
import type { ChangeMarks, EntityRecord, Store } from '../store/ports.js';
import type { SdkKey } from './sdk-key-auth.js';

/** The specs of one key scope, compiled once per data mark, with both answers serialised. */
export interface CompiledSpecs {
  specs: ConfigSpecs;
  /** `time` of the specs: when the data they were compiled from last changed (the newest audit entry). */
  time: number;
  /** The whole download, as JSON (UTF-8): encoded once, sent as it is to every SDK of the scope. */
  body: Buffer;
  /** The answer to a client that has `time` already. */
  unchangedBody: string;
  /** What building these specs took, ms: reading the entities, compiling them (with their JSON). */
  timings: { loadMs: number; compileMs: number };
}

interface Loaded {
  source: CompileSource;
  time: number;
  loadMs: number;
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
  private cache: { mark: string; source: Promise<Loaded>; scopes: Map<string, CompiledSpecs> } | undefined;
  /** Rebuilds since start (what a benchmark or a test can watch). */
  rebuilds = 0;
  /** Specs of unchanged entities, reused by the rebuild after a write. */
  private readonly memo = new SpecMemo();

  constructor(private readonly store: Store) {}

  /**
   * The specs of the key's scope at once when they are current; undefined when `specsFor` must
   * answer (always, on a store shared by replicas, whose marks a request refreshes first).
   */
  cached(key: Pick<SdkKey, 'scope'>, marks: ChangeMarks | undefined = this.store.marks?.()): CompiledSpecs | undefined {
    if (this.store.refreshMarks !== undefined || this.cache === undefined) return undefined;
    return this.cache.mark === marks?.data ? this.cache.scopes.get(key.scope) : undefined;
  }

  /** `marksFresh`: the caller refreshed the store's marks during this request already (authenticating the key). */
  async specsFor(key: Pick<SdkKey, 'environments' | 'targetApps' | 'scope'>, marksFresh = false): Promise<CompiledSpecs> {
    if (!marksFresh) await this.store.refreshMarks?.();
    // Taken before reading: a write that lands while the entities are read moves the mark again, so
    // the next request rebuilds instead of keeping a mix of before and after.
    const mark = this.store.marks?.()?.data;
    const scope = key.scope;
    if (mark === undefined) return this.compile(await this.load(), key);
    if (this.cache?.mark !== mark) this.cache = { mark, source: this.load(), scopes: new Map() };
    const cache = this.cache;
    const known = cache.scopes.get(scope);
    if (known) return known;
    let loaded: Loaded;
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

  private compile({ source, time, loadMs }: Loaded, key: Pick<SdkKey, 'environments' | 'targetApps'>): CompiledSpecs {
    this.rebuilds += 1;
    const started = performance.now();
    const { specs, json } = compileConfigSpecsJson(source, { environments: key.environments, targetApps: key.targetApps, time }, this.memo);
    return { specs, time, body: json, unchangedBody: JSON.stringify({ has_updates: false, time }), timings: { loadMs, compileMs: performance.now() - started } };
  }

  private async load(): Promise<Loaded> {
    const started = performance.now();
    const { entities, audit } = this.store;
    const read = (kind: string): Promise<readonly EntityRecord[]> => (entities.listFrozen ? entities.listFrozen(kind) : entities.list(kind));
    const withIds = (records: readonly EntityRecord[]): JsonObject[] => records.map((r) => (r.data['id'] === r.id ? r.data : { ...r.data, id: r.id }));
    const [lists, newest] = await Promise.all([
      Promise.all(Object.values(KINDS).map(read)),
      audit.list({ offset: 0, limit: 1 }),
    ]);
    const [gates, dynamicConfigs, segments, experiments, layers, holdouts] = lists.map(withIds) as [JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[]];
    return { source: { gates, dynamicConfigs, segments, experiments, layers, holdouts }, time: newest.items[0]?.time ?? 0, loadMs: performance.now() - started };
  }
}
