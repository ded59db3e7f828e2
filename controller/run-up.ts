/**
 * `flagops up`: the console, the bridge and the reconciler on one machine, wired from compose.ts.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyServerOptions } from 'fastify';
import { simpleGit } from 'simple-git';
import { createBridge } from './bridge/create-bridge.js';
import { createConsole } from './compose.js';
import type { Actor } from './console/permissions.js';
import { applyRepo, type ApplyEvent } from './reconcile/apply-service.js';
import { ConsoleClient } from './reconcile/console-client.js';
import { createWatchCycle } from './reconcile/watch-cycle.js';
import { FsRepoReader } from './source/fs-repo-reader.js';
import { watchRepo } from './source/watch-repo.js';

export interface UpOptions {
  /** Where the database, the prepared repository and the keys of `up` live. */
  stateDir: string;
  /** A git repository to reconcile instead of a copy of examples/config-repo. */
  repoDir?: string;
  host: string;
  port: number;
  bootstrapKey?: string;
  webhookTimeoutMs?: number;
  logger?: FastifyServerOptions['logger'];
  print: (text: string) => void;
  progress: (event: ApplyEvent) => void;
  signal: AbortSignal;
}

interface UpKeys {
  admin?: string;
  submitter?: string;
  approver?: string;
  bridge?: string;
  webhook?: string;
}

/** The package root, found upward from this file (works from controller/ and from dist/controller/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

async function prepareRepo(dir: string, print: (text: string) => void): Promise<void> {
  if (existsSync(join(dir, '.git'))) return;
  cpSync(join(packageRoot(), 'examples', 'config-repo'), dir, { recursive: true });
  const git = simpleGit(dir);
  await git.init(['-b', 'main']);
  await git.addConfig('user.email', 'flagops-up@localhost').addConfig('user.name', 'flagops up');
  await git.add(['-A']);
  await git.commit('flagops up: the example flags');
  print(`Prepared a git repository of the example flags in ${dir}.\n`);
}

/**
 * `flagops up`: the whole loop on one machine. The console on SQLite, the bridge registered as its
 * pre-commit webhook, and the reconciler applying the repository through reviews; afterwards every
 * save is replanned and every new commit applied, until the signal aborts.
 */
export async function runUp(options: UpOptions): Promise<void> {
  mkdirSync(options.stateDir, { recursive: true });
  const repoDir = options.repoDir ?? join(options.stateDir, 'config-repo');
  await prepareRepo(repoDir, options.print);
  const keysFile = join(options.stateDir, 'up-keys.json');
  const saved: UpKeys = existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as UpKeys) : {};

  const consoleInstance = createConsole({ db: join(options.stateDir, 'console.db'), bootstrapKey: options.bootstrapKey ?? saved.admin, webhookTimeoutMs: options.webhookTimeoutMs, logger: options.logger });
  await consoleInstance.app.ready();
  const actorOf = async (secret: string | undefined): Promise<Actor | undefined> => {
    try {
      return secret === undefined ? undefined : await consoleInstance.auth.authenticate(secret);
    } catch {
      return undefined;
    }
  };
  const keyFor = async (secret: string | undefined, email: string, description: string, role = 'member'): Promise<string> => {
    const actor = await actorOf(secret);
    if (secret === undefined || actor === undefined) return (await consoleInstance.auth.createKey({ description, userEmail: email, role })).secret;
    // A state dir from before webhook_receiver existed holds a member bridge key, which can no longer validate.
    if (actor.role !== role && actor.keyId !== null) await consoleInstance.auth.updateKey(actor.keyId, { role });
    return secret;
  };
  const keys: Required<UpKeys> = {
    admin: consoleInstance.bootstrap.secret ?? ((await actorOf(options.bootstrapKey)) !== undefined ? (options.bootstrapKey ?? '') : (saved.admin ?? '')),
    submitter: await keyFor(saved.submitter, 'flagops-up@localhost', 'flagops up: submits reviews'),
    approver: await keyFor(saved.approver, 'release-bot@acme.example', 'flagops up: approves reviews'),
    bridge: await keyFor(saved.bridge, 'bridge@localhost', 'flagops up: the bridge', 'webhook_receiver'),
    webhook: saved.webhook ?? randomBytes(24).toString('base64url'),
  };
  writeFileSync(keysFile, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });

  const address = new URL(await consoleInstance.app.listen({ host: options.host, port: options.port }));
  const url = `http://${options.host}:${address.port}`;
  consoleInstance.setPublicUrl(url);
  options.print(`flagops console listening on ${url}\n`);
  const client = (key: string): ConsoleClient => new ConsoleClient({ baseUrl: url, apiKey: key });

  const branch = (await simpleGit(repoDir).revparse(['--abbrev-ref', 'HEAD'])).trim();
  const { app: bridgeApp } = createBridge({
    repoDir,
    branch,
    console: client(keys.bridge),
    webhookKey: keys.webhook,
    failOpen: false,
    logger: options.logger,
    log: (line) => options.print(`bridge: ${line}\n`),
  });
  const bridgeUrl = new URL(await bridgeApp.listen({ host: '127.0.0.1', port: 0 }));
  const admin = client(keys.admin);
  await admin.request('POST', '/console/v1/settings/precommit_webhook', {
    webhookURL: `http://127.0.0.1:${bridgeUrl.port}/webhook`,
    webhookKey: keys.webhook,
    initialMessage: `flagops bridge checks every change against ${branch} of ${repoDir}.`,
  });
  options.print(`flagops bridge listening on http://127.0.0.1:${bridgeUrl.port} (registered as the console's pre-commit webhook)\n`);

  const desired = new FsRepoReader(repoDir);
  const submitter = client(keys.submitter);
  const approver = client(keys.approver);
  let running = Promise.resolve();
  const applyNow = (why: string): Promise<void> =>
    (running = running.then(async () => {
      options.print(`\n== apply (${why})\n`);
      try {
        const report = await applyRepo({ desired, client: submitter, approver, commit: (await simpleGit(repoDir).revparse(['HEAD'])).trim(), onEvent: options.progress, desiredLabel: repoDir });
        const counts = new Map<string, number>();
        for (const o of report.outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
        const summary = [...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'nothing to do';
        options.print(`Outcome: ${summary}; ${report.replan.changes.length === 0 ? 'the console matches the repository.' : `${report.replan.changes.length} change(s) remain.`}\n`);
      } catch (error) {
        options.print(`apply failed: ${(error as Error).message}\n`);
      }
    }));
  await applyNow('start');
  options.print(
    [
      '',
      `Console:  ${url}/   (the web console; sign in with the admin key: ${keys.admin || 'see the first run'}; keys of up in ${keysFile})`,
      `Repo:     ${repoDir} (branch ${branch})`,
      'Edit a file there and save to see its plan; commit it and up applies it through a review, the',
      "bridge and the pre-commit webhook. A console change that is not in git is rejected by the bridge.",
      'Ctrl-C stops.',
      '',
    ].join('\n'),
  );

  const cycle = createWatchCycle({ desired, desiredLabel: repoDir, client: submitter, print: options.print });
  let head = (await simpleGit(repoDir).revparse(['HEAD'])).trim();
  const poll = setInterval(() => {
    void simpleGit(repoDir)
      .revparse(['HEAD'])
      .then((now) => {
        if (now.trim() === head) return;
        head = now.trim();
        void applyNow(`new commit ${head.slice(0, 12)}`);
      })
      .catch(() => undefined);
  }, 1000);
  try {
    await watchRepo(repoDir, async () => void (await cycle()), { signal: options.signal, onReady: () => options.print(`Watching ${repoDir} for saves.\n`) });
  } finally {
    clearInterval(poll);
    await running;
    await bridgeApp.close();
    await consoleInstance.close();
  }
}
