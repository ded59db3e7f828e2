/** What a completion script needs of one command: its name, summary and flags. */
export interface CompletionCommand {
  name: string;
  summary: string;
  options: CompletionOption[];
  takesPositionals: boolean;
}

export interface CompletionOption {
  /** Without dashes. */
  name: string;
  takesValue: boolean;
  /** Values the option accepts, when the command's usage lists them (`--format text|json`). */
  values: string[];
}

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

const GLOBAL_FLAGS = ['--help', '--version'];

export function completionScript(shell: Shell, commands: readonly CompletionCommand[]): string {
  if (shell === 'bash') return bashScript(commands);
  if (shell === 'zsh') return zshScript(commands);
  return fishScript(commands);
}

/** The values a usage text lists for an option, as in `--format text|json|sarif`. */
export function valuesFromUsage(usage: string, option: string): string[] {
  const match = new RegExp(`--${option.replace(/[-]/g, '\\-')}[ =]([A-Za-z0-9_-]+(?:\\|[A-Za-z0-9_-]+)+)`).exec(usage);
  return match?.[1]?.split('|') ?? [];
}

const bashWords = (words: readonly string[]): string => words.join(' ');

function bashScript(commands: readonly CompletionCommand[]): string {
  const cases = commands.map((c) => {
    const valueCases = c.options
      .filter((o) => o.takesValue)
      .map((o) => `        --${o.name}) ${o.values.length > 0 ? `COMPREPLY=( $(compgen -W "${bashWords(o.values)}" -- "$cur") ); ` : ''}return ;;`);
    const flags = bashWords([...c.options.map((o) => `--${o.name}`), '--help']);
    return [
      `    ${c.name})`,
      ...(valueCases.length > 0 ? ['      case "$prev" in', ...valueCases, '      esac'] : []),
      `      if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "${flags}" -- "$cur") ); fi`,
      '      ;;',
    ].join('\n');
  });
  return `# flagops completion for bash. Load it with: source <(flagops completion bash)
_flagops() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${bashWords([...commands.map((c) => c.name), 'help', ...GLOBAL_FLAGS])}" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
    help)
      COMPREPLY=( $(compgen -W "${bashWords(commands.map((c) => c.name))}" -- "$cur") )
      ;;
${cases.join('\n')}
  esac
}
complete -o default -F _flagops flagops
`;
}

const zshQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function zshScript(commands: readonly CompletionCommand[]): string {
  const described = commands.map((c) => `    ${zshQuote(`${c.name}:${c.summary}`)}`);
  const cases = commands.map((c) => {
    const specs = c.options.map((o) => {
      if (!o.takesValue) return zshQuote(`--${o.name}`);
      const action = o.values.length > 0 ? `(${o.values.join(' ')})` : '_files';
      return zshQuote(`--${o.name}=:${o.name}:${action}`);
    });
    if (c.takesPositionals) specs.push(zshQuote('*:directory:_files -/'));
    return `    ${c.name}) _arguments ${[zshQuote('--help'), ...specs].join(' ')} ;;`;
  });
  return `#compdef flagops
# flagops completion for zsh. Load it with: source <(flagops completion zsh) (after compinit)
_flagops() {
  local -a commands
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'flagops command' commands
    return
  fi
  shift words
  (( CURRENT-- ))
  case $words[1] in
    help) _describe 'flagops command' commands ;;
${cases.join('\n')}
  esac
}
compdef _flagops flagops
`;
}

const fishQuote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fishScript(commands: readonly CompletionCommand[]): string {
  const lines = [
    '# flagops completion for fish. Load it with: flagops completion fish | source',
    'complete -c flagops -f',
    "complete -c flagops -n __fish_use_subcommand -l help -d 'Show help'",
    "complete -c flagops -n __fish_use_subcommand -l version -d 'Print the version'",
    "complete -c flagops -n __fish_use_subcommand -a help -d 'Show the options of a command'",
  ];
  for (const c of commands) {
    lines.push(`complete -c flagops -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.summary)}`);
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    lines.push(`complete -c flagops ${when} -l help`);
    for (const o of c.options) {
      if (!o.takesValue) lines.push(`complete -c flagops ${when} -l ${o.name}`);
      else if (o.values.length > 0) lines.push(`complete -c flagops ${when} -l ${o.name} -x -a ${fishQuote(o.values.join(' '))}`);
      else lines.push(`complete -c flagops ${when} -l ${o.name} -r -F`);
    }
    if (c.takesPositionals) lines.push(`complete -c flagops ${when} -a '(__fish_complete_directories)'`);
  }
  return `${lines.join('\n')}\n`;
}
