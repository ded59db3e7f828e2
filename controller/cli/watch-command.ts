import type { ConsoleClient } from '../reconcile/console-client.js';
import { createWatchCycle } from '../reconcile/watch-cycle.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { readRepoConfig } from '../source/load-repo.js';
import { watchRepo } from '../source/watch-repo.js';
import { booleanOption, stringOption, type Command } from './command.js';
import { consoleClientWithKeyFrom, intOption, keyFromEnv } from './cli-helpers.js';
import { consoleClientFor, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir } from './reconcile-options.js';

export const watchCommand: Command = {
  name: 'watch',
  summary: 'Revalidate and replan on every save; --apply reconciles continuously',
  usage: `Usage: flagops watch [DIR] [--console URL] [--apply] [--approver-key-env NAME] [--debounce MS]

  Plans once, then after every save (debounced, default 200 ms) revalidates the repository and prints
  only what changed since the last plan. With --apply, every plan with changes is applied as
  \`flagops apply\` would. Stops on Ctrl-C.
${READ_OPTIONS_USAGE}`,
  options: {
    ...READ_OPTIONS,
    console: { type: 'string' },
    apply: { type: 'boolean' },
    'approver-key-env': { type: 'string' },
    debounce: { type: 'string', default: '200' },
  },
  allowPositionals: true,
  async run(args, io) {
    const dir = repoDir(args, io);
    const desired = new FsRepoReader(dir, undefined, readOptions(args, io));
    const config = await readRepoConfig(desired);
    const client = consoleClientFor(args, io, config);
    let approver: ConsoleClient | undefined;
    const approverEnv = stringOption(args, 'approver-key-env') ?? config.apply.approverKeyEnv;
    if (booleanOption(args, 'apply') && approverEnv !== undefined) {
      const key = keyFromEnv(io.env, approverEnv, 'approver key', '--approver-key-env or flagops.yaml apply.approverKeyEnv names it');
      approver = consoleClientWithKeyFrom(approverEnv, { baseUrl: client.baseUrl, apiKey: key, signal: io.signal });
    }
    const cycle = createWatchCycle({
      desired,
      desiredLabel: args.positionals[0] ?? '.',
      client,
      apply: booleanOption(args, 'apply') ? { approver } : undefined,
      print: (text) => io.stdout(text),
    });
    await cycle();
    io.stderr(`watching ${dir} (Ctrl-C to stop)\n`);
    await watchRepo(dir, async () => void (await cycle()), { debounceMs: intOption(args, 'debounce', 0, 60_000), signal: io.signal });
    return 0;
  },
};
