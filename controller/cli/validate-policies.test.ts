import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitRepo } from '../test-support/git-repo.js';
import { POLICY_BASE_FILES, POLICY_REPO_CONFIG, RAMP_PERCENTAGE_AT, rampGate } from '../test-support/policy-fixtures.js';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

// `flagops validate --base REF`: the bridge's policies on a pull request's changes, in-process on
// real git repositories.

const tmp: string[] = [];
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

async function repoWith(files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-policies-'));
  tmp.push(dir);
  await createGitRepo(dir, files, 'base');
  return dir;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stdout += t), env: {}, cwd: tmpdir(), isTTY: false, signal: new AbortController().signal };
  return { code: await runCli(args, io, COMMANDS), stdout };
}

const hoursFromNow = (h: number): string => new Date(Date.now() + h * 3_600_000).toISOString();
const withBridge = (bridge: string): string => POLICY_REPO_CONFIG.replace('bridge:\n', `bridge:\n${bridge}`);

describe('flagops validate --base', () => {
  it('passes a change within the step, and reports a larger one at its passPercentage line', async () => {
    const dir = await repoWith(POLICY_BASE_FILES);
    writeFileSync(join(dir, 'gates/ramp_gate.yaml'), rampGate(35));
    expect(await cli(['validate', dir, '--base', 'main'])).toMatchObject({ code: 0 });
    writeFileSync(join(dir, 'gates/ramp_gate.yaml'), rampGate(36));
    const run = await cli(['validate', dir, '--base', 'main', '--format', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).diagnostics).toEqual([
      {
        file: 'gates/ramp_gate.yaml',
        line: Number(RAMP_PERCENTAGE_AT.split(':')[0]),
        column: Number(RAMP_PERCENTAGE_AT.split(':')[1]),
        property: 'rules[0].passPercentage',
        message: "policy maxPassPercentageStep: rule 'ramp' passPercentage rises 10 → 36, more than the allowed step of 25.",
        code: 'policy',
        severity: 'error',
      },
    ]);
  });

  it('rejects a change of a protected entity at its id, and its delete (with pruning on) at the first line of the deleted file', async () => {
    const dir = await repoWith({ ...POLICY_BASE_FILES, 'flagops.yaml': `prune: { enabled: true }\n${withBridge('  protectedEntities: [gates/ramp_gate]\n')}` });
    writeFileSync(join(dir, 'gates/ramp_gate.yaml'), rampGate(20));
    const changed = await cli(['validate', dir, '--base', 'main']);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('gates/ramp_gate.yaml:1:1 policy protectedEntities: gates/ramp_gate is protected by policy: change it outside the webhook flow.');
    unlinkSync(join(dir, 'gates/ramp_gate.yaml'));
    const deleted = await cli(['validate', dir, '--base', 'main']);
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toContain('gates/ramp_gate.yaml:1:1 policy protectedEntities: gates/ramp_gate is protected by policy');
  });

  it('makes an active freeze window an error and one starting within 24 hours a warning, for changed files only', async () => {
    const active = await repoWith({ ...POLICY_BASE_FILES, 'flagops.yaml': withBridge(`  freezeWindows: [{ start: "${hoursFromNow(-1)}", end: "${hoursFromNow(2)}", reason: release }]\n`) });
    expect(await cli(['validate', active, '--base', 'main'])).toMatchObject({ code: 0 });
    writeFileSync(join(active, 'gates/ramp_gate.yaml'), rampGate(20));
    const frozen = await cli(['validate', active, '--base', 'main']);
    expect(frozen.code).toBe(1);
    expect(frozen.stdout).toContain('gates/ramp_gate.yaml:1:1 policy freezeWindows: a freeze window is active (release).');

    const soon = await repoWith({ ...POLICY_BASE_FILES, 'flagops.yaml': withBridge(`  freezeWindows: [{ start: "${hoursFromNow(5)}", end: "${hoursFromNow(8)}" }]\n`) });
    writeFileSync(join(soon, 'gates/ramp_gate.yaml'), rampGate(20));
    const warned = await cli(['validate', soon, '--base', 'main']);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(/gates\/ramp_gate\.yaml:1:1 warning: policy freezeWindows: a freeze window starts at \S+ \(in about 5 h\): the bridge rejects changes from then\./);
  });

  it('judges nothing of a repository that does not validate, and names an unknown base', async () => {
    const dir = await repoWith(POLICY_BASE_FILES);
    writeFileSync(join(dir, 'gates/ramp_gate.yaml'), rampGate(90, 'checkout'));
    const run = await cli(['validate', dir, '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('gates/ramp_gate.yaml:4:7 tags: breaks team rule policies.schemas.gates#/properties/tags/contains');
    expect(run.stdout).not.toContain('maxPassPercentageStep');
    const unknown = await cli(['validate', await repoWith(POLICY_BASE_FILES), '--base', 'no-such-ref']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/no-such-ref/);
  });

  it('reports a team rule that is not JSON Schema at its line in flagops.yaml, never a crash', async () => {
    const dir = await repoWith({ ...POLICY_BASE_FILES, 'flagops.yaml': POLICY_REPO_CONFIG.replace('required: [tags, description]', 'required: tags') });
    const run = await cli(['validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('flagops.yaml:7:17 policies.schemas.gates.required: is not valid JSON Schema 2020-12: must be array');
    const typo = await cli(['validate', await repoWith({ 'flagops.yaml': 'policies:\n  schemas:\n    gate: { required: [tags] }\n' })]);
    expect(typo.stdout).toMatch(/flagops\.yaml:3:5 policies\.schemas\.gate: is not a known field \(did you mean 'gates'\?\)/);
  });
});
