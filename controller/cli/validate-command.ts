import type { Diagnostic } from '../core/repo-entity.js';
import { renderDiagnosticsJson, renderDiagnosticsSarif, renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { flagTestDiagnostic } from '../core/render-flag-tests.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo, sortDiagnostics } from '../source/load-repo.js';
import { runRepoFlagTests } from './run-repo-flag-tests.js';
import { stringOption, type Command } from './command.js';
import { CLI_VERSION, oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir } from './reconcile-options.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config repository: schemas, rules, references (exit 1 on any error)',
  usage: `Usage: flagops validate [DIR] [--base REF] [--format text|json|sarif] [--max-file-size SIZE]
                        [--max-repo-size SIZE] [--allow-empty]

  Reads flagops.yaml, every <folder>/<id>.yaml and the flag tests (tests/*.yaml) under DIR (default:
  the current directory) and reports every problem at once, as "file:line:col property: message".
  Team rules (flagops.yaml policies.schemas) are checked on every entity. Once the rest is valid,
  runs the flag tests: a failed case is an error at its line. Exit 0 when clean, 1 otherwise.
  --base REF also runs the bridge's policies (protectedEntities, maxPassPercentageStep,
  freezeWindows) on the changes from REF to the working tree: a change the bridge would reject is an
  error at the changed field; a freeze window starting within 24 hours is a warning.
${READ_OPTIONS_USAGE}`,
  options: {
    format: { type: 'string', default: 'text' },
    base: { type: 'string' },
    ...READ_OPTIONS,
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json', 'sarif']);
    const dir = repoDir(args, io);
    const base = stringOption(args, 'base');
    const read = readOptions(args, io);
    const reader = new FsRepoReader(dir, undefined, read);
    const repo = await loadRepo(reader);
    let diagnostics: Diagnostic[] = repo.diagnostics;
    // Flag tests and policies run on a repository that is otherwise valid: an entity that did not
    // load would fail them for the wrong reason, and only a valid repository has changes to judge.
    if (!hasErrors(repo.diagnostics)) {
      const failed = runRepoFlagTests(repo).filter((r) => !r.passed);
      if (failed.length > 0) diagnostics = sortDiagnostics([...diagnostics, ...failed.map(flagTestDiagnostic)]);
    }
    if (base !== undefined && !hasErrors(repo.diagnostics)) {
      // Loaded only for --base: a plain validate starts without git.
      const [{ GitRepoReader }, { planBetweenRefs }, { policyDiagnostics }] = await Promise.all([import('../source/git-source.js'), import('../reconcile/plan-service.js'), import('../reconcile/policy-diagnostics.js')]);
      const { plan } = await planBetweenRefs({ desired: reader, loaded: repo, base: await GitRepoReader.open(dir, base, { ...read, allowEmpty: true }) });
      diagnostics = sortDiagnostics([...diagnostics, ...(await policyDiagnostics(plan, reader))]);
    }
    const summary = summarize(diagnostics, repo.fileCount, repo.entities.length);
    if (format === 'json') io.stdout(renderDiagnosticsJson(diagnostics, summary));
    else if (format === 'sarif') io.stdout(renderDiagnosticsSarif(diagnostics, CLI_VERSION));
    else io.stdout(renderDiagnosticsText(diagnostics, summary));
    return hasErrors(diagnostics) ? 1 : 0;
  },
};
