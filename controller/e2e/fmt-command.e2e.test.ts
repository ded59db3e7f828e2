/**
 * `flagops fmt` from the built CLI on a temporary git repository: --check lists what is not canonical
 * and writes nothing; fmt rewrites key order and layout keeping every comment; a plan of the working
 * tree against the commit before fmt (no console) then has no changes: what the files declare is the same.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../test-support/spawn-console.js';
import { createGitRepo } from '../test-support/git-repo.js';

let dir: string;
let repo: string;

const UNFORMATTED_GATE = `# yaml-language-server: $schema=../schemas/gate.schema.json
# Checkout, staff first.
tags: [flagops-managed]   # managed by flagops
rules:
  # Staff see it first.
  - conditions: [ { targetValue: [staff], type: passes_segment } ]
    passPercentage: 100
    name: staff
name: checkout
id: checkout
`;

const CANONICAL_GATE = `# yaml-language-server: $schema=../schemas/gate.schema.json
# Checkout, staff first.
id: checkout
name: checkout
rules:
  # Staff see it first.
  - name: staff
    passPercentage: 100
    conditions: [{type: passes_segment, targetValue: [staff]}]
tags: [flagops-managed] # managed by flagops
`;

const CANONICAL_SEGMENT = `id: staff
name: staff
type: id_list
ids: [alice, bob]
`;

const FILES: Record<string, string> = {
  'flagops.yaml': 'console: { url: http://127.0.0.1:1 }\n',
  'gates/checkout.yaml': UNFORMATTED_GATE,
  'segments/staff.yaml': CANONICAL_SEGMENT,
};

function flagops(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FLAGOPS_API_KEY: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const read = (path: string): string => readFileSync(join(repo, path), 'utf8');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-fmt-'));
  repo = join(dir, 'repo');
  await createGitRepo(repo, FILES, 'flags as written');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flagops fmt', () => {
  it('--check lists the files that would change, exits 1 and writes nothing', () => {
    const run = flagops(['fmt', repo, '--check']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('1 of 2 entity file(s)');
    expect(run.stdout).toContain('  gates/checkout.yaml\n');
    expect(run.stdout).not.toContain('segments/staff.yaml');
    expect(read('gates/checkout.yaml')).toBe(UNFORMATTED_GATE);
  });

  it('rewrites in schema key order with every comment kept; then --check passes', () => {
    const run = flagops(['fmt', repo]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Formatted 1 of 2 entity file(s)');
    expect(read('gates/checkout.yaml')).toBe(CANONICAL_GATE);
    expect(read('segments/staff.yaml')).toBe(CANONICAL_SEGMENT);
    const check = flagops(['fmt', repo, '--check']);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain('2 entity file(s)');
  });

  it('changes nothing the files declare: validate passes and a plan against the commit before fmt is empty', () => {
    expect(flagops(['validate', repo]).code).toBe(0);
    const plan = flagops(['plan', repo, '--base', 'HEAD', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('reports YAML that does not parse at file:line:col and writes no file', () => {
    writeFileSync(join(repo, 'gates/checkout.yaml'), UNFORMATTED_GATE);
    writeFileSync(join(repo, 'gates/broken.yaml'), 'id: broken\nname: [unclosed\n');
    const run = flagops(['fmt', repo]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/gates\/broken\.yaml:\d+:\d+: /);
    expect(run.stderr).toContain('nothing was written');
    expect(read('gates/checkout.yaml')).toBe(UNFORMATTED_GATE);
  });

  it('formats the 32 example entities (JSON5 blocks, every kind) without changing what they declare', async () => {
    const examples = join(dir, 'examples');
    cpSync(fileURLToPath(new URL('../../examples/config-repo', import.meta.url)), examples, { recursive: true });
    await simpleGit(examples).init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev').add(['-A']).commit('examples');
    const comments = (): string[] =>
      spawnSync('git', ['grep', '-h', '-o', '#.*', '--', '*/*.yaml'], { cwd: examples, encoding: 'utf8' })
        .stdout.split('\n')
        .map((c) => c.trim())
        .sort();
    const before = comments();
    expect(flagops(['fmt', examples]).code).toBe(0);
    expect(comments()).toEqual(before);
    expect(flagops(['fmt', examples, '--check']).code).toBe(0);
    expect(flagops(['validate', examples]).code).toBe(0);
    const plan = flagops(['plan', examples, '--base', 'HEAD', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(readFileSync(join(examples, 'dynamic_configs/pricing.yaml'), 'utf8')).toContain('shippingFee: 4.9, // flat fee, in euros');
  });
});
