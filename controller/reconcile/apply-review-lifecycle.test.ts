import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { applyRepo, type ApplyInput } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { writeFiles } from '../test-support/git-repo.js';

const FILES: Record<string, string> = {
  'flagops.yaml': 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\n',
  'gates/alpha.yaml': 'id: alpha\nname: alpha\ndescription: first\n',
  'gates/beta.yaml': 'id: beta\nname: beta\n',
  'layers/gamma.yaml': 'id: gamma\nname: gamma\n',
};

let c: TestConsole;
let url: string;
let repo: string;
let submitterKey: string;
let client: ConsoleClient;
let approver: ConsoleClient;

beforeEach(async () => {
  c = createTestConsole();
  url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  submitterKey = await c.keyFor('flagops@ci.example.com', 'member');
  client = new ConsoleClient({ baseUrl: url, apiKey: submitterKey });
  approver = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('lead@example.com', 'member') });
  repo = mkdtempSync(join(tmpdir(), 'flagops-apply-lifecycle-'));
  writeFiles(repo, FILES);
});
afterEach(async () => {
  await c.close();
  rmSync(repo, { recursive: true, force: true });
});

const apply = (overrides: Partial<ApplyInput> = {}) => applyRepo({ desired: new FsRepoReader(repo), client, approver, ...overrides });

async function reviews(status?: string): Promise<Record<string, unknown>[]> {
  return client.listAll(`/console/v1/reviews${status ? `?status=${status}` : ''}`);
}

describe('applyRepo: an approver that may not approve', () => {
  it('cancels the review it cannot get approved, says why, and leaves nothing open', async () => {
    writeFiles(repo, { 'gates/alpha.yaml': 'id: alpha\nname: alpha\nreviewSettings:\n  requiredReview: true\n  allowedReviewers: [{ email: someone-else@example.com }]\n' });
    const report = await apply({ targets: ['gates/alpha'] });
    expect(report.ok).toBe(false);
    const outcome = report.outcomes.find((o) => o.id === 'alpha');
    expect(outcome?.status).toBe('failed');
    expect(outcome?.message).toMatch(/could not be approved with the approver key: .*Only the allowed reviewers of gate alpha may approve its reviews\.; canceled review \S+$/);
    expect(await reviews('pending')).toEqual([]);
    expect((await reviews('canceled')).map((r) => r['reviewID'])).toEqual([outcome?.reviewID]);
  });
});

describe('applyRepo: confirmation and --target', () => {
  it('writes nothing when the confirmation is declined', async () => {
    const asked: number[] = [];
    const report = await apply({ confirm: async (plan) => (asked.push(plan.changes.length), false) });
    expect(asked).toEqual([3]);
    expect(report).toMatchObject({ declined: true, ok: false, outcomes: [] });
    expect((await c.call('GET', '/console/v1/gates/alpha')).statusCode).toBe(404);
    expect(await reviews()).toEqual([]);
  });

  it('applies only the targets and says what it skipped', async () => {
    const report = await apply({ targets: ['gates/beta'] });
    expect(report.outcomes.map((o) => `${o.kind}/${o.id} ${o.status}`)).toEqual(['gates/beta committed']);
    expect(report.plan.summary).toMatchObject({ create: 1 });
    expect(report.plan.warnings).toContain('--target: 2 changes outside the targets skipped: create gates/alpha, create layers/gamma.');
    expect(report.ok).toBe(true);
    expect((await c.call('GET', '/console/v1/gates/alpha')).statusCode).toBe(404);
    expect((await c.call('GET', '/console/v1/layers/gamma')).statusCode).toBe(404);
  });

  it('refuses a target that names no entity, or not KIND/ID', async () => {
    await expect(apply({ targets: ['gates/nope'] })).rejects.toMatchObject({ errors: [{ property: '--target', errorMessage: expect.stringMatching(/'gates\/nope' is neither declared by a file nor present/) }] });
    await expect(apply({ targets: ['alpha'] })).rejects.toMatchObject({ errors: [{ property: '--target', errorMessage: expect.stringMatching(/is not KIND\/ID/) }] });
  });
});

describe('applyRepo: exit verdict', () => {
  it('is not ok when drift it only reports remains', async () => {
    expect((await apply()).ok).toBe(true);
    await c.call('PATCH', '/console/v1/gates/beta', { description: 'by hand' });
    const report = await apply();
    expect(report.outcomes.map((o) => `${o.id} ${o.status}`)).toEqual(['beta reported']);
    expect(report.replan.changes.map((ch) => ch.id)).toEqual(['beta']);
    expect(report.ok).toBe(false);
  });
});

describe('applyRepo: interrupted and left-over reviews', () => {
  it('cancels the reviews it opened when interrupted while a review waits for approval', async () => {
    const controller = new AbortController();
    const interruptible = new ConsoleClient({ baseUrl: url, apiKey: submitterKey, signal: controller.signal });
    const run = applyRepo({
      desired: new FsRepoReader(repo),
      client: interruptible,
      canceler: interruptible.detached(),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'waiting') controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/^Interrupted: apply stopped before finishing; canceled its open reviews? /);
    expect(await reviews('pending,approved,pending_webhook_validation')).toEqual([]);
    const all = await reviews();
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((r) => r['status'] === 'canceled')).toBe(true);
  });

  it('resumes a review an earlier run left waiting instead of opening a second one', async () => {
    // No approver and no time to wait: both gate reviews stay pending, as after a killed run.
    const first = await apply({ approver: undefined, waitTimeoutMs: 1 });
    expect(first.outcomes.filter((o) => o.status === 'waiting').map((o) => o.id)).toEqual(['alpha', 'beta']);
    expect(first.outcomes.find((o) => o.id === 'alpha')?.message).toMatch(/still waits for approval by a reviewer with approve_reviews/);
    const left = await reviews('pending');
    expect(left).toHaveLength(2);

    const second = await apply();
    expect(second.ok).toBe(true);
    const all = await reviews();
    expect(all).toHaveLength(2);
    expect(all.every((r) => r['status'] === 'committed')).toBe(true);
    expect(new Set(second.outcomes.filter((o) => o.reviewID).map((o) => o.reviewID))).toEqual(new Set(left.map((r) => r['reviewID'])));
  });

  it("cancels an earlier run's review of a change the files no longer ask for, and submits the new one", async () => {
    await apply({ approver: undefined, waitTimeoutMs: 1, targets: ['gates/alpha'] });
    const [old] = await reviews('pending');
    writeFileSync(join(repo, 'gates/alpha.yaml'), 'id: alpha\nname: alpha\ndescription: second\n');
    const report = await apply({ targets: ['gates/alpha'] });
    expect(report.ok).toBe(true);
    const byId = new Map((await reviews()).map((r) => [r['reviewID'], r['status']]));
    expect(byId.get(old?.['reviewID'])).toBe('canceled');
    expect([...byId.values()].sort()).toEqual(['canceled', 'committed']);
    const gate = (await client.request('GET', '/console/v1/gates/alpha')).data as Record<string, unknown>;
    expect(gate['description']).toBe('second');
  });

  it("leaves other users' reviews alone", async () => {
    const someone = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('dev@example.com', 'member') });
    await apply({ targets: ['gates/beta'] });
    const theirs = (await someone.request('POST', '/console/v1/gates/beta/reviews', { description: 'flagops apply: update gates/beta (plan 000000000000, change 000000000000)', change: { description: 'theirs' } })).data!;
    writeFileSync(join(repo, 'gates/beta.yaml'), 'id: beta\nname: beta\ndescription: ours\n');
    expect((await apply({ targets: ['gates/beta'] })).ok).toBe(true);
    const review = (await client.request('GET', `/console/v1/reviews/${String(theirs['reviewID'])}`)).data!;
    expect(review['status']).toBe('pending');
  });
});
