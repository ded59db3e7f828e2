import { resolve } from 'node:path';
import { InputError } from '../errors.js';
import type { ConsoleClient } from '../reconcile/console-client.js';
import type { RepoConfig } from '../../schemas/repo-config.js';
import type { RepoReadOptions } from '../source/repo-reader.js';
import { booleanOption, stringOption, type CliIO, type CliOptions, type ParsedArgs } from './command.js';
import { consoleClientWithKeyFrom, consoleUrlOf, keyFromEnv } from './cli-helpers.js';
import { packageVersion } from './package-version.js';

export const CLI_VERSION = packageVersion();

/** A string option restricted to a set of values. */
export function oneOf<T extends string>(args: ParsedArgs, name: string, allowed: readonly T[]): T {
  const value = stringOption(args, name) ?? allowed[0];
  if (!allowed.includes(value as T)) throw new InputError('Invalid option.', [{ property: `--${name}`, errorMessage: `must be one of ${allowed.join(', ')}` }]);
  return value as T;
}

/** The config repository directory: the single positional argument, default the current directory. */
export function repoDir(args: ParsedArgs, io: CliIO): string {
  if (args.positionals.length > 1) throw new InputError('Too many arguments.', [{ property: 'DIR', errorMessage: 'give at most one directory' }]);
  return resolve(io.cwd, args.positionals[0] ?? '.');
}

/**
 * A console client from flagops.yaml's console section: `--console` overrides the URL, the key comes
 * from the environment variable `console.apiKeyEnv` names (never from a file).
 */
export function consoleClientFor(args: ParsedArgs, io: CliIO, config: Pick<RepoConfig, 'console'>): ConsoleClient {
  const url = consoleUrlOf(stringOption(args, 'console'), config.console.url);
  const keyEnv = config.console.apiKeyEnv;
  const key = keyFromEnv(io.env, keyEnv, 'console API key', 'flagops.yaml console.apiKeyEnv names it');
  return consoleClientWithKeyFrom(keyEnv, { baseUrl: url, apiKey: key, signal: io.signal });
}

/** ANSI colours only on a terminal, and never with NO_COLOR set (https://no-color.org). */
export function colorFor(io: CliIO): boolean {
  return io.isTTY && (io.env['NO_COLOR'] ?? '') === '';
}

/** `--target kind/id`, repeatable; checked against the repository and the console when planning. */
export function targetsOption(args: ParsedArgs): string[] {
  const value = args.values['target'];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return [...new Set(list.filter((v): v is string => typeof v === 'string'))];
}

/** Options of every command that reads a config repository. */
export const READ_OPTIONS: CliOptions = {
  'max-file-size': { type: 'string' },
  'max-repo-size': { type: 'string' },
  'allow-empty': { type: 'boolean' },
};

export const READ_OPTIONS_USAGE = `  --max-file-size SIZE, --max-repo-size SIZE raise (or lower) the limits of what is read, per file
  (default 1MiB) and in total (default 64MiB), over flagops.yaml's limits; SIZE in bytes or with
  KiB, MiB, GiB. --allow-empty accepts a folder with neither flagops.yaml nor a kind folder.`;

const SIZE = /^(\d+)\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)$/i;

function sizeOption(args: ParsedArgs, name: string): number | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  const match = SIZE.exec(value.trim());
  // Units are binary whatever their spelling: a limit, not a disk label.
  const power = { k: 1, m: 2, g: 3 }[(match?.[2] ?? '').charAt(0).toLowerCase()] ?? 0;
  const bytes = match ? Number(match[1]) * 1024 ** power : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new InputError('Invalid option.', [{ property: `--${name}`, errorMessage: 'must be a size of at least 1 byte: a number of bytes, or with KiB, MiB or GiB (e.g. 4MiB)' }]);
  }
  return bytes;
}

/** What the reader options ask for: flags over flagops.yaml's limits, and stop on SIGTERM/SIGINT. */
export function readOptions(args: ParsedArgs, io: CliIO): RepoReadOptions {
  const maxFileBytes = sizeOption(args, 'max-file-size');
  const maxRepoBytes = sizeOption(args, 'max-repo-size');
  return {
    limits: { ...(maxFileBytes !== undefined ? { maxFileBytes } : {}), ...(maxRepoBytes !== undefined ? { maxRepoBytes } : {}) },
    allowEmpty: booleanOption(args, 'allow-empty'),
    signal: io.signal,
  };
}
