import type { Command } from './command.js';
import { keysCommand } from './keys-command.js';
import { serveCommand } from './serve-command.js';

/** Every CLI command, in the order `flagops --help` lists them. */
export const COMMANDS: readonly Command[] = [serveCommand, keysCommand];
