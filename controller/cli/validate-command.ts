import { renderDiagnosticsJson, renderDiagnosticsSarif, renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo } from '../source/load-repo.js';
import type { Command } from './command.js';
import { CLI_VERSION, oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir } from './reconcile-options.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config repository: schemas, rules, references (exit 1 on any error)',
  usage: `Usage: flagops validate [DIR] [--format text|json|sarif] [--max-file-size SIZE] [--max-repo-size SIZE]
                        [--allow-empty]

  Reads flagops.yaml and every <folder>/<id>.yaml under DIR (default: the current directory) and
  reports every problem at once, as "file:line:col property: message". Exit 0 when clean, 1 otherwise.
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
    const summary = summarize(repo.diagnostics, repo.fileCount, repo.entities.length);
    if (format === 'json') io.stdout(renderDiagnosticsJson(repo.diagnostics, summary));
    else if (format === 'sarif') io.stdout(renderDiagnosticsSarif(repo.diagnostics, CLI_VERSION));
    else io.stdout(renderDiagnosticsText(repo.diagnostics, summary));
    return hasErrors(repo.diagnostics) ? 1 : 0;
  },
};
