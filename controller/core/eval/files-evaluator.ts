import type { RepoEntity } from '../repo-entity.js';
import { compileConfigSpecs } from './compile-config-specs.js';
import { compileSourceOfFiles } from './compile-source-of-files.js';
import { SpecEvaluator, type EngineOptions } from './evaluate-spec.js';
import { FlagIndex } from './flag-keys.js';

export interface EnvironmentEvaluator {
  index: FlagIndex;
  evaluator: SpecEvaluator;
}

/**
 * The engine over a repository's files, one compilation per environment: what `flagops eval` and the
 * flag tests evaluate, so both give a user the same answer.
 */
export class FilesEvaluator {
  private readonly byEnvironment = new Map<string | null, EnvironmentEvaluator>();
  private readonly source;

  constructor(entities: readonly RepoEntity[], private readonly capabilities: EngineOptions) {
    this.source = compileSourceOfFiles(entities);
  }

  /** In `environment`; null: none (rules limited to environments do not apply). */
  in(environment: string | null): EnvironmentEvaluator {
    let found = this.byEnvironment.get(environment);
    if (!found) {
      const specs = compileConfigSpecs(this.source, { environments: environment !== null ? [environment] : [], targetApps: [], time: 0 });
      found = { index: new FlagIndex(specs), evaluator: new SpecEvaluator(specs, this.capabilities) };
      this.byEnvironment.set(environment, found);
    }
    return found;
  }
}
