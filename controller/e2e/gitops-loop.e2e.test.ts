/**
 * The whole loop over real processes: a temporary git repository, `flagops serve`, `flagops bridge`
 * registered as the console's pre-commit webhook, and `flagops apply` / `flagops plan` as a team would
 * run them. Needs the compiled CLI (`npm run build`, which `npm test` runs first).
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopKeys } from '../test-support/spawn-bridge.js';
import { startGitOpsLoop, type GitOpsLoop } from '../test-support/start-gitops-loop.js';
import { runBuiltCli, type CliRun, type SpawnedConsole } from '../test-support/spawn-console.js';

const WEBHOOK_KEY = 'whk-e2e-secret';
let loop: GitOpsLoop | undefined;
let repo: string;
let console_: SpawnedConsole;
let keys: LoopKeys;

const FILES: Record<string, string> = {
  'flagops.yaml': `console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }
prune: { enabled: false, managedTag: flagops-managed, maxDeletes: 1 }
drift:
  default: detect
  entities:
    gates/checkout: heal
    dynamic_configs/pricing: adopt
apply: { approverKeyEnv: FLAGOPS_APPROVER_KEY }
bridge: { maxPassPercentageStep: 60 }
`,
  'segments/staff.yaml': `id: staff
name: staff
type: rule_based
rules:
  - name: employees
    passPercentage: 100
    conditions: [{ type: email, operator: str_contains_any, targetValue: ["@example.com"] }]
`,
  'gates/checkout.yaml': `# The new checkout, staff first.
id: checkout
name: checkout
description: New checkout flow
rules:
  - name: staff
    passPercentage: 100
    conditions: [{ type: passes_segment, targetValue: [staff] }]
  - name: ramp
    passPercentage: 10
    conditions: [{ type: public }]
`,
  'gates/search.yaml': `id: search
name: search
rules: []
`,
  'dynamic_configs/pricing.yaml': `id: pricing
name: pricing
# Prices in cents.
defaultValueJson5: |
  {
    price: 100, // list price
  }
`,
  'layers/checkout_layer.yaml': `id: checkout_layer
name: checkout layer
`,
};

function run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runBuiltCli(args, { FLAGOPS_API_KEY: keys['submitter']!, FLAGOPS_APPROVER_KEY: keys['approver']!, ...env });
}

async function api(method: string, path: string, body?: unknown, key = console_.key): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${console_.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function commitAll(message: string): Promise<void> {
  const git = simpleGit(repo);
  await git.add(['-A']);
  await git.commit(message);
}

const reviewsOf = async (status: string) => ((await api('GET', `/console/v1/reviews?status=${status}&limit=1000`)).json['data'] as Record<string, unknown>[]) ?? [];

beforeAll(async () => {
  loop = await startGitOpsLoop({ prefix: 'flagops-loop-', files: FILES, message: 'initial flags', webhookKey: WEBHOOK_KEY, checkResponses: true, initialMessage: 'Checked against git by flagops bridge.' });
  ({ repo, console_, keys } = loop);
}, 60_000);

afterAll(async () => {
  await loop?.stop();
});

describe('the GitOps loop', () => {
  it('applies committed YAML through reviews, the webhook and the bridge, leaving an empty plan', async () => {
    const result = await run(['apply', repo, '--auto-approve', '--console', console_.url]);
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/4 committed, 1 written; the console now matches the repository/);
    const committed = await reviewsOf('committed');
    expect(committed).toHaveLength(4);
    const gateReview = committed.find((r) => r['configName'] === 'checkout')!;
    const validation = gateReview['validation'] as Record<string, unknown>;
    expect(validation['validated']).toBe(true);
    expect(String(validation['message'])).toMatch(/^Approved: matches gates\/checkout.yaml at [0-9a-f]{12} on main/);
    const plan = await run(['plan', repo, '--console', console_.url, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('applying twice changes nothing', async () => {
    const before = (await api('GET', '/console/v1/audit_logs?limit=1')).json['pagination'] as Record<string, unknown>;
    const result = await run(['apply', repo, '--auto-approve', '--console', console_.url, '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcomes: [], ok: true, replan: { changes: 0 } });
    const after = (await api('GET', '/console/v1/audit_logs?limit=1')).json['pagination'] as Record<string, unknown>;
    expect(after['totalItems']).toBe(before['totalItems']);
  });

  it('rejects, through the bridge, a console change that is not in git', async () => {
    const submitted = await api('POST', '/console/v1/gates/checkout/reviews', { description: 'hotfix', change: { rules: [{ name: 'ramp', passPercentage: 50, conditions: [{ type: 'public' }] }] } }, keys['member']!);
    expect(submitted.status).toBe(201);
    const id = String((submitted.json['data'] as Record<string, unknown>)['reviewID']);
    expect((await api('PUT', `/console/v1/gates/checkout/reviews/${id}/approve`, undefined, keys['approver']!)).status).toBe(200);
    const commit = await api('PUT', `/console/v1/gates/checkout/reviews/${id}/commit`, undefined, keys['member']!);
    expect((commit.json['data'] as Record<string, unknown>)['status']).toBe('pending_webhook_validation');
    let review: Record<string, unknown> = {};
    for (let i = 0; i < 200 && review['status'] !== 'failed_webhook_validation'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      review = (await api('GET', `/console/v1/reviews/${id}`)).json['data'] as Record<string, unknown>;
    }
    expect(review['status']).toBe('failed_webhook_validation');
    expect(String((review['validation'] as Record<string, unknown>)['message'])).toMatch(/does not match gates\/checkout.yaml .* differs in rules/);
    const gate = (await api('GET', '/console/v1/gates/checkout')).json['data'] as Record<string, unknown>;
    expect((gate['rules'] as Record<string, unknown>[]).map((r) => r['passPercentage'])).toEqual([100, 10]);
  });

  it('reports out-of-band console edits as drift, heals or adopts them per policy', async () => {
    expect((await api('PATCH', '/console/v1/gates/checkout', { description: 'edited by hand' })).status).toBe(200);
    expect((await api('PATCH', '/console/v1/dynamic_configs/pricing', { defaultValue: { price: 120 } })).status).toBe(200);
    expect((await api('PATCH', '/console/v1/gates/search', { isEnabled: false })).status).toBe(200);
    const plan = await run(['plan', repo, '--console', console_.url, '--detailed-exitcode', '--format', 'json']);
    expect(plan.code).toBe(2);
    const changes = (JSON.parse(plan.stdout) as { changes: { kind: string; id: string; action: string }[] }).changes;
    expect(changes.map((c) => `${c.action} ${c.kind}/${c.id}`)).toEqual(['drift gates/checkout', 'drift gates/search', 'drift dynamic_configs/pricing']);

    const applied = await run(['apply', repo, '--auto-approve', '--console', console_.url]);
    expect(applied.stderr).toMatch(/gates\/checkout drift: committed/);
    expect(applied.stderr).toMatch(/gates\/search drift: reported/);
    expect(applied.stderr).toMatch(/dynamic_configs\/pricing drift: adopted/);
    const gate = (await api('GET', '/console/v1/gates/checkout')).json['data'] as Record<string, unknown>;
    expect(gate['description']).toBe('New checkout flow');
    const pricing = readFileSync(join(repo, 'dynamic_configs/pricing.yaml'), 'utf8');
    expect(pricing).toContain('# Prices in cents.');
    expect(pricing).toMatch(/"price": 120|price: 120/);
  });

  it('refuses a prune above the mass-delete threshold', async () => {
    await simpleGit(repo).checkout(['--', 'dynamic_configs/pricing.yaml']);
    unlinkSync(join(repo, 'gates/search.yaml'));
    unlinkSync(join(repo, 'layers/checkout_layer.yaml'));
    await commitAll('remove two entities');
    const result = await run(['apply', repo, '--auto-approve', '--console', console_.url, '--prune']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Refusing to delete 2 entities: more than prune.maxDeletes \(1\)/);
    expect((await api('GET', '/console/v1/gates/search')).status).toBe(200);
  });
});
