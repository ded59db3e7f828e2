import { InputError } from '../errors.js';
import { stringOption, type Command } from './command.js';

const FORMATS = ['text', 'json'] as const;

export const statusCommand: Command = {
  name: 'status',
  summary: 'Per entity: in sync, drifted or to change, pending reviews, last applied commit and when',
  usage: `Usage: flagops status [DIR] [--console URL] [--format text|json]

  Compares the repository in DIR (default: the current directory) with the live console, as plan
  does, and shows for every entity: in sync, drifted (changed in the console by another user than
  the key's), or to create / update / delete; the newest review still in flight (with its status);
  and the last change flagops apply made (the git commit its review names, and when; for kinds
  written directly, the time from the audit log); and the fields the console owns of it
  (flagops.yaml's ownership.console). The console and key come from flagops.yaml as for
  plan. --format json prints the same as one JSON document. Exit 0 unless the status can't be read.`,
  options: {
    console: { type: 'string' },
    format: { type: 'string', default: 'text' },
  },
  allowPositionals: true,
  async run(args, io) {
    const format = stringOption(args, 'format') ?? 'text';
    if (!(FORMATS as readonly string[]).includes(format)) throw new InputError('Invalid option.', [{ property: '--format', errorMessage: `must be one of ${FORMATS.join(', ')}` }]);
    // Loaded when the command runs: the registry imports this module for --help and completion.
    const [{ consoleClientFor, repoDir }, { FsRepoReader }, { readRepoConfig }, { repoStatus }, { renderStatusText }] = await Promise.all([
      import('./reconcile-options.js'),
      import('../source/fs-repo-reader.js'),
      import('../source/load-repo.js'),
      import('../reconcile/status-service.js'),
      import('../reconcile/render-status-text.js'),
    ]);
    const desired = new FsRepoReader(repoDir(args, io));
    const client = consoleClientFor(args, io, await readRepoConfig(desired));
    const report = await repoStatus({ desired, client, desiredLabel: args.positionals[0] ?? '.' });
    io.stdout(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderStatusText(report));
    return 0;
  },
};
