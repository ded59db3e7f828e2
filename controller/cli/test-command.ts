import { renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { renderFlagTestsJson, renderFlagTestsText } from '../core/render-flag-tests.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo } from '../source/load-repo.js';
import type { Command } from './command.js';
import { oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir } from './reconcile-options.js';
import { runRepoFlagTests } from './run-repo-flag-tests.js';

export const testCommand: Command = {
  name: 'test',
  summary: "Run the repository's flag tests (tests/*.yaml) with the evaluation engine (exit 1 on a failure)",
  usage: `Usage: flagops test [DIR] [--format text|json]

  Evaluates every case of tests/*.yaml in DIR (default: the current directory) against the
  repository's files, with the engine of flagops eval and the console: a user's answer, or the share
  of a sample of generated units that gets it. Prints each case, a failure at its file:line:col with
  the expected and actual value and the rule that decided. Exit 0 when every case passes; 1 on a
  failed case or an invalid repository (test files included).
${READ_OPTIONS_USAGE}`,
  options: {
    format: { type: 'string', default: 'text' },
    ...READ_OPTIONS,
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json']);
    const repo = await loadRepo(new FsRepoReader(repoDir(args, io), undefined, readOptions(args, io)));
    if (hasErrors(repo.diagnostics)) {
      io.stderr(renderDiagnosticsText(repo.diagnostics.filter((d) => d.severity === 'error'), summarize(repo.diagnostics, repo.fileCount, repo.entities.length)));
      return 1;
    }
    const results = runRepoFlagTests(repo);
    io.stdout(format === 'json' ? renderFlagTestsJson(results) : renderFlagTestsText(results));
    return results.every((r) => r.passed) ? 0 : 1;
  },
};
