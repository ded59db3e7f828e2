import { spawn } from 'node:child_process';
import { BIN, callConsole, type SpawnedConsole } from './spawn-console.js';

export interface SpawnedBridge {
  url: string;
  stop: () => void;
  stderr: () => string;
}

/**
 * Starts `flagops bridge --port 0` (the compiled CLI) on `repo`'s `main`, answering `consoleUrl` as
 * the holder of `apiKey`, and resolves once it prints its listening line.
 */
export function spawnBridge(options: { repo: string; consoleUrl: string; apiKey: string; webhookKey: string }): Promise<SpawnedBridge> {
  const child = spawn(process.execPath, [BIN, 'bridge', '--repo', options.repo, '--branch', 'main', '--port', '0', '--console', options.consoleUrl], {
    env: { ...process.env, FLAGOPS_API_KEY: options.apiKey, FLAGOPS_WEBHOOK_KEY: options.webhookKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bridge exited ${code}: ${err}`)));
    child.stdout.on('data', (c: Buffer) => {
      const match = /flagops bridge listening on (\S+)/.exec(c.toString());
      if (match?.[1]) resolve({ url: match[1], stop: () => child.kill('SIGTERM'), stderr: () => err });
    });
  });
}

/** The keys of a GitOps loop: apply's submitter and approver, the bridge's, and a person's. */
export type LoopKeys = Record<'submitter' | 'approver' | 'bridge' | 'member', string>;

/**
 * Wires a spawned console to a bridge on `repo` as a team would: a key per role, the bridge started
 * with its own (webhook_receiver) key, and registered as the console's pre-commit webhook.
 */
export async function connectBridge(console_: SpawnedConsole, repo: string, webhookKey: string, initialMessage?: string): Promise<{ keys: LoopKeys; bridge: SpawnedBridge }> {
  const keys = {} as LoopKeys;
  for (const [name, email, role] of [['submitter', 'flagops@ci.example.com', 'member'], ['approver', 'lead@example.com', 'member'], ['bridge', 'bridge@example.com', 'webhook_receiver'], ['member', 'dev@example.com', 'member']] as const) {
    keys[name] = String((await callConsole(console_, 'POST', '/console/v1/keys', { description: name, userEmail: email, role })).body.data.key);
  }
  const bridge = await spawnBridge({ repo, consoleUrl: console_.url, apiKey: keys.bridge, webhookKey });
  const set = await callConsole(console_, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridge.url}/webhook`, webhookKey, ...(initialMessage === undefined ? {} : { initialMessage }) });
  if (set.status !== 200) throw new Error(`precommit_webhook settings: HTTP ${set.status}`);
  return { keys, bridge };
}
