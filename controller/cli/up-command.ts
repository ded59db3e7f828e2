import { resolve } from 'node:path';
import { assertBootstrapKey, readEnvConfig } from '../config.js';
import { runUp } from '../run-up.js';
import { stringOption, type Command } from './command.js';
import { progressPrinter } from './apply-command.js';
import { intOption, stderrLogger } from './cli-helpers.js';

export const upCommand: Command = {
  name: 'up',
  summary: 'Run the whole loop on embedded defaults: console, bridge and reconciler (npm start)',
  usage: `Usage: flagops up [--state-dir .flagops] [--repo DIR] [--host 127.0.0.1] [--port 8080]
                  [--webhook-timeout MS] [--log-level warn]

  Starts the console on SQLite under --state-dir, the bridge registered as its pre-commit webhook, and
  the reconciler: it prepares a git repository of examples/config-repo (or uses --repo), applies it
  through reviews, prints the plan, the outcome, the console URL and key, then replans on every save and
  applies every new commit until Ctrl-C. Keys it creates are kept in <state-dir>/up-keys.json (mode 600).`,
  options: {
    'state-dir': { type: 'string', default: '.flagops' },
    repo: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8080' },
    'webhook-timeout': { type: 'string', default: '120000' },
    'log-level': { type: 'string', default: 'warn' },
  },
  async run(args, io) {
    const repo = stringOption(args, 'repo');
    const { bootstrapKey } = readEnvConfig(io.env);
    assertBootstrapKey(bootstrapKey);
    await runUp({
      stateDir: resolve(io.cwd, stringOption(args, 'state-dir') ?? '.flagops'),
      repoDir: repo === undefined ? undefined : resolve(io.cwd, repo),
      host: stringOption(args, 'host') ?? '127.0.0.1',
      port: intOption(args, 'port', 0, 65535),
      bootstrapKey,
      webhookTimeoutMs: intOption(args, 'webhook-timeout', 1, 24 * 3600 * 1000),
      logger: stderrLogger(io, stringOption(args, 'log-level') ?? 'warn'),
      print: (text) => io.stdout(text),
      progress: progressPrinter(io, 'text'),
      signal: io.signal,
    });
    return 0;
  },
};
