import { parseArgs } from 'node:util';
import { didYouMean } from '../core/did-you-mean.js';
import { exitCodeOf } from '../error-table.js';
import { escapeControl } from '../core/escape-control.js';
import { DomainError, formatFieldError, InputError, type FieldError } from '../errors.js';
import type { CliIO, Command, ParsedArgs } from './command.js';
import { loadCommand, type CommandSource } from './commands.js';
import { packageVersion } from './package-version.js';

/** Parses argv (without node and script), runs the command, and turns any error into an exit code. */
export async function runCli(argv: string[], io: CliIO, commands: readonly CommandSource[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.stdout(usage(commands));
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`flagops ${packageVersion()}\n`);
    return 0;
  }
  const wantsHelp = name === 'help';
  const commandName = wantsHelp ? rest[0] : name;
  if (commandName === undefined) {
    io.stdout(usage(commands));
    return 0;
  }
  const source = commands.find((c) => c.name === commandName);
  if (!source) {
    const guess = didYouMean(commandName, commands.map((c) => c.name));
    const hint = guess !== undefined ? ` (did you mean '${guess}'?)` : commandName.startsWith('-') ? " (options go after the command, e.g. 'flagops plan --help')" : '';
    io.stderr(`error: unknown command '${commandName}'${hint}\n\n${usage(commands)}`);
    return 1;
  }
  let command: Command | undefined;
  try {
    command = await loadCommand(source);
    if (wantsHelp || rest.includes('--help') || rest.includes('-h')) {
      io.stdout(`${command.usage}\n`);
      return 0;
    }
    return await command.run(parseCommandArgs(command, rest), io);
  } catch (error) {
    io.stderr(`${describeError(error)}\n`);
    if (command && isUsageError(error)) io.stderr(`Run 'flagops ${command.name} --help' for its options.\n`);
    return exitCodeOf(error);
  }
}

/** Errors of the command line itself, where the command's options are the useful next read. */
class UsageError extends InputError {}

function isUsageError(error: unknown): boolean {
  return error instanceof UsageError;
}

/**
 * parseArgs, with its errors said in flagops' words: every unknown option at once, each with the
 * closest real one, instead of node's first-error text.
 */
export function parseCommandArgs(command: Command, args: string[]): ParsedArgs {
  const { tokens } = parseArgs({ args, options: command.options, allowPositionals: true, strict: false, tokens: true });
  const known = Object.keys(command.options);
  const unknown: FieldError[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(command.options, token.name)) continue;
    const guess = didYouMean(token.name, known);
    unknown.push({ property: token.rawName, errorMessage: `is not an option of 'flagops ${command.name}'${guess !== undefined ? ` (did you mean '--${guess}'?)` : ''}` });
  }
  if (unknown.length > 0) throw new UsageError(unknown.length === 1 ? 'Unknown option.' : 'Unknown options.', unknown);
  try {
    const parsed = parseArgs({ args, options: command.options, allowPositionals: command.allowPositionals ?? false, strict: true });
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    throw usageErrorOf(command, error);
  }
}

function usageErrorOf(command: Command, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof TypeError) || typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return error;
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError('Unexpected argument.', [{ property: quoted, errorMessage: `'flagops ${command.name}' takes no positional arguments` }]);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = quoted.split(' ')[0] ?? quoted;
    const option = command.options[flag.replace(/^-+/, '')];
    const what = option?.type === 'boolean' ? 'takes no value' : `needs a value (${flag} VALUE)`;
    return new UsageError('Invalid option.', [{ property: flag, errorMessage: what }]);
  }
  return new UsageError(error.message);
}

/** Messages may quote the console's answers or a file's text: control characters are escaped (a second escape changes nothing). */
function describeError(error: unknown): string {
  if (error instanceof InputError && error.errors.length > 0) {
    const lines = error.errors.map((e) => `  ${escapeControl(formatFieldError(e))}`);
    return [`error: ${escapeControl(error.message)}`, ...lines].join('\n');
  }
  if (error instanceof DomainError) return `error: ${escapeControl(error.message)}`;
  return `error: ${escapeControl(error instanceof Error ? error.message : String(error))}`;
}

function usage(commands: readonly CommandSource[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `flagops — flags as code for a feature-control console\n\nUsage: flagops <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'flagops <command> --help' for a command's options, 'flagops --version' for the version.\n`;
}
