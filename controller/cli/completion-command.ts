import { InputError } from '../errors.js';
import type { Command } from './command.js';
import { completionScript, SHELLS, valuesFromUsage, type CompletionCommand, type Shell } from './completion-script.js';

export const completionCommand: Command = {
  name: 'completion',
  summary: 'Print a shell completion script (bash, zsh or fish) for every command and its flags',
  usage: `Usage: flagops completion bash|zsh|fish

  Prints a completion script for the shell, generated from the commands and their options. Save it
  once (generating loads every command):
    bash   flagops completion bash > ~/.local/share/bash-completion/completions/flagops
    zsh    flagops completion zsh > "\${fpath[1]}/_flagops"      (then restart zsh)
    fish   flagops completion fish > ~/.config/fish/completions/flagops.fish
  source <(flagops completion bash|zsh) loads it into the current shell only.`,
  options: {},
  allowPositionals: true,
  async run(args, io) {
    const [shell, ...extra] = args.positionals;
    if (shell === undefined || !SHELLS.includes(shell as Shell) || extra.length > 0) {
      throw new InputError('Invalid arguments.', [{ property: 'SHELL', errorMessage: `must be one of ${SHELLS.join(', ')} (got ${shell === undefined ? 'nothing' : `'${[shell, ...extra].join(' ')}'`})` }]);
    }
    // Loaded here, not at the top: the registry lists this command, and only generating a script needs every command's options.
    const { COMMANDS, loadCommand } = await import('./commands.js');
    const commands = await Promise.all(COMMANDS.map(loadCommand));
    const described = commands.map(
      (c): CompletionCommand => ({
        name: c.name,
        summary: c.summary,
        takesPositionals: c.allowPositionals === true,
        options: Object.entries(c.options).map(([name, option]) => ({ name, takesValue: option.type === 'string', values: valuesFromUsage(c.usage, name) })),
      }),
    );
    io.stdout(completionScript(shell as Shell, described));
    return 0;
  },
};
