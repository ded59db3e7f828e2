/**
 * `flagops status` over real processes: a console (`flagops serve`) on a real port, a temporary git
 * repository, `flagops apply --auto-approve` and `flagops status` from the built CLI. No webhook is
 * configured, so approved reviews commit at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../reconcile/status-service.js';
import { runBuiltCli, spawnConsole, type CliRun, type SpawnedConsole } from '../test-support/spawn-console.js';
import { createGitRepo } from '../test-support/git-repo.js';

let dir: string;
let repo: string;
let head: string;
let console_: SpawnedConsole;
const keys: Record<string, string> = {};

const FILES: Record<string, string> = {
  'flagops.yaml': 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\napply: { approverKeyEnv: FLAGOPS_APPROVER_KEY }\n',
  'gates/checkout.yaml': 'id: checkout\nname: checkout\nrules:\n  - name: ramp\n    passPercentage: 10\n    conditions: [{ type: public }]\n',
  'gates/search.yaml': 'id: search\nname: search\n',
  'layers/search_layer.yaml': 'id: search_layer\nname: search layer\n',
};

function flagops(args: string[]): Promise<CliRun> {
  return runBuiltCli(args, { FLAGOPS_API_KEY: keys['ci']!, FLAGOPS_APPROVER_KEY: keys['approver']! });
}

async function api(method: string, path: string, body: unknown, key: string): Promise<{ status: number; data: Record<string, unknown> }> {
  const res = await fetch(`${console_.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, data: ((await res.json()) as { data?: Record<string, unknown> }).data ?? {} };
}

async function status(): Promise<StatusReport> {
  const run = await flagops(['status', repo, '--console', console_.url, '--format', 'json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as StatusReport;
}

const entity = (report: StatusReport, name: string) => report.entities.find((e) => `${e.kind}/${e.id}` === name)!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-status-'));
  repo = join(dir, 'repo');
  head = await createGitRepo(repo, FILES);
  console_ = await spawnConsole({ db: join(dir, 'console.db'), checkResponses: true });
  for (const [name, email] of [['ci', 'flagops@ci.example.com'], ['approver', 'lead@example.com'], ['other', 'someone@example.com']] as const) {
    const res = await api('POST', '/console/v1/keys', { description: name, userEmail: email, role: 'member' }, console_.key);
    keys[name] = String(res.data['key']);
  }
}, 60_000);

afterAll(async () => {
  await console_?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('flagops status', () => {
  it('before any apply: every entity to create, never applied', async () => {
    const report = await status();
    expect(report.entities.map((e) => `${e.kind}/${e.id} ${e.state}`)).toEqual(['gates/checkout to_create', 'gates/search to_create', 'layers/search_layer to_create']);
    expect(report.entities.every((e) => e.lastApplied === null && e.pendingReview === null)).toBe(true);
  });

  it('after apply: in sync, with the commit apply named in its reviews and when', async () => {
    const before = Date.now();
    const applied = await flagops(['apply', repo, '--console', console_.url, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const report = await status();
    expect(report.identity).toBe('flagops@ci.example.com');
    expect(report.summary).toMatchObject({ in_sync: 3, drifted: 0, to_create: 0, to_update: 0, to_delete: 0, pendingReviews: 0 });
    const checkout = entity(report, 'gates/checkout');
    expect(checkout.lastApplied).toMatchObject({ commit: head, plan: expect.stringMatching(/^[0-9a-f]+$/), reviewID: expect.any(String) });
    expect(checkout.lastApplied!.time).toBeGreaterThanOrEqual(before);
    // Layers are written directly: the audit log says when, and no commit is recorded there.
    expect(entity(report, 'layers/search_layer').lastApplied).toMatchObject({ commit: null, reviewID: null, by: 'flagops@ci.example.com' });
    expect(entity(report, 'layers/search_layer').lastApplied!.time).toBeGreaterThanOrEqual(before);

    const text = await flagops(['status', repo, '--console', console_.url]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('3 in sync.');
    expect(text.stdout).toMatch(new RegExp(`gates/checkout +in sync +applied commit ${head.slice(0, 12)} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC`));
  });

  it('after an out-of-band edit with another key: drifted, naming who changed it', async () => {
    expect((await api('PATCH', '/console/v1/gates/search', { description: 'edited by hand' }, keys['other']!)).status).toBe(200);
    const report = await status();
    expect(entity(report, 'gates/search')).toMatchObject({ state: 'drifted', drift: { policy: 'detect', lastModifier: 'someone@example.com' } });
    expect(entity(report, 'gates/checkout').state).toBe('in_sync');
    const text = await flagops(['status', repo, '--console', console_.url]);
    expect(text.stdout).toMatch(/gates\/search +drifted +changed by someone@example.com \(drift policy detect\)/);
  });

  it('with a pending review: its id and status, whoever submitted it', async () => {
    const submitted = await api('POST', '/console/v1/gates/checkout/reviews', { description: 'raise the ramp', change: { rules: [{ name: 'ramp', passPercentage: 50, conditions: [{ type: 'public' }] }] } }, keys['other']!);
    expect(submitted.status).toBe(201);
    const reviewID = String(submitted.data['reviewID']);
    let report = await status();
    expect(entity(report, 'gates/checkout').pendingReview).toMatchObject({ reviewID, status: 'pending', submitter: 'someone@example.com', fromApply: false });
    expect(report.summary.pendingReviews).toBe(1);

    expect((await api('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/approve`, undefined, keys['approver']!)).status).toBe(200);
    report = await status();
    expect(entity(report, 'gates/checkout').pendingReview).toMatchObject({ reviewID, status: 'approved' });
    const text = await flagops(['status', repo, '--console', console_.url]);
    expect(text.stdout).toContain('1 pending review');
    expect(text.stdout).toMatch(new RegExp(`gates/checkout +in sync +review ${reviewID} approved \\(update, by someone@example.com\\)`));
  });
});
