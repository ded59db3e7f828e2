import type { ConfigSpecs } from '../../core/eval/config-spec-types.js';
import { SpecEvaluator } from '../../core/eval/evaluate-spec.js';
import { FlagIndex } from '../../core/eval/flag-keys.js';
import type { ConfigSpecsService } from '../config-specs-service.js';
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
    const { specs } = await this.configSpecs.specsFor(scope, marksFresh);
    let compiled = this.engines.get(specs);
    if (compiled === undefined) {
      compiled = { specs, evaluator: new SpecEvaluator(specs, engineCapabilities()), flags: new FlagIndex(specs) };
      this.engines.set(specs, compiled);
    }
    return compiled;
  }
}
