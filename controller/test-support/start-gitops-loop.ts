import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitRepo } from './git-repo.js';
import { connectBridge, type LoopKeys, type SpawnedBridge } from './spawn-bridge.js';
import { spawnConsole, type SpawnedConsole } from './spawn-console.js';

export interface GitOpsLoop {
  dir: string;
  /** The flag repository, `main` holding `files` in one commit. */
  repo: string;
  console_: SpawnedConsole;
  keys: LoopKeys;
  bridge: SpawnedBridge;
  /** Stops the bridge and the console and removes the folder. */
  stop: () => Promise<void>;
}

/**
 * The whole GitOps loop of the e2e tests: a git repository of `files`, a spawned console (webhook
 * window 20 s) and a bridge wired to it as a team would (connectBridge).
 */
export async function startGitOpsLoop(options: { prefix: string; files: Record<string, string>; message: string; checkResponses?: boolean; webhookKey: string; initialMessage?: string }): Promise<GitOpsLoop> {
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  const repo = join(dir, 'repo');
  await createGitRepo(repo, options.files, options.message);
  const console_ = await spawnConsole({ db: join(dir, 'console.db'), args: ['--webhook-timeout', '20000'], checkResponses: options.checkResponses === true });
  const { keys, bridge } = await connectBridge(console_, repo, options.webhookKey, options.initialMessage);
  return {
    dir,
    repo,
    console_,
    keys,
    bridge,
    stop: async () => {
      bridge.stop();
      await console_.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
