import { applyCommand } from './apply-command.js';
import { bridgeCommand } from './bridge-command.js';
import type { Command } from './command.js';
import { exportCommand } from './export-command.js';
import { keysCommand } from './keys-command.js';
import { planCommand } from './plan-command.js';
import { serveCommand } from './serve-command.js';
import { upCommand } from './up-command.js';
import { validateCommand } from './validate-command.js';
import { watchCommand } from './watch-command.js';

/** Every CLI command, in the order `flagops --help` lists them. */
export const COMMANDS: readonly Command[] = [upCommand, serveCommand, keysCommand, validateCommand, planCommand, applyCommand, exportCommand, watchCommand, bridgeCommand];
