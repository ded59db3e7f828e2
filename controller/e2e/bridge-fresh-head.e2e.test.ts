/**
 * The bridge judges a change against a head no older than the change: a commit made to git and
 * applied at once (no pause) is approved, every time. A real console on a real port (SQLite file),
 * a real bridge on a real port, real git repositories in a temporary folder, and apply in-process.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge } from '../bridge/create-bridge.js';
import { createConsole, type ConsoleInstance } from '../compose.js';
import { BUILTIN_ROLES } from '../console/permissions.js';
import { applyRepo } from '../reconcile/apply-service.js';
import { ConsoleClient } from '../reconcile/console-client.js';
import { GitRepoReader } from '../source/git-source.js';

const ADMIN_KEY = 'bridge-fresh-head-admin';
const WEBHOOK_KEY = 'bridge-fresh-head-webhook';
const ROUNDS = 20;

let dir: string;
let work: string;
let console_: ConsoleInstance;
let url: string;
let submitter: ConsoleClient;
let approver: ConsoleClient;
const bridges: FastifyInstance[] = [];

/** The bridge's key: a built-in role that may validate changes and read reviews, short of admin. */
function receiverRole(): string {
  const roles = Object.entries(BUILTIN_ROLES).filter(([name, permissions]) => name !== 'admin' && permissions.includes('validate_changes') && permissions.includes('read'));
  return roles[0]?.[0] ?? 'admin';
}

async function commitGate(passPercentage: number, branchNote: string): Promise<string> {
  const file = join(work, 'gates/fresh.yaml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `id: fresh\nname: fresh\ndescription: ${branchNote}\nrules:\n  - name: ramp\n    passPercentage: ${passPercentage}\n    conditions: [{ type: public }]\n`);
  const git = simpleGit(work);
  await git.add(['gates/fresh.yaml']);
  await git.commit(`fresh at ${passPercentage}`);
  return (await git.revparse(['HEAD'])).trim();
}

/** Applies the repository exactly as it is at `commit`, right away, recording the commit as `flagops apply` does. */
async function applyAt(commit: string): Promise<{ status: string; message: string; validation: string }> {
  const report = await applyRepo({ desired: await GitRepoReader.open(work, commit), client: submitter, approver, commit, waitTimeoutMs: 20_000 });
  const outcome = report.outcomes.find((o) => o.kind === 'gates' && o.id === 'fresh');
  if (!outcome?.reviewID) return { status: outcome?.status ?? 'none', message: outcome?.message ?? 'no change planned', validation: '' };
  const review = (await submitter.request<{ validation?: { message?: string | null } | null }>('GET', `/console/v1/reviews/${outcome.reviewID}`)).data;
  return { status: outcome.status, message: outcome.message, validation: review?.validation?.message ?? '' };
}

/** Starts a bridge on `repoDir` and points the console's pre-commit webhook at it. */
async function useBridge(repoDir: string): Promise<void> {
  const role = receiverRole();
  const key = (await console_.auth.createKey({ description: `bridge on ${repoDir}`, userEmail: `bridge-${bridges.length}@example.com`, role, scopes: [] })).secret;
  const { app } = createBridge({ repoDir, branch: 'main', console: new ConsoleClient({ baseUrl: url, apiKey: key }), webhookKey: WEBHOOK_KEY, failOpen: false, log: () => undefined });
  bridges.push(app);
  const address = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  await new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY }).request('POST', '/console/v1/settings/precommit_webhook', {
    webhookURL: `http://127.0.0.1:${address.port}/webhook`,
    webhookKey: WEBHOOK_KEY,
    initialMessage: 'Checked against git.',
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-fresh-head-'));
  work = join(dir, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\n');
  await simpleGit(work).init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev');
  await commitGate(0, 'initial');
  console_ = createConsole({ db: join(dir, 'console.db'), bootstrapKey: ADMIN_KEY, webhookTimeoutMs: 20_000 });
  url = `http://127.0.0.1:${new URL(await console_.app.listen({ host: '127.0.0.1', port: 0 })).port}`;
  submitter = new ConsoleClient({ baseUrl: url, apiKey: (await console_.auth.createKey({ description: 'ci', userEmail: 'ci@example.com', role: 'member', scopes: [] })).secret });
  approver = new ConsoleClient({ baseUrl: url, apiKey: (await console_.auth.createKey({ description: 'approver', userEmail: 'lead@example.com', role: 'member', scopes: [] })).secret });
}, 30_000);

afterAll(async () => {
  for (const bridge of bridges) await bridge.close();
  await console_?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a change committed to git and applied at once', () => {
  it(`is approved by a bridge reading the repository itself, ${ROUNDS} times in a row`, async () => {
    await useBridge(work);
    for (let round = 1; round <= ROUNDS; round++) {
      const commit = await commitGate(round, `local round ${round}`);
      const outcome = await applyAt(commit);
      expect({ round, ...outcome }).toEqual({ round, status: 'committed', message: expect.any(String) as string, validation: `Approved: matches gates/fresh.yaml at ${commit.slice(0, 12)} on main.` });
    }
  }, 120_000);

  it(`is approved by a bridge fetching its own clone, ${ROUNDS} times in a row`, async () => {
    const clone = join(dir, 'bridge-clone');
    await simpleGit().clone(work, clone);
    await useBridge(clone);
    for (let round = 1; round <= ROUNDS; round++) {
      const commit = await commitGate(ROUNDS + round, `clone round ${round}`);
      const outcome = await applyAt(commit);
      expect({ round, ...outcome }).toEqual({ round, status: 'committed', message: expect.any(String) as string, validation: `Approved: matches gates/fresh.yaml at ${commit.slice(0, 12)} on main.` });
    }
  }, 120_000);

  it('is rejected, naming both commits, when it was applied from a commit main does not contain', async () => {
    const git = simpleGit(work);
    const main = (await git.revparse(['HEAD'])).trim();
    await git.checkoutLocalBranch('feature');
    try {
      const feature = await commitGate(99, 'feature branch');
      const outcome = await applyAt(feature);
      expect(outcome.status).toBe('failed');
      expect(outcome.validation).toBe(
        `Rejected: the change was applied from commit ${feature.slice(0, 12)}, which main at ${main.slice(0, 12)} does not contain; merge it into main (and push it where the bridge fetches from) first.`,
      );
    } finally {
      await git.checkout('main');
    }
  }, 60_000);
});
