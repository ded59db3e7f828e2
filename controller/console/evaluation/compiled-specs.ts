import { compileConfigSpecs, type CompileSource } from '../../core/eval/compile-config-specs.js';
import type { ConfigSpecs } from '../../core/eval/config-spec-types.js';
import { SpecEvaluator } from '../../core/eval/evaluate-spec.js';
import { FlagIndex } from '../../core/eval/flag-keys.js';
import type { JsonObject } from '../../core/repo-entity.js';
import type { Store } from '../../store/ports.js';
import { engineCapabilities } from './engine-capabilities.js';

/** Whom specs are compiled for: a key's environments and target apps (empty: no limit). */
export interface SpecScope {
  environments: readonly string[];
  targetApps: readonly string[];
}

export interface CompiledScope {
  specs: ConfigSpecs;
  evaluator: SpecEvaluator;
  flags: FlagIndex;
}

const KINDS = ['gate', 'dynamic_config', 'segment', 'experiment', 'layer', 'holdout'] as const;

/** How many scopes (distinct key environments/apps) stay compiled at once. */
const MAX_SCOPES = 64;

/**
 * The console's entities compiled for each key scope, with an engine over them. Kept until the
 * store's data mark moves: on a store shared by replicas the caller refreshes the marks first
 * (`store.refreshMarks()`), so
 * the next evaluation after a write on any replica sees that write. A store that can't tell its
 * marks gets a fresh compile every time.
 */
export class CompiledSpecsCache {
  private mark: string | undefined;
  private readonly byScope = new Map<string, Promise<CompiledScope>>();

  constructor(private readonly deps: { store: Store; clock: () => number }) {}

  async forScope(scope: SpecScope): Promise<CompiledScope> {
    const mark = this.deps.store.marks?.()?.data;
    if (mark === undefined) return this.compile(scope);
    if (mark !== this.mark) {
      this.mark = mark;
      this.byScope.clear();
    }
    const key = `${[...scope.environments].sort().join(',')}|${scope.targetApps.join(',')}`;
    let compiled = this.byScope.get(key);
    if (compiled === undefined) {
      if (this.byScope.size >= MAX_SCOPES) this.byScope.clear();
      compiled = this.compile(scope);
      this.byScope.set(key, compiled);
      // A failed read is not kept: the next request tries again.
      compiled.catch(() => this.byScope.get(key) === compiled && this.byScope.delete(key));
    }
    return compiled;
  }

  private async compile(scope: SpecScope): Promise<CompiledScope> {
    const { store } = this.deps;
    const lists = await Promise.all(KINDS.map(async (kind) => {
      const records = store.entities.listFrozen ? await store.entities.listFrozen(kind) : await store.entities.list(kind);
      return records.map((r) => ({ ...r.data, id: r.data['id'] ?? r.id }) as JsonObject);
    }));
    const [gates, dynamicConfigs, segments, experiments, layers, holdouts] = lists as [JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[], JsonObject[]];
    const source: CompileSource = { gates, dynamicConfigs, segments, experiments, layers, holdouts };
    const specs = compileConfigSpecs(source, { environments: scope.environments, targetApps: scope.targetApps, time: this.deps.clock() });
    return { specs, evaluator: new SpecEvaluator(specs, engineCapabilities()), flags: new FlagIndex(specs) };
  }
}
