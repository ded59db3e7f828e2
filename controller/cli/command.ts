import type { ParseArgsConfig } from 'node:util';

/** What a command may touch of the outside world; main.ts is the only place that fills it from `process`. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Environment variables, read by commands only through this object. */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** Aborted on SIGTERM/SIGINT: long-running commands stop gracefully and resolve. */
  signal: AbortSignal;
  /**
   * Asks the person at the terminal and resolves with the line they type; undefined when stdin is not
   * a terminal (or is closed), so a command never waits on a pipe.
   */
  prompt?(question: string): Promise<string | undefined>;
}

export type CliOptions = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  /** Usage lines shown by `flagops <name> --help`. */
  usage: string;
  options: CliOptions;
  allowPositionals?: boolean;
  /** Resolves to the exit code: 0 success, 1 failure, 2 plan has changes (plan --detailed-exitcode). */
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanOption(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}
