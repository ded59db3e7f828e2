import { resolve } from 'node:path';
import { escapeControl } from '../core/escape-control.js';
import { InputError } from '../errors.js';
import { booleanOption, type Command } from './command.js';

export const fmtCommand: Command = {
  name: 'fmt',
  summary: 'Rewrite entity files in canonical key order and formatting, comments kept (--check for CI)',
  usage: `Usage: flagops fmt [DIR] [--check]

  Rewrites every <folder>/<id>.yaml under DIR (default: the current directory) in canonical form:
  keys in the schema's field order (the id first, as flagops export writes them), multi-line strings
  as literal blocks, one indentation style. Comments, list styles and quoting stay as written; what a
  file declares never changes. A file that does not parse is reported as file:line:col and nothing is
  written. --check writes nothing, lists the files that would change and exits 1 when there are any.`,
  options: {
    check: { type: 'boolean' },
  },
  allowPositionals: true,
  async run(args, io) {
    if (args.positionals.length > 1) throw new InputError('Too many arguments.', [{ property: 'DIR', errorMessage: 'give at most one directory' }]);
    const label = args.positionals[0] ?? '.';
    const check = booleanOption(args, 'check');
    // Loaded when the command runs: the registry imports this module for --help and completion.
    const { fmtRepo } = await import('../source/fmt-repo.js');
    const report = await fmtRepo(resolve(io.cwd, label), { check, signal: io.signal });
    const list = report.changed.map((path) => `  ${escapeControl(path, true)}\n`).join('');
    if (check) {
      if (report.changed.length === 0) {
        io.stdout(`${report.checked} entity file(s) in ${label} are formatted.\n`);
        return 0;
      }
      io.stdout(`${report.changed.length} of ${report.checked} entity file(s) in ${label} are not formatted (run flagops fmt):\n${list}`);
      return 1;
    }
    io.stdout(report.changed.length === 0 ? `${report.checked} entity file(s) in ${label} were already formatted.\n` : `Formatted ${report.changed.length} of ${report.checked} entity file(s) in ${label}:\n${list}`);
    return 0;
  },
};
