import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { startTestReceiver } from '../test-support/webhook-receiver.js';
import { applyRepo, type ApplyInput } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));

let c: TestConsole;
let dir: string;
let client: ConsoleClient;
let approver: ConsoleClient;
let admin: ConsoleClient;

const apply = (overrides: Partial<ApplyInput> = {}) =>
  applyRepo({ desired: new FsRepoReader(dir), client, approver, commit: 'abc123', pollIntervalMs: 5, sleep: async () => undefined, ...overrides });

/** A console of its own on a real port and a copy of the example repository, for one test. */
async function withOwnConsole(name: string, test: (env: { other: TestConsole; url: string; repo: string }) => Promise<void>): Promise<void> {
  const other = createTestConsole();
  const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
  const repo = await mkdtemp(join(tmpdir(), `flagops-apply-${name}-`));
  await cp(EXAMPLE, repo, { recursive: true });
  try {
    await test({ other, url, repo });
  } finally {
    await other.close();
    await rm(repo, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  c = createTestConsole();
  const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  client = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  approver = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('checkout-lead@acme.example', 'member') });
  admin = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('ops@example.com', 'admin') });
  dir = await mkdtemp(join(tmpdir(), 'flagops-apply-'));
  await cp(EXAMPLE, dir, { recursive: true });
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

describe('applyRepo', () => {
  it('applies the example repository: reviews for reviewed kinds, direct writes for the rest, then an empty plan', async () => {
    const report = await apply();
    expect(report.outcomes.filter((o) => o.status !== "committed" && o.status !== "written").map((o) => `${o.kind}/${o.id} ${o.status} ${o.message}`)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.replan.changes).toEqual([]);
    const gate = report.outcomes.find((o) => o.kind === 'gates');
    expect(gate).toMatchObject({ status: 'committed', reviewID: expect.any(String) });
    expect(report.outcomes.find((o) => o.kind === 'layers')).toMatchObject({ status: 'written' });
    const review = (await client.request('GET', `/console/v1/reviews/${gate!.reviewID}`)).data as Record<string, unknown>;
    expect(review['description']).toMatch(new RegExp(`plan ${report.planHash}, change [0-9a-f]{12}, commit abc123`));
    expect(review['status']).toBe('committed');
    const live = (await client.request('GET', '/console/v1/gates/new_checkout')).data as Record<string, unknown>;
    expect(live['tags']).toContain('flagops-managed');
  });

  it('changes nothing the second time', async () => {
    const audit = (await admin.request('GET', '/console/v1/audit_logs', undefined, { query: { limit: '1' } })).pagination?.totalItems;
    const report = await apply();
    expect(report.plan.changes).toEqual([]);
    expect(report.outcomes).toEqual([]);
    expect(report.ok).toBe(true);
    expect((await admin.request('GET', '/console/v1/audit_logs', undefined, { query: { limit: '1' } })).pagination?.totalItems).toBe(audit);
  });

  it('applies an edited file as an update through a review', async () => {
    const path = join(dir, 'gates/dark_mode.yaml');
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^description: .*$/m, 'description: Dark mode for everyone'));
    const report = await apply();
    expect(report.outcomes).toEqual([expect.objectContaining({ kind: 'gates', id: 'dark_mode', action: 'update', status: 'committed' })]);
    expect(report.ok).toBe(true);
  });

  it('reports a console edit by someone else as drift; detect leaves it, heal reverts it', async () => {
    await admin.request('PATCH', '/console/v1/gates/dark_mode', { description: 'edited in the console' });
    await admin.request('PATCH', '/console/v1/gates/kill_switch_payments', { isEnabled: false });
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(dir), client });
    expect(plan.changes.map((ch) => [ch.id, ch.action, ch.drift?.policy])).toEqual([
      ['dark_mode', 'drift', 'detect'],
      ['kill_switch_payments', 'drift', 'heal'],
    ]);
    const report = await apply();
    expect(report.outcomes.map((o) => [o.id, o.status])).toEqual([
      ['dark_mode', 'reported'],
      ['kill_switch_payments', 'committed'],
    ]);
    const killSwitch = (await client.request('GET', '/console/v1/gates/kill_switch_payments')).data as Record<string, unknown>;
    expect(killSwitch['isEnabled']).toBe(true);
    expect(report.replan.changes.map((ch) => ch.id)).toEqual(['dark_mode']);
  });

  it('adopts drift into the file when the policy says adopt, keeping its comments', async () => {
    const cfg = join(dir, 'flagops.yaml');
    await writeFile(cfg, (await readFile(cfg, 'utf8')).replace('gates/kill_switch_payments: heal', 'gates/kill_switch_payments: heal\n    gates/dark_mode: adopt'));
    const adopted: string[] = [];
    const report = await apply({
      adopt: async (change, live) => {
        adopted.push(`${change.kind}/${change.id}:${String(live['description'])}`);
      },
    });
    expect(adopted).toEqual(['gates/dark_mode:edited in the console']);
    expect(report.outcomes).toEqual([expect.objectContaining({ id: 'dark_mode', status: 'adopted' })]);
  });

  it('refuses a prune above maxDeletes unless forced, and deletes managed entities in reverse dependency order', async () => {
    for (const file of ['gates/maintenance_banner.yaml', 'gates/dark_mode.yaml', 'dynamic_configs/search_tuning.yaml', 'prompts/support_bot.yaml', 'layers/search_layer.yaml', 'experiments/search_ranking_test.yaml', 'holdouts/search_holdout.yaml']) {
      await unlink(join(dir, file));
    }
    await expect(apply({ prune: true })).rejects.toThrow(/more than prune.maxDeletes/);
    const report = await apply({ prune: true, force: true });
    const byId = new Map(report.outcomes.map((o) => [o.id, o]));
    expect(byId.get('maintenance_banner')).toMatchObject({ action: 'delete', status: 'committed' });
    expect(byId.get('search_holdout')).toMatchObject({ action: 'delete', status: 'written' });
    // AI configs have no delete in the console: the plan leaves that one and says so.
    expect(byId.has('support_bot')).toBe(false);
    expect(report.plan.warnings).toContainEqual(expect.stringMatching(/^No file declares prompts\/support_bot, and the console has no delete for its kind: it stays/));
    expect(report.replan.changes).toEqual([]);
    expect(report.ok).toBe(true);
  });
});

describe('applyRepo failures', () => {
  it('blocks only the dependents of a failed entity, and says which', async () => {
    await withOwnConsole('fail', async ({ other, url, repo }) => {
      // This approver is not among new_checkout's allowed reviewers: that review can't be approved.
      const report = await applyRepo({
        desired: new FsRepoReader(repo),
        client: new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') }),
        approver: new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('someone@example.com', 'member') }),
      });
      const byId = new Map(report.outcomes.map((o) => [o.id, o]));
      expect(byId.get('new_checkout')).toMatchObject({ status: 'failed', message: expect.stringMatching(/allowed reviewers/) });
      expect(byId.get('checkout_copy')).toMatchObject({ status: 'blocked', message: 'blocked by gates/new_checkout' });
      expect(byId.get('dark_mode')).toMatchObject({ status: 'committed' });
      expect(report.outcomes.filter((o) => o.status === 'blocked').every((o) => /new_checkout|button_color_test/.test(o.message))).toBe(true);
      expect(report.ok).toBe(false);
      expect(report.replan.changes.map((ch) => ch.id)).toContain('new_checkout');
    });
  });
});

describe('applyRepo, a change the console refuses', () => {
  it("reports the console's field errors with the failure, not only its message", async () => {
    await withOwnConsole('refused', async ({ other, url, repo }) => {
      const run = async () =>
        applyRepo({
          desired: new FsRepoReader(repo),
          client: new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') }),
          approver: new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('checkout-lead@acme.example', 'member') }),
          pollIntervalMs: 5,
          sleep: async () => undefined,
        });
      expect((await run()).ok).toBe(true);
      // button_color_test shares checkout_layer with an experiment at 50%: 60% more does not fit.
      const file = join(repo, 'experiments/button_color_test.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^allocation: .*$/m, 'allocation: 60'));
      const report = await run();
      expect(report.outcomes.find((o) => o.id === 'button_color_test')).toMatchObject({
        status: 'failed',
        message: expect.stringMatching(/Invalid experiment\. change\.allocation: exceeds what layer checkout_layer has left: its other experiments use 50%/),
        errors: [{ property: 'change.allocation', errorMessage: expect.stringMatching(/exceeds/) }],
      });
    });
  });
});

describe('applyRepo re-plan', () => {
  it('checks the files it applied: a file saved during the run is left to the next plan', async () => {
    await withOwnConsole('replan', async ({ other, url, repo }) => {
      const submitter = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') });
      const file = join(repo, 'gates/dark_mode.yaml');
      const report = await applyRepo({
        desired: new FsRepoReader(repo),
        client: submitter,
        approver: new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('checkout-lead@acme.example', 'member') }),
        // Saved once the plan is made: not part of this run.
        onEvent: (event) => {
          if (event.type === 'plan') writeFileSync(file, readFileSync(file, 'utf8').replace('Dark colour scheme', 'Darker colour scheme'));
        },
      });
      expect(report.ok).toBe(true);
      expect(report.replan.changes).toEqual([]);
      const { plan } = await planAgainstConsole({ desired: new FsRepoReader(repo), client: submitter });
      expect(plan.changes.map((ch) => [ch.id, ch.action])).toEqual([['dark_mode', 'update']]);
    });
  });
});

describe('drift policy set by the file', () => {
  it('wins over flagops.yaml and is checked', async () => {
    await withOwnConsole('directive', async ({ other, url, repo }) => {
      const submitter = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') });
      const approverKey = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('checkout-lead@acme.example', 'member') });
      expect((await applyRepo({ desired: new FsRepoReader(repo), client: submitter, approver: approverKey })).ok).toBe(true);
      const file = join(repo, 'gates/dark_mode.yaml');
      await writeFile(file, `# flagops: drift=heal\n${await readFile(file, 'utf8')}`);
      await other.call('PATCH', '/console/v1/gates/dark_mode', { description: 'by hand' });
      const { plan } = await planAgainstConsole({ desired: new FsRepoReader(repo), client: submitter });
      expect(plan.changes.map((ch) => [ch.id, ch.action, ch.drift?.policy])).toEqual([['dark_mode', 'drift', 'heal']]);

      await writeFile(file, (await readFile(file, 'utf8')).replace('drift=heal', 'drift=ignore'));
      await expect(planAgainstConsole({ desired: new FsRepoReader(repo), client: submitter })).rejects.toThrow(/does not validate/);
    });
  });
});

describe('drift, against the repository history', () => {
  /** Commits the whole repository at a time (seconds since the epoch). */
  const commitAt = (repo: string, seconds: number): void => {
    const env = { ...process.env, GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` };
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'change'], { cwd: repo, env });
  };

  it('is a console edit the repository has not caught up with: a file committed after it is an update to apply', async () => {
    await withOwnConsole('drift-history', async ({ other, url, repo }) => {
      const now = Math.floor(Date.now() / 1000);
      execFileSync('git', ['init', '-q'], { cwd: repo });
      commitAt(repo, now - 3600);
      const submitter = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') });
      const approverKey = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('checkout-lead@acme.example', 'member') });
      const run = () => applyRepo({ desired: new FsRepoReader(repo), client: submitter, approver: approverKey, pollIntervalMs: 5, sleep: async () => undefined });
      const plan = async () => (await planAgainstConsole({ desired: new FsRepoReader(repo), client: submitter })).plan.changes.map((ch) => [ch.id, ch.action]);
      expect((await run()).ok).toBe(true);

      // Edited in the console after the file's last commit: drift.
      await other.call('PATCH', '/console/v1/gates/dark_mode', { description: 'console edit' });
      expect(await plan()).toEqual([['dark_mode', 'drift']]);

      // The edit taken into the file (as adopt does) and committed: nothing to do.
      const file = join(repo, 'gates/dark_mode.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replace(/^description: .*$/m, 'description: console edit'));
      commitAt(repo, now + 60);
      expect(await plan()).toEqual([]);

      // A later edit in git is the repository moving, not the console: an update, applied.
      await writeFile(file, (await readFile(file, 'utf8')).replace(/^description: .*$/m, 'description: v2 from git'));
      commitAt(repo, now + 120);
      expect(await plan()).toEqual([['dark_mode', 'update']]);
      const report = await run();
      expect(report.outcomes).toEqual([expect.objectContaining({ id: 'dark_mode', action: 'update', status: 'committed' })]);
      expect((await other.call('GET', '/console/v1/gates/dark_mode')).json().data.description).toBe('v2 from git');
    });
  });
});

describe('applyRepo through the pre-commit webhook', () => {
  it('lets the console hold each commit until the webhook decides: no long poll and no second commit', async () => {
    const receiver = await startTestReceiver();
    try {
      await withOwnConsole('webhook', async ({ other, url, repo }) => {
        const validator = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('ci@example.com', 'webhook_receiver') });
        receiver.onWebhook((hook) => void validator.request('POST', '/console/v1/change_validation', { reviewID: hook.body['review_id'], validated: true }));
        await other.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: 'whk-apply-test' });
        const sent: string[] = [];
        class RecordingClient extends ConsoleClient {
          override request: ConsoleClient['request'] = (method, path, body, options) => {
            sent.push(`${method} ${path.replace(/reviews\/[^/]+/, 'reviews/{id}')}`);
            return super.request(method, path, body, options);
          };
        }
        const submitter = new RecordingClient({ baseUrl: url, apiKey: await other.keyFor('flagops@ci.example.com', 'member') });
        const approverKey = new ConsoleClient({ baseUrl: url, apiKey: await other.keyFor('checkout-lead@acme.example', 'member') });
        const report = await applyRepo({ desired: new FsRepoReader(repo), client: submitter, approver: approverKey });
        expect(report.ok).toBe(true);
        const reviewed = report.outcomes.filter((o) => o.reviewID !== undefined);
        expect(reviewed.length).toBeGreaterThan(0);
        expect(reviewed.every((o) => o.status === 'committed')).toBe(true);
        // Changes of a type the webhook does not cover (e.g. a description) commit at once.
        expect(receiver.received.length).toBeGreaterThan(reviewed.length / 2);
        expect(sent.filter((s) => /^PUT .*\/commit$/.test(s))).toHaveLength(reviewed.length);
        expect(sent.filter((s) => s.startsWith('GET /console/v1/reviews/'))).toEqual([]);
      });
    } finally {
      await receiver.close();
    }
  });
});
