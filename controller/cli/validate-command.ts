import { renderDiagnosticsJson, renderDiagnosticsSarif, renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { flagTestDiagnostic } from '../core/render-flag-tests.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo, sortDiagnostics } from '../source/load-repo.js';
import { runRepoFlagTests } from './run-repo-flag-tests.js';
import type { Command } from './command.js';
import { CLI_VERSION, oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir } from './reconcile-options.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config repository: schemas, rules, references (exit 1 on any error)',
  usage: `Usage: flagops validate [DIR] [--format text|json|sarif] [--max-file-size SIZE] [--max-repo-size SIZE]
                        [--allow-empty]

  Reads flagops.yaml, every <folder>/<id>.yaml and the flag tests (tests/*.yaml) under DIR (default:
  the current directory) and reports every problem at once, as "file:line:col property: message".
  Once the rest is valid, runs the flag tests: a failed case is an error at its line. Exit 0 when
  clean, 1 otherwise.
${READ_OPTIONS_USAGE}`,
  options: {
    format: { type: 'string', default: 'text' },
    ...READ_OPTIONS,
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json', 'sarif']);
    const dir = repoDir(args, io);
    const repo = await loadRepo(new FsRepoReader(dir, undefined, readOptions(args, io)));
    // Flag tests run on a repository that is otherwise valid: an entity that did not load would fail them for the wrong reason.
    if (!hasErrors(repo.diagnostics)) {
      const failed = runRepoFlagTests(repo).filter((r) => !r.passed);
      if (failed.length > 0) repo.diagnostics = sortDiagnostics([...repo.diagnostics, ...failed.map(flagTestDiagnostic)]);
    }
    const summary = summarize(repo.diagnostics, repo.fileCount, repo.entities.length);
    if (format === 'json') io.stdout(renderDiagnosticsJson(repo.diagnostics, summary));
    else if (format === 'sarif') io.stdout(renderDiagnosticsSarif(repo.diagnostics, CLI_VERSION));
    else io.stdout(renderDiagnosticsText(repo.diagnostics, summary));
    return hasErrors(repo.diagnostics) ? 1 : 0;
  },
};
