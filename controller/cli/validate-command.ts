import { renderDiagnosticsJson, renderDiagnosticsSarif, renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo } from '../source/load-repo.js';
import type { Command } from './command.js';
import { CLI_VERSION, oneOf, repoDir } from './reconcile-options.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config repository: schemas, rules, references (exit 1 on any error)',
  usage: `Usage: flagops validate [DIR] [--format text|json|sarif]

  Reads flagops.yaml and every <folder>/<id>.yaml under DIR (default: the current directory) and
  reports every problem at once, as "file:line:col property: message". Exit 0 when clean, 1 otherwise.`,
  options: {
    format: { type: 'string', default: 'text' },
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json', 'sarif']);
    const repo = await loadRepo(new FsRepoReader(repoDir(args, io)));
    const summary = summarize(repo.diagnostics, repo.fileCount, repo.entities.length);
    if (format === 'json') io.stdout(renderDiagnosticsJson(repo.diagnostics, summary));
    else if (format === 'sarif') io.stdout(renderDiagnosticsSarif(repo.diagnostics, CLI_VERSION));
    else io.stdout(renderDiagnosticsText(repo.diagnostics, summary));
    return hasErrors(repo.diagnostics) ? 1 : 0;
  },
};
