import type { Command } from './command.js';
import { completionCommand } from './completion-command.js';
import { fmtCommand } from './fmt-command.js';
import { statusCommand } from './status-command.js';

/**
 * A command known by name and summary only: its module, and everything that module imports (fastify,
 * better-sqlite3, simple-git, chokidar, ...), loads when the command runs or shows its own help, so
 * `flagops --help` and `flagops validate` don't pay for the console.
 */
export interface LazyCommand {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export type CommandSource = Command | LazyCommand;

export function isLazy(source: CommandSource): source is LazyCommand {
  return 'load' in source;
}

/** The command itself: loads a lazy command's module. */
export async function loadCommand(source: CommandSource): Promise<Command> {
  return isLazy(source) ? source.load() : source;
}

/** Every CLI command, in the order `flagops --help` lists them. Summaries equal the modules' own (a test checks). */
export const COMMANDS: readonly CommandSource[] = [
  { name: 'up', summary: 'Run the whole loop on embedded defaults: console, bridge and reconciler (npm start)', load: async () => (await import('./up-command.js')).upCommand },
  { name: 'serve', summary: 'Run the console HTTP API on SQLite (the default) or PostgreSQL', load: async () => (await import('./serve-command.js')).serveCommand },
  { name: 'keys', summary: 'Create an API key directly in a console database', load: async () => (await import('./keys-command.js')).keysCommand },
  { name: 'validate', summary: 'Check a config repository: schemas, rules, references (exit 1 on any error)', load: async () => (await import('./validate-command.js')).validateCommand },
  { name: 'plan', summary: 'Show what applying the config repository would change (or what a PR changes)', load: async () => (await import('./plan-command.js')).planCommand },
  { name: 'apply', summary: 'Apply the config repository: review submissions, approval, validation, commit', load: async () => (await import('./apply-command.js')).applyCommand },
  statusCommand,
  { name: 'eval', summary: 'Evaluate a flag for a user: the value, the deciding rule and why earlier rules did not match', load: async () => (await import('./eval-command.js')).evalCommand },
  { name: 'test', summary: "Run the repository's flag tests (tests/*.yaml) with the evaluation engine (exit 1 on a failure)", load: async () => (await import('./test-command.js')).testCommand },
  fmtCommand,
  { name: 'export', summary: 'Write every live console entity as canonical YAML files', load: async () => (await import('./export-command.js')).exportCommand },
  { name: 'watch', summary: 'Revalidate and replan on every save; --apply reconciles continuously', load: async () => (await import('./watch-command.js')).watchCommand },
  { name: 'bridge', summary: "Receive the console's pre-commit webhook and approve only changes that match git", load: async () => (await import('./bridge-command.js')).bridgeCommand },
  completionCommand,
];
