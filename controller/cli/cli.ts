import { parseArgs } from 'node:util';
import { exitCodeOf } from '../error-table.js';
import { DomainError, InputError } from '../errors.js';
import type { CliIO, Command } from './command.js';

/** Parses argv (without node and script), runs the command, and turns any error into an exit code. */
export async function runCli(argv: string[], io: CliIO, commands: readonly Command[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage(commands));
    return name === undefined ? 1 : 0;
  }
  if (name === '--version') {
    io.stdout('flagops 0.1.0\n');
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr(`flagops: unknown command '${name}'\n\n${usage(commands)}`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    const parsed = parseArgs({ args: rest, options: command.options, allowPositionals: command.allowPositionals ?? false, strict: true });
    return await command.run({ values: parsed.values, positionals: parsed.positionals }, io);
  } catch (error) {
    io.stderr(`${describeError(error)}\n`);
    if (isArgError(error)) io.stderr(`\n${command.usage}\n`);
    return exitCodeOf(error);
  }
}

function isArgError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

function describeError(error: unknown): string {
  if (error instanceof InputError) {
    const lines = error.errors.map((e) => `  ${e.property}: ${e.errorMessage}`);
    return [`error: ${error.message}`, ...lines].join('\n');
  }
  if (error instanceof DomainError || isArgError(error)) return `error: ${(error as Error).message}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `flagops — flags as code for a feature-control console\n\nUsage: flagops <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'flagops <command> --help' for a command's options.\n`;
}
