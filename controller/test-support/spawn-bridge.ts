import { spawn } from 'node:child_process';
import { BIN } from './spawn-console.js';

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
