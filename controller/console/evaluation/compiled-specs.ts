import type { ConfigSpecs } from '../../core/eval/config-spec-types.js';
import { SpecEvaluator } from '../../core/eval/evaluate-spec.js';
import { FlagIndex } from '../../core/eval/flag-keys.js';
import type { ConfigSpecsService } from '../config-specs-service.js';
import type { ChangeMarks } from '../../store/ports.js';
import type { SdkKey } from '../sdk-key-auth.js';
import { engineCapabilities } from './engine-capabilities.js';
import { KeptTags } from './kept-tags.js';
import { OfrepAnswerTexts } from './ofrep-answer-texts.js';

/** Whom specs are compiled for: a key's environments and target apps (empty: no limit). */
export interface SpecScope {
  environments: readonly string[];
  targetApps: readonly string[];
}

export interface CompiledScope {
  specs: ConfigSpecs;
  evaluator: SpecEvaluator;
  flags: FlagIndex;
  /**
   * The ETag of the bulk answer by context, for specs whose answers depend on nothing but the
   * context (no `current_time` condition): a client polling with the same context and that tag gets
   * its 304 without evaluating again. Tags only, never bodies: a cache of every polling context's
   * answer would keep megabytes the garbage collector walks. Bounded (KeptTags). Undefined when the
   * specs read the clock; dropped with the specs.
   */
  bulkTags: KeptTags | undefined;
  /**
   * The same tags by request body text, for the fast lane: a client polling with the body and tag
   * of its last request gets its 304 without the body being parsed. Undefined with `bulkTags`.
   */
  bulkTagsByBody: KeptTags | undefined;
  /** The OFREP answers' texts per flag and outcome, made once for these specs. */
  answerTexts: OfrepAnswerTexts;
}

function readsTheClock(specs: ConfigSpecs): boolean {
  for (const list of [specs.feature_gates, specs.dynamic_configs, specs.layer_configs]) {
    for (const spec of list) for (const rule of spec.rules) for (const c of rule.conditions) if (String(c.type).toLowerCase() === 'current_time') return true;
  }
  return false;
}

/**
 * An engine over the config specs the Statsig SDK routes serve (the same compile, the same
 * replica-safe cache: a write on any replica moves the data mark, and the next evaluation gets specs
 * compiled after it). The engine and flag index are built once per compiled specs.
 */
export class CompiledSpecsCache {
  private readonly engines = new WeakMap<ConfigSpecs, CompiledScope>();

  constructor(private readonly configSpecs: ConfigSpecsService) {}

  /** `marksFresh`: the caller refreshed the store's marks during this request already (authenticating a key). */
  async forScope(scope: SpecScope, marksFresh = false): Promise<CompiledScope> {
    const key = { environments: scope.environments, targetApps: scope.targetApps, scope: JSON.stringify([scope.environments, scope.targetApps]) };
    return this.engineFor((await this.configSpecs.specsFor(key, marksFresh)).specs);
  }

  /**
   * The compiled scope of an SDK key at once when its specs are current; undefined when `forScope`
   * must answer (always on a store shared by replicas, whose marks a request refreshes first).
   */
  cached(key: Pick<SdkKey, 'scope'>, marks?: ChangeMarks): CompiledScope | undefined {
    const current = this.configSpecs.cached(key, marks);
    return current === undefined ? undefined : this.engineFor(current.specs);
  }

  private engineFor(specs: ConfigSpecs): CompiledScope {
    let compiled = this.engines.get(specs);
    if (compiled === undefined) {
      const tagged = !readsTheClock(specs);
      compiled = { specs, evaluator: new SpecEvaluator(specs, engineCapabilities()), flags: new FlagIndex(specs), bulkTags: tagged ? new KeptTags() : undefined, bulkTagsByBody: tagged ? new KeptTags() : undefined, answerTexts: new OfrepAnswerTexts() };
      this.engines.set(specs, compiled);
    }
    return compiled;
  }
}
