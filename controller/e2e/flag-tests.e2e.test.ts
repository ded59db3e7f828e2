/**
 * Flag tests from the built CLI on a real git repository (the example flags): `flagops test` gives
 * each user the answer `flagops eval` gives the same user (value, deciding rule, group), a sample's
 * count is what evaluating its generated units one by one gives, a wrong case fails `test` and
 * `validate` at its file:line:col, and the pull-request comment of `plan --base` says how many pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagTestResult } from '../core/eval/run-flag-tests.js';
import { exampleGitRepo } from '../test-support/git-repo.js';
import { BIN } from '../test-support/spawn-console.js';

let dir: string;
let repo: string;

function flagops(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FLAGOPS_API_KEY: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface Case {
  name: string;
  entity: string;
  user: Record<string, unknown>;
  environment?: string;
  expect: unknown;
}

/** Users across every kind, rules, buckets and environments; the last case is wrong on purpose. */
const CASES: Case[] = [
  { name: 'staff get the new checkout', entity: 'gates/new_checkout', user: { userID: 'u-1', email: 'ann@acme.example' }, expect: true },
  { name: 'a customer in production, bucketed', entity: 'gates/new_checkout', user: { userID: 'u-42', email: 'bob@customer.example' }, environment: 'production', expect: false },
  { name: 'another customer in production, bucketed in', entity: 'gates/new_checkout', user: { userID: 'u-10', email: 'eve@customer.example' }, environment: 'production', expect: true },
  { name: 'search v2 in staging', entity: 'gates/search_v2', user: { userID: 'u-3' }, environment: 'staging', expect: true },
  { name: 'US pricing', entity: 'dynamic_configs/pricing', user: { userID: 'u-4', country: 'US' }, expect: { currency: 'USD' } },
  { name: 'EU pricing', entity: 'dynamic_configs/pricing', user: { userID: 'u-5', country: 'DE' }, expect: { currency: 'EUR', shippingFee: 4.9 } },
  { name: 'button test before it starts', entity: 'experiments/button_color_test', user: { userID: 'u-6', email: 'ann@acme.example' }, environment: 'production', expect: { button_color: 'blue' } },
  { name: 'checkout layer', entity: 'layers/checkout_layer', user: { userID: 'u-8' }, environment: 'production', expect: { one_page: false } },
  { name: 'staff are kept out (wrong on purpose)', entity: 'gates/new_checkout', user: { userID: 'u-9', email: 'zoe@acme.example' }, expect: false },
];

const SAMPLE_UNITS = 10;

/** One case per line, as YAML flow mappings: case i is at line i + 1, column 3. */
const testFile = (cases: readonly Case[], sample: string): string => `${cases.map((c) => `- ${JSON.stringify(c)}`).join('\n')}\n${sample}`;

const SAMPLE_CASE = `- name: a fifth of customers in production
  entity: gates/new_checkout
  environment: production
  sample: {units: ${SAMPLE_UNITS}}
  expect: {passRate: 0.2, tolerance: 0.8}
`;

/** Whether `actual` contains `expected` (every key of an expected object, recursively). */
function contains(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return actual === expected;
  if (typeof actual !== 'object' || actual === null) return false;
  return Object.entries(expected).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
}

interface EvalAnswer {
  value: unknown;
  reason: string;
  ruleID: string;
  ruleName: string | null;
  groupName: string | null;
}

function evalJson(entity: string, user: Record<string, unknown>, environment?: string): EvalAnswer {
  const run = flagops(['eval', entity, '--user', JSON.stringify(user), ...(environment ? ['--environment', environment] : []), '--format', 'json', repo]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as EvalAnswer;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-flag-tests-'));
  repo = join(dir, 'repo');
  await exampleGitRepo(repo);
  writeFileSync(join(repo, 'tests/agreement.yaml'), testFile(CASES, SAMPLE_CASE));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flag tests from the CLI', () => {
  it('agree with flagops eval for every user, and fail the wrong case at its file:line:col', () => {
    const run = flagops(['test', repo, '--format', 'json']);
    expect(run.code, run.stderr).toBe(1);
    const results = (JSON.parse(run.stdout) as { results: FlagTestResult[] }).results.filter((r) => r.file === 'tests/agreement.yaml');
    expect(results).toHaveLength(CASES.length + 1);
    for (const [i, c] of CASES.entries()) {
      const result = results[i];
      const answer = evalJson(c.entity, c.user, c.environment);
      expect(result, c.name).toMatchObject({ name: c.name, line: i + 1, column: 3, actual: answer.value, decision: { reason: answer.reason, ruleID: answer.ruleID, ruleName: answer.ruleName, groupName: answer.groupName } });
      // The verdict is what eval's answer says of the expect.
      expect(result?.passed, c.name).toBe(contains(answer.value, c.expect));
    }
    expect(results.filter((r) => !r.passed).map((r) => `${r.file}:${r.line}:${r.column} ${r.name}`)).toEqual([`tests/agreement.yaml:${CASES.length}:3 staff are kept out (wrong on purpose)`]);
  }, 120_000);

  it("counts a sample's units as evaluating each generated unit with flagops eval does", () => {
    const run = flagops(['test', repo, '--format', 'json']);
    const sample = (JSON.parse(run.stdout) as { results: FlagTestResult[] }).results.find((r) => r.name === 'a fifth of customers in production');
    let passing = 0;
    for (let n = 1; n <= SAMPLE_UNITS; n++) if (evalJson('gates/new_checkout', { userID: `sample-${n}` }, 'production').value === true) passing++;
    expect(sample?.sample).toMatchObject({ units: SAMPLE_UNITS, matched: passing, passRate: passing / SAMPLE_UNITS });
    expect(sample?.line).toBe(CASES.length + 1);
  }, 120_000);

  it('validate fails on the wrong case; the PR comment lists it, then says all pass once it is fixed', async () => {
    const validate = flagops(['validate', repo]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`tests/agreement.yaml:${CASES.length}:3 flag test 'staff are kept out (wrong on purpose)' fails (gates/new_checkout): expected false, got true, decided by rule staff [`);

    const git = simpleGit(repo);
    await git.checkout(['-b', 'add-flag-tests']);
    await git.add(['-A']).commit('flag tests');
    const failing = flagops(['plan', repo, '--base', 'main', '--format', 'markdown']);
    expect(failing.code, failing.stderr).toBe(0);
    expect(failing.stdout).toMatch(/\*\*Flag tests: 1 of \d+ flag tests fail\.\*\*/);
    expect(failing.stdout).toContain(`- \`tests/agreement.yaml:${CASES.length}:3\` staff are kept out (wrong on purpose) (\`gates/new_checkout\`): expected false, got true`);

    writeFileSync(join(repo, 'tests/agreement.yaml'), testFile(CASES.slice(0, -1), SAMPLE_CASE));
    const passing = flagops(['plan', repo, '--base', 'main', '--format', 'markdown']);
    expect(passing.stdout).toMatch(/\*\*Flag tests:\*\* \d+ flag tests pass\.\n$/);
    expect(flagops(['test', repo]).code).toBe(0);
    expect(flagops(['validate', repo]).code).toBe(0);
  }, 120_000);

  it('a test file with an unknown key or an unknown entity is an error at its file:line:col, never a crash', () => {
    writeFileSync(join(repo, 'tests/broken.yaml'), '- name: x\n  entity: layers/checkout_layr\n  user: {userID: u}\n  expect: {one_page: false}\n  expected: 1\n');
    for (const command of ['test', 'validate']) {
      const run = flagops([command, repo]);
      expect(run.code).toBe(1);
      const out = run.stdout + run.stderr;
      expect(out).toContain("tests/broken.yaml:2:11 [0].entity: names no entity of the repository: no file declares layers/checkout_layr (did you mean 'layers/checkout_layer'?)");
      expect(out).toContain("tests/broken.yaml:5:3 [0].expected: is not a known field (did you mean 'expect'?)");
      expect(out).not.toMatch(/TypeError|at .*\.js:\d+/);
    }
    rmSync(join(repo, 'tests/broken.yaml'));
  });
});
