/**
 * Entry point of the `flagops` CLI: the only file that touches `process` (argv, env, signals, exit).
 */
import { runCli } from './cli/cli.js';
import { COMMANDS } from './cli/commands.js';
import { pinTickObjectMap } from './net/pin-tick-object-map.js';

// Before anything idles: a console that sat idle would otherwise spend up to twice the CPU per request.
pinTickObjectMap((callback) => process.nextTick(callback));

/** One line from the terminal; undefined without one, at end of input, or when interrupted. */
async function promptLine(question: string, signal: AbortSignal, interrupt: () => void): Promise<string | undefined> {
  if (process.stdin.isTTY !== true) return undefined;
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C at the prompt reaches readline, not the process: it interrupts the command all the same.
  rl.once('SIGINT', interrupt);
  try {
    return await rl.question(question, { signal });
  } catch {
    return undefined;
  } finally {
    rl.close();
  }
}

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
    prompt: (question) => promptLine(question, controller.signal, stop),
  },
  COMMANDS,
);
process.exitCode = code;
