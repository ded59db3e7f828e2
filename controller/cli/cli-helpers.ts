import { InputError } from '../errors.js';
import { stringOption, type CliIO, type ParsedArgs } from './command.js';

export function intOption(args: ParsedArgs, name: string, min: number, max: number): number {
  const text = stringOption(args, name) ?? '';
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new InputError('Invalid option.', [{ property: `--${name}`, errorMessage: `must be an integer from ${min} to ${max}` }]);
  }
  return Number(text);
}

/** Pino options that send the console's logs to stderr (stdout carries results only). */
export function stderrLogger(io: CliIO, level: string): { level: string; stream: { write(line: string): void } } {
  return { level, stream: { write: (line: string) => io.stderr(line) } };
}
