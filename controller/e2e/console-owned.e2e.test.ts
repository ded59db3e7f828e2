/**
 * Console-owned fields over real processes: a git repository whose flagops.yaml gives the console
 * `isEnabled` of gates, `flagops serve`, `flagops bridge` as its pre-commit webhook, and `flagops
 * apply` / `flagops plan`. Needs the compiled CLI (`npm run build`, which `npm test` runs first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../test-support/git-repo.js';
import type { LoopKeys } from '../test-support/spawn-bridge.js';
import { startGitOpsLoop, type GitOpsLoop } from '../test-support/start-gitops-loop.js';
import { callConsole, runBuiltCli, type CliRun, type SpawnedConsole } from '../test-support/spawn-console.js';
import { simpleGit } from 'simple-git';

const WEBHOOK_KEY = 'whk-owned-e2e';
let loop: GitOpsLoop | undefined;
let repo: string;
let console_: SpawnedConsole;
let keys: LoopKeys;

const gate = (description: string): string => `id: checkout
name: checkout
description: ${description}
isEnabled: true
rules:
  - name: ramp
    passPercentage: 10
    conditions: [{ type: public }]
`;

const FILES: Record<string, string> = {
  'flagops.yaml': `console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }
apply: { approverKeyEnv: FLAGOPS_APPROVER_KEY }
ownership:
  console:
    gates: [isEnabled]
`,
  'gates/checkout.yaml': gate('New checkout flow'),
};

const run = (args: string[]): Promise<CliRun> => runBuiltCli([...args, '--console', console_.url], { FLAGOPS_API_KEY: keys.submitter, FLAGOPS_APPROVER_KEY: keys.approver });
const api = (method: string, path: string, body?: unknown, key?: string) => callConsole(console_, method, path, body, key);
const liveGate = async (): Promise<Record<string, unknown>> => (await api('GET', '/console/v1/gates/checkout')).body.data;

/** A member's review of the gate, approved by another member and committed: the console holds the commit while the bridge decides. */
async function consoleChange(change: Record<string, unknown>): Promise<Record<string, unknown>> {
  const submitted = await api('POST', '/console/v1/gates/checkout/reviews', { description: 'on-call', change }, keys.member);
  expect(submitted.status).toBe(201);
  const id = String(submitted.body.data.reviewID);
  expect((await api('PUT', `/console/v1/gates/checkout/reviews/${id}/approve`, undefined, keys.approver)).status).toBe(200);
  const committed = await api('PUT', `/console/v1/gates/checkout/reviews/${id}/commit`, { awaitValidationMs: 20_000 }, keys.member);
  expect(committed.status).toBe(200);
  return committed.body.data;
}

beforeAll(async () => {
  loop = await startGitOpsLoop({ prefix: 'flagops-owned-e2e-', files: FILES, message: 'flags with console-owned isEnabled', webhookKey: WEBHOOK_KEY, checkResponses: true });
  ({ repo, console_, keys } = loop);
  const applied = await run(['apply', repo, '--auto-approve']);
  expect(applied.code, applied.stderr.slice(-3000)).toBe(0);
}, 90_000);

afterAll(async () => {
  await loop?.stop();
});

describe('console-owned fields in the GitOps loop', () => {
  it("approves, through the bridge, a console review that disables the managed gate (an owned field)", async () => {
    const review = await consoleChange({ isEnabled: false });
    expect(review['status']).toBe('committed');
    expect(String((review['validation'] as Record<string, unknown>)['message'])).toMatch(/^Approved: matches gates\/checkout.yaml at [0-9a-f]{12} on main \(the console owns isEnabled\)/);
    expect(await liveGate()).toMatchObject({ isEnabled: false, description: 'New checkout flow' });
  });

  it('plans no change afterwards (--detailed-exitcode 0), shows the difference as console-owned, and status names the owned field', async () => {
    const text = await run(['plan', repo, '--detailed-exitcode']);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain('gates/checkout (gates/checkout.yaml) owned by the console: isEnabled false in the console, true in the file');
    const json = await run(['plan', repo, '--detailed-exitcode', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ changes: [], owned: [{ kind: 'gates', id: 'checkout', fields: [{ path: 'isEnabled', console: false, file: true }] }] });
    const markdown = await run(['plan', repo, '--format', 'markdown']);
    expect(markdown.stdout).toContain('- `gates/checkout` owned by the console: isEnabled false in the console, true in the file');
    const status = await run(['status', repo, '--format', 'json']);
    expect(JSON.parse(status.stdout).entities).toMatchObject([{ kind: 'gates', id: 'checkout', state: 'in_sync', consoleOwns: ['isEnabled'] }]);
    expect((await run(['status', repo])).stdout).toMatch(/gates\/checkout +in sync .*; the console owns isEnabled\n/);
  });

  it("applies a later git change of the description and leaves isEnabled as the console set it", async () => {
    // The commit must be newer than the on-call edit (git times are whole seconds): the repository moved last.
    const edited = Number((await liveGate())['lastModifiedTime']);
    await new Promise((r) => setTimeout(r, Math.max(0, Math.ceil((edited + 1) / 1000) * 1000 - Date.now() + 50)));
    writeFiles(repo, { 'gates/checkout.yaml': gate('New checkout flow, now with saved cards') });
    await simpleGit(repo).add(['-A']).commit('describe saved cards');
    const plan = await run(['plan', repo, '--format', 'json']);
    expect(JSON.parse(plan.stdout).changes).toMatchObject([{ action: 'update', fields: [{ path: 'description', old: 'New checkout flow', new: 'New checkout flow, now with saved cards' }] }]);
    const applied = await run(['apply', repo, '--auto-approve']);
    expect(applied.code, applied.stderr.slice(-3000)).toBe(0);
    expect(await liveGate()).toMatchObject({ isEnabled: false, description: 'New checkout flow, now with saved cards' });
    const after = await run(['plan', repo, '--detailed-exitcode']);
    expect(after.code, after.stdout).toBe(0);
  });

  it('still rejects a console change of a field git owns', async () => {
    // A rollout step (a description alone would commit without the webhook: it serves nothing new).
    const review = await consoleChange({ rules: [{ name: 'ramp', passPercentage: 50, conditions: [{ type: 'public' }] }] });
    expect(review['status'], JSON.stringify(review)).toBe('failed_webhook_validation');
    expect(String((review['validation'] as Record<string, unknown>)['message'])).toMatch(/does not match gates\/checkout.yaml .* differs in rules\[name=ramp\]\.passPercentage/);
    expect(await liveGate()).toMatchObject({ isEnabled: false, rules: [{ name: 'ramp', passPercentage: 10 }] });
  });
});
