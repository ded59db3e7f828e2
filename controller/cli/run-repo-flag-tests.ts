import { FilesEvaluator } from '../core/eval/files-evaluator.js';
import { runFlagTests, type FlagTestResult } from '../core/eval/run-flag-tests.js';
import { engineCapabilities } from '../console/evaluation/engine-capabilities.js';
import type { LoadedRepo } from '../source/load-repo.js';

/** Runs a loaded repository's flag tests with the engine `flagops eval` uses, capabilities included. */
export function runRepoFlagTests(repo: LoadedRepo): FlagTestResult[] {
  return repo.flagTests.length === 0 ? [] : runFlagTests(repo.flagTests, new FilesEvaluator(repo.entities, engineCapabilities()));
}
