/**
 * Policies before merge and after: on a real git repository, `flagops validate --base` and the
 * markdown plan of a pull request report what the bridge will refuse, and the bridge (a real process
 * registered as a real console's pre-commit webhook) refuses the same change when it is applied
 * anyway. The files come from one set of fixtures (test-support/policy-fixtures.ts). Needs the
 * compiled CLI (`npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_BASE_FILES, RAMP_PERCENTAGE_AT, RAMP_TAGS_AT, rampGate } from '../test-support/policy-fixtures.js';
import type { LoopKeys } from '../test-support/spawn-bridge.js';
import { startGitOpsLoop, type GitOpsLoop } from '../test-support/start-gitops-loop.js';
import { callConsole, runBuiltCli, type CliRun, type SpawnedConsole } from '../test-support/spawn-console.js';

const WEBHOOK_KEY = 'whk-policies-e2e';
let loop: GitOpsLoop | undefined;
let repo: string;
let console_: SpawnedConsole;
let keys: LoopKeys;

const run = (args: string[]): Promise<CliRun> => runBuiltCli(args, { FLAGOPS_API_KEY: keys['submitter']!, FLAGOPS_APPROVER_KEY: keys['approver']! });

/** The review's state once the bridge has decided it (or the last state seen). */
async function decided(reviewID: string): Promise<Record<string, unknown>> {
  let review: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    review = (await callConsole(console_, 'GET', `/console/v1/reviews/${reviewID}`)).body.data as Record<string, unknown>;
    if (review['status'] !== 'pending_webhook_validation') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return review;
}

const rampPercentage = async (): Promise<unknown> => ((await callConsole(console_, 'GET', '/console/v1/gates/ramp_gate')).body.data.rules as Record<string, unknown>[])[0]?.['passPercentage'];

beforeAll(async () => {
  loop = await startGitOpsLoop({ prefix: 'flagops-policies-', files: POLICY_BASE_FILES, message: 'the ramp at 10%', webhookKey: WEBHOOK_KEY });
  ({ repo, console_, keys } = loop);
  const applied = await run(['apply', repo, '--auto-approve', '--console', console_.url]);
  expect(applied.code, applied.stderr.slice(-3000)).toBe(0);
}, 90_000);

afterAll(async () => {
  await loop?.stop();
});

describe('policies in the pull request and at the bridge', () => {
  it('fails validate --base on a rollout step above maxPassPercentageStep, at the line, naming the policy', async () => {
    const git = simpleGit(repo);
    await git.checkoutLocalBranch('raise');
    writeFileSync(join(repo, 'gates/ramp_gate.yaml'), rampGate(80));
    await git.add(['-A']).commit('ramp to 80%');

    const validate = await run(['validate', repo, '--base', 'main']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(validate.stdout).toContain(`gates/ramp_gate.yaml:${RAMP_PERCENTAGE_AT} rules[0].passPercentage: policy maxPassPercentageStep: rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.`);
    // Without --base there is no change to judge: the files themselves are valid.
    expect((await run(['validate', repo])).code).toBe(0);

    const markdown = await run(['plan', repo, '--base', 'main', '--format', 'markdown']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('#### Policies');
    expect(markdown.stdout).toContain("| :x: reject | `gates/ramp_gate` | `maxPassPercentageStep` | rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25. |");
    const json = JSON.parse((await run(['plan', repo, '--base', 'main', '--format', 'json'])).stdout) as { changes: { policies: unknown[] }[] };
    expect(json.changes[0]?.policies).toContainEqual({ policy: 'maxPassPercentageStep', verdict: 'reject', message: "rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.", property: 'rules[0].passPercentage' });
  });

  it('has the bridge reject the same change when it is merged and applied anyway', async () => {
    const git = simpleGit(repo);
    await git.checkout('main');
    await git.merge(['raise']);
    const applied = await run(['apply', repo, '--auto-approve', '--console', console_.url, '--format', 'json']);
    expect(applied.code).not.toBe(0);
    const failed = (await callConsole(console_, 'GET', '/console/v1/reviews?status=failed_webhook_validation&limit=100')).body.data as Record<string, unknown>[];
    const messages = failed.map((r) => String((r['validation'] as Record<string, unknown>)['message']));
    expect(messages).toContain("Rejected by policy: rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.");
    expect(await rampPercentage()).toBe(10);
    // Back to what the console holds, for the next test.
    await git.reset(['--hard', 'HEAD~1']);
  });

  it('fails validate at the entity line that breaks a team rule, and the bridge rejects a console change that breaks it', async () => {
    writeFileSync(join(repo, 'gates/ramp_gate.yaml'), rampGate(10, 'checkout'));
    const validate = await run(['validate', repo]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`gates/ramp_gate.yaml:${RAMP_TAGS_AT} tags: breaks team rule policies.schemas.gates#/properties/tags/contains: must contain at least 1 valid item(s) (every gate carries a team-* tag)`);
    writeFileSync(join(repo, 'gates/ramp_gate.yaml'), rampGate(10));

    // A change the console sends for validation (isEnabled is a `rules` change), which also drops the team tag.
    const submitted = await callConsole(console_, 'POST', '/console/v1/gates/ramp_gate/reviews', { description: 'retag', change: { isEnabled: false, tags: ['checkout', 'flagops-managed'] } }, keys['member']!);
    expect(submitted.status).toBe(201);
    const id = String(submitted.body.data.reviewID);
    expect((await callConsole(console_, 'PUT', `/console/v1/gates/ramp_gate/reviews/${id}/approve`, undefined, keys['approver']!)).status).toBe(200);
    expect((await callConsole(console_, 'PUT', `/console/v1/gates/ramp_gate/reviews/${id}/commit`, undefined, keys['member']!)).status).toBe(200);
    const review = await decided(id);
    expect(review['status'], JSON.stringify(review)).toBe('failed_webhook_validation');
    expect(String((review['validation'] as Record<string, unknown>)['message'])).toBe(
      'Rejected by policy: gates/ramp_gate tags breaks team rule policies.schemas.gates#/properties/tags/contains: must contain at least 1 valid item(s) (every gate carries a team-* tag).',
    );
    const gate = (await callConsole(console_, 'GET', '/console/v1/gates/ramp_gate')).body.data as Record<string, unknown>;
    expect(gate).toMatchObject({ isEnabled: true, tags: ['team-checkout', 'flagops-managed'] });
  });
});
