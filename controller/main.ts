/**
 * Entry point of the `flagops` CLI: the only file that touches `process` (argv, env, signals, exit).
 */
import { runCli } from './cli/cli.js';
import { COMMANDS } from './cli/commands.js';

const controller = new AbortController();
const stop = (): void => controller.abort();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

const code = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
    signal: controller.signal,
  },
  COMMANDS,
);
process.exitCode = code;
