import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { FlagTestResult } from '../core/eval/run-flag-tests.js';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));

async function flagops(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: process.cwd(), isTTY: false, signal: new AbortController().signal }, COMMANDS);
  return { code, stdout, stderr };
}

const tmp: string[] = [];
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

/** The example repository with `tests/extra.yaml` added. */
function exampleWith(extra: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-flag-tests-'));
  tmp.push(dir);
  cpSync(EXAMPLE, dir, { recursive: true });
  writeFileSync(join(dir, 'tests/extra.yaml'), extra);
  return dir;
}

const FAILING = `- name: staff are kept out (wrong on purpose)
  entity: gates/new_checkout
  user: {userID: u-1, email: ann@acme.example}
  expect: false
- name: half of everyone (wrong on purpose)
  entity: gates/new_checkout
  environment: production
  sample: {units: 2000}
  expect: {passRate: 0.5, tolerance: 0.05}
- name: US customers pay in euros (wrong on purpose)
  entity: dynamic_configs/pricing
  user: {userID: u-3, country: US}
  expect: {currency: EUR}
- name: dark mode for everyone
  entity: gates/dark_mode
  user: {userID: u-9}
  expect: true
`;

describe('flagops test', () => {
  it('passes on the example repository, and says so', async () => {
    const run = await flagops(['test', EXAMPLE]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ok {3}tests\/checkout\.yaml:3:3 staff get the new checkout \(gates\/new_checkout\): got true, decided by rule staff \[/m);
    expect(run.stdout).toMatch(/flagops test: \d+ flag tests pass\.\n$/);
  });

  it('fails a wrong case at its file:line:col with the expected and actual value and the deciding rule (exit 1)', async () => {
    const run = await flagops(['test', exampleWith(FAILING)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL tests/extra.yaml:1:3 staff are kept out (wrong on purpose) (gates/new_checkout): expected false, got true, decided by rule staff [');
    expect(run.stdout).toMatch(/FAIL tests\/extra\.yaml:5:3 half of everyone \(wrong on purpose\) \(gates\/new_checkout in production\): expected a pass rate of 0\.5 ± 0\.05, got 0\.\d+ \(\d+ of 2000 units passed\), decided by gradual rollout/);
    expect(run.stdout).toContain('FAIL tests/extra.yaml:10:3 US customers pay in euros (wrong on purpose) (dynamic_configs/pricing): expected {"currency":"EUR"}, got {"currency":"USD","shippingFee":5.5}, decided by rule us pricing [');
    expect(run.stdout).toMatch(/^ok {3}tests\/extra\.yaml:14:3 dark mode for everyone/m);
    expect(run.stdout).toMatch(/flagops test: 3 of \d+ flag tests fail\.\n$/);
  });

  it('answers in JSON: a summary and every case with its decision', async () => {
    const run = await flagops(['test', exampleWith(FAILING), '--format', 'json']);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as { summary: { total: number; passed: number; failed: number }; results: FlagTestResult[] };
    expect(body.summary.failed).toBe(3);
    expect(body.summary.passed).toBe(body.summary.total - 3);
    const extra = body.results.filter((r) => r.file === 'tests/extra.yaml');
    expect(extra.map((r) => [r.line, r.passed])).toEqual([[1, false], [5, false], [10, false], [14, true]]);
    expect(extra[0]).toMatchObject({ entity: 'gates/new_checkout', expected: false, actual: true, decision: { reason: 'rule', ruleName: 'staff' } });
    const sample = extra[1]?.sample;
    expect(sample?.units).toBe(2000);
    expect(sample?.passRate).toBe((sample?.matched ?? -1) / 2000);
    expect(sample?.rules.reduce((n, r) => n + r.units, 0)).toBe(2000);
  });

  it('refuses a broken test file before running anything, at file:line:col', async () => {
    const run = await flagops(['test', exampleWith('- name: x\n  entity: gates/new_chekout\n  user: {userID: u}\n  expect: true\n  expct: false\n')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("tests/extra.yaml:2:11 [0].entity: names no entity of the repository: no file declares gates/new_chekout (did you mean 'gates/new_checkout'?)");
    expect(run.stderr).toContain("tests/extra.yaml:5:3 [0].expct: is not a known field (did you mean 'expect'?)");
  });
});

describe('flagops validate runs the flag tests', () => {
  it('a failed case is an error at its line; passing cases add nothing', async () => {
    const failing = await flagops(['validate', exampleWith(FAILING)]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("tests/extra.yaml:1:3 flag test 'staff are kept out (wrong on purpose)' fails (gates/new_checkout): expected false, got true, decided by rule staff [");
    expect(failing.stdout).toContain('flagops validate: 3 errors');
    const clean = await flagops(['validate', EXAMPLE]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^flagops validate: \d+ entity files valid \(0 errors/);
  });

  it('reports a test file with unknown keys in its JSON form too', async () => {
    const run = await flagops(['validate', exampleWith('- name: x\n  entity: gates/dark_mode\n  user: {userID: u}\n  expect: true\n  extra: 1\n'), '--format', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ valid: false, diagnostics: [{ file: 'tests/extra.yaml', line: 5, column: 3, property: '[0].extra', code: 'flag-test', severity: 'error' }] });
  });

  it('reads test files as entity files: a link out of the repository and a file over the size limit are refused', async () => {
    const dir = exampleWith('- name: x\n  entity: gates/dark_mode\n  user: {userID: u}\n  expect: true\n');
    symlinkSync('/etc/hostname', join(dir, 'tests/outside.yaml'));
    writeFileSync(join(dir, 'tests/big.yaml'), `- name: big\n  entity: gates/dark_mode\n  user: {userID: u, custom: {pad: '${'x'.repeat(300_000)}'}}\n  expect: true\n`);
    const run = await flagops(['validate', dir, '--format', 'json', '--max-file-size', '100KiB']);
    expect(run.code).toBe(1);
    const diagnostics = (JSON.parse(run.stdout) as { diagnostics: { file: string; message: string }[] }).diagnostics;
    expect(diagnostics.find((d) => d.file === 'tests/outside.yaml')?.message).toMatch(/symbolic link to a location outside the repository; not read/);
    expect(diagnostics.find((d) => d.file === 'tests/big.yaml')?.message).toMatch(/bytes/);
  });
});
