import { resolve } from 'node:path';
import { DEFAULT_PROGRESS_AFTER_MS } from '../bridge/bridge-service.js';
import { createBridge } from '../bridge/create-bridge.js';
import { isHttpUrl } from '../../schemas/http-url.js';
import { escapeControl } from '../core/escape-control.js';
import { InputError } from '../errors.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { readRepoConfig } from '../source/load-repo.js';
import { booleanOption, stringOption, type Command } from './command.js';
import { intOption, keyFromEnv, stderrLogger } from './cli-helpers.js';
import { consoleClientFor } from './reconcile-options.js';

export const bridgeCommand: Command = {
  name: 'bridge',
  summary: "Receive the console's pre-commit webhook and approve only changes that match git",
  usage: `Usage: flagops bridge [--repo DIR] [--subdir PATH] [--branch main] [--host 127.0.0.1] [--port 8787]
                      [--console URL] [--webhook-key-env FLAGOPS_WEBHOOK_KEY] [--fail-open]
                      [--debug-link-template URL] [--progress-after ${DEFAULT_PROGRESS_AFTER_MS}] [--log-level warn]

  Serves POST /webhook. Each delivery must carry x-service-webhook-key equal to the variable
  --webhook-key-env names (401 otherwise). The bridge fetches --branch of the git clone in --repo
  (from origin when it has one), sends a progress message when the check takes longer than
  --progress-after ms (0: for every change), and approves the change through
  /console/v1/change_validation only when the proposed config equals the entity's file at that commit and
  passes flagops.yaml's bridge policies (protected entities, max pass-percentage step, freeze windows)
  at the same commit. A git failure rejects, unless --fail-open. The console key comes from the
  variable flagops.yaml console.apiKeyEnv names: a key of the webhook_receiver role, whose user submits,
  approves and commits nothing (a participant in a change cannot decide its validation).
  Prints "flagops bridge listening on http://HOST:PORT" when ready.`,
  options: {
    repo: { type: 'string', default: '.' },
    subdir: { type: 'string', default: '' },
    branch: { type: 'string', default: 'main' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    console: { type: 'string' },
    'webhook-key-env': { type: 'string', default: 'FLAGOPS_WEBHOOK_KEY' },
    'fail-open': { type: 'boolean' },
    'debug-link-template': { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    'progress-after': { type: 'string', default: String(DEFAULT_PROGRESS_AFTER_MS) },
  },
  async run(args, io) {
    const debugLinkTemplate = stringOption(args, 'debug-link-template');
    // The console accepts only http(s) debug links: a template that can't make one would fail every decision.
    if (debugLinkTemplate !== undefined && !isHttpUrl(debugLinkTemplate.replaceAll(/\{(commit|path|branch)\}/g, 'x'))) {
      throw new InputError('Invalid options.', [{ property: '--debug-link-template', errorMessage: 'must be an absolute http or https URL ({commit}, {path} and {branch} are filled in)' }]);
    }
    const repoDir = resolve(io.cwd, stringOption(args, 'repo') ?? '.');
    const subdir = stringOption(args, 'subdir') ?? '';
    const config = await readRepoConfig(new FsRepoReader(resolve(repoDir, subdir)));
    const keyEnv = stringOption(args, 'webhook-key-env') ?? 'FLAGOPS_WEBHOOK_KEY';
    const webhookKey = keyFromEnv(io.env, keyEnv, 'webhook key', '--webhook-key-env names it');
    const port = intOption(args, 'port', 0, 65535);
    const host = stringOption(args, 'host') ?? '127.0.0.1';
    const { app } = createBridge({
      repoDir,
      subdir,
      branch: stringOption(args, 'branch') ?? 'main',
      console: consoleClientFor(args, io, config),
      webhookKey,
      failOpen: booleanOption(args, 'fail-open'),
      debugLinkTemplate,
      managedTag: config.prune.managedTag,
      logger: stderrLogger(io, stringOption(args, 'log-level') ?? 'warn'),
      // A line quotes review ids and field paths from the console's payload.
      log: (line) => io.stderr(`bridge: ${escapeControl(line, true)}\n`),
      progressAfterMs: intOption(args, 'progress-after', 0, 120_000),
    });
    const address = new URL(await app.listen({ host, port }));
    io.stdout(`flagops bridge listening on http://${host}:${address.port}\n`);
    await new Promise<void>((done) => {
      if (io.signal.aborted) done();
      io.signal.addEventListener('abort', () => done(), { once: true });
    });
    await app.close();
    return 0;
  },
};
