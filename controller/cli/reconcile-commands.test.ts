import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initGitRepo } from '../test-support/git-repo.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../source/__fixtures__/invalid/', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function flagops(args: string[], env: Record<string, string> = {}, cwd = process.cwd()): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd, isTTY: false, signal: new AbortController().signal }, COMMANDS);
  return { code, stdout, stderr };
}

const tmp: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tmp.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

describe('flagops validate', () => {
  it('exits 0 on a clean repository', async () => {
    const run = await flagops(['validate', EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/32 entity files valid/);
  });

  it('exits 1 and prints file:line:col property: message', async () => {
    const run = await flagops(['validate', `${FIXTURES}unknown-field`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("gates/typo.yaml:3:1 descripton: is not a known field (did you mean 'description'?)");
  });

  it('--format json lists every diagnostic', async () => {
    const run = await flagops(['validate', `${FIXTURES}reference-holdout-fields`, '--format', 'json']);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout);
    expect(body).toMatchObject({ valid: false, summary: { errors: 3, warnings: 0 } });
    expect(body.diagnostics[0]).toEqual({ file: 'holdouts/refs.yaml', line: 4, column: 11, property: 'gateIDs[0]', message: expect.stringContaining('gates/no_gate'), code: 'reference', severity: 'error' });
  });

  it('--format sarif is SARIF 2.1.0 with a location per result', async () => {
    const run = await flagops(['validate', `${FIXTURES}server-field`, '--format', 'sarif']);
    expect(run.code).toBe(1);
    const sarif = JSON.parse(run.stdout);
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(2);
    expect(sarif.runs[0].results[0]).toMatchObject({
      ruleId: 'flagops/server-field',
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'gates/stamped.yaml' }, region: { startLine: 3, startColumn: 1 } } }],
    });
  });

  it('refuses an unknown format', async () => {
    const run = await flagops(['validate', EXAMPLE, '--format', 'xml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--format: must be one of text, json, sarif');
  });
});

describe('flagops plan and export against a console', () => {
  let c: TestConsole;
  let url: string;
  const env = { FLAGOPS_API_KEY: ADMIN_KEY };

  beforeAll(async () => {
    c = createTestConsole();
    url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => c.close());

  it('plans creates with --detailed-exitcode 2, then exports an empty-planning repository', async () => {
    const plan = await flagops(['plan', EXAMPLE, '--console', url, '--format', 'json', '--detailed-exitcode'], env);
    expect(plan.code).toBe(2);
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 32, update: 0, delete: 0, drift: 0, unchanged: 0 });

    await c.call('POST', '/console/v1/gates', { id: 'from_console', name: 'From console', tags: ['flagops-managed'] });
    const out = tempDir('flagops-export-');
    const exported = await flagops(['export', '--out', out, '--console', url], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Exported 1 entities');
    expect(readFileSync(join(out, 'gates/from_console.yaml'), 'utf8')).toBe(
      '# yaml-language-server: $schema=../schemas/gate.schema.json\nid: from_console\nname: From console\ntags:\n  - flagops-managed\n',
    );
    expect(readFileSync(join(out, 'flagops.yaml'), 'utf8')).toContain(`url: ${url}`);
    // flagops.yaml now names the console: no --console needed.
    const replan = await flagops(['plan', out, '--detailed-exitcode'], env);
    expect(replan.stderr).toBe('');
    expect(replan.code).toBe(0);
    expect(replan.stdout).toContain('No changes');
  });

  it('fails with exit 1 naming the variable when the key is missing', async () => {
    const run = await flagops(['plan', EXAMPLE, '--console', url], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('FLAGOPS_API_KEY');
  });

  it('fails with exit 1 on a wrong key', async () => {
    const run = await flagops(['plan', EXAMPLE, '--console', url], { FLAGOPS_API_KEY: 'console-wrong' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/console: GET \/console\/v1\/\w+/);
  });

  it('refuses to plan an invalid repository, listing every error with its position', async () => {
    const run = await flagops(['plan', `${FIXTURES}reference-experiment-fields`, '--console', url], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('experiments/refs.yaml:3:10 layerID: refers to layers/no_layer');
    expect(run.stderr).toContain('experiments/refs.yaml:5:23 assignmentSourceName:');
  });

  it('plan, apply and status refuse an invalid repository printing each error exactly as validate does, with or without a property', async () => {
    const dir = tempDir('flagops-invalid-');
    cpSync(EXAMPLE, dir, { recursive: true });
    // A YAML error (no property, a message ending in the bracket it wants), a folder named like an
    // entity file (no property), and a schema error (a property).
    writeFileSync(join(dir, 'gates/dark_mode.yaml'), 'id: dark_mode\nname: [\n');
    mkdirSync(join(dir, 'gates/folder.yaml'));
    writeFileSync(join(dir, 'gates/new_checkout.yaml'), 'id: new_checkout\nname: x\n');
    const validate = await flagops(['validate', dir]);
    expect(validate.code).toBe(1);
    const expected = validate.stdout.split('\n').filter((line) => /^gates\//.test(line));
    expect(expected).toEqual([
      'gates/dark_mode.yaml:3:1 Flow sequence in block collection must be sufficiently indented and end with a ]',
      'gates/folder.yaml:1:1 is a folder, not a regular file; not read',
      'gates/new_checkout.yaml:2:7 name: must be 3 to 100 characters long',
    ]);
    const keys = { ...env, FLAGOPS_APPROVER_KEY: 'console-another-key' };
    for (const args of [['plan', dir], ['apply', dir, '--auto-approve'], ['status', dir]]) {
      const run = await flagops([...args, '--console', url], keys);
      expect(run.code, args[0]).toBe(1);
      expect(run.stderr, args[0]).toBe(`error: ${dir} does not validate (3 errors); run flagops validate.\n${expected.map((line) => `  ${line}\n`).join('')}`);
    }
  });

  it('--format markdown is a PR comment', async () => {
    const run = await flagops(['plan', EXAMPLE, '--console', url, '--format', 'markdown'], env);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('<!-- flagops-plan -->\n### flagops plan: 32 to create')).toBe(true);
    expect(run.stdout).toContain('<details><summary>');
  });

  it('export needs --out', async () => {
    const run = await flagops(['export', '--console', url], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--out: is required');
  });
});

describe('flagops plan --base/--head (pull-request preview from git)', () => {
  let repo: string;
  let config: string;

  beforeAll(async () => {
    repo = tempDir('flagops-git-');
    // The config repository lives in a sub-folder of the git repository.
    config = join(repo, 'flags');
    mkdirSync(config);
    const git = await initGitRepo(repo);
    cpSync(EXAMPLE, config, { recursive: true });
    await git.add('.');
    await git.commit('base');
    const gate = join(config, 'gates/new_checkout.yaml');
    writeFileSync(gate, readFileSync(gate, 'utf8').replace('passPercentage: 20', 'passPercentage: 40'));
    rmSync(join(config, 'prompts/search_query_rewriter.yaml'));
    rmSync(join(config, 'dynamic_configs/feature_limits.yaml'));
    writeFileSync(join(config, 'gates/brand_new.yaml'), 'id: brand_new\nname: Brand new\n');
    await git.add('.');
    await git.commit('head');
  });

  it('compares two commits without a console', async () => {
    const run = await flagops(['plan', config, '--base', 'HEAD~1', '--head', 'HEAD', '--format', 'json', '--prune'], {});
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan.desired).toBe('git HEAD');
    expect(plan.live).toBe('git HEAD~1');
    // Dependency order of kinds, then id.
    expect(plan.changes.map((c: { action: string; kind: string; id: string }) => `${c.action} ${c.kind}/${c.id}`)).toEqual([
      'create gates/brand_new',
      'update gates/new_checkout',
      'delete dynamic_configs/feature_limits',
    ]);
    expect(plan.changes.find((c: { id: string }) => c.id === 'new_checkout').fields).toEqual([{ path: 'rules[name=gradual rollout].passPercentage', old: 20, new: 40 }]);
    expect(plan.changes.find((c: { id: string }) => c.id === 'feature_limits').file).toBe('dynamic_configs/feature_limits.yaml');
    // The console has no delete for AI configs: the removed one stays, and the plan says so.
    expect(plan.warnings).toContainEqual(expect.stringMatching(/^No file declares prompts\/search_query_rewriter, and the console has no delete for its kind/));
  });

  it('without --prune a removed file is left alone', async () => {
    const run = await flagops(['plan', config, '--base', 'HEAD~1', '--head', 'HEAD', '--format', 'json'], {});
    const plan = JSON.parse(run.stdout);
    expect(plan.summary).toMatchObject({ create: 1, update: 1, delete: 0, untracked: 2 });
  });

  it('compares the working tree with a ref when --head is left out', async () => {
    const gate = join(config, 'gates/dark_mode.yaml');
    const before = readFileSync(gate, 'utf8');
    writeFileSync(gate, before.replace('Dark colour scheme for the web shop.', 'Dark colours.'));
    try {
      const run = await flagops(['plan', 'flags', '--base', 'HEAD', '--detailed-exitcode'], {}, repo);
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('~ gates/dark_mode (gates/dark_mode.yaml)');
      expect(run.stdout).toContain('~ description: Dark colour scheme for the web shop. → Dark colours.');
      expect(run.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 drifted, 30 unchanged.');
    } finally {
      writeFileSync(gate, before);
    }
  });

  it('names an unknown ref', async () => {
    const run = await flagops(['plan', config, '--base', 'no-such-branch'], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Unknown git ref 'no-such-branch'");
  });

  it('--head needs --base', async () => {
    const run = await flagops(['plan', config, '--head', 'HEAD'], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--head: needs --base');
  });
});

describe('flagops plan --base/--head with files that do not load', () => {
  let repo: string;
  const BASE_WARNING =
    '1 file of the base git HEAD~2 could not be read or does not validate: gates/dark_mode.yaml. Its entities are treated as absent at the base, so a change to one shows as a create.';

  beforeAll(async () => {
    repo = tempDir('flagops-git-unread-');
    const git = await initGitRepo(repo);
    cpSync(EXAMPLE, repo, { recursive: true });
    const gate = join(repo, 'gates/dark_mode.yaml');
    const fixed = readFileSync(gate, 'utf8');
    writeFileSync(gate, 'id: dark_mode\nname: [\n');
    await git.add('.');
    await git.commit('a broken gate');
    writeFileSync(gate, fixed);
    await git.add('.');
    await git.commit('the gate fixed');
    // A folder named like an entity file, and a file that is not UTF-8.
    mkdirSync(join(repo, 'gates/dir.yaml'));
    writeFileSync(join(repo, 'gates/dir.yaml/inner.yaml'), 'id: inner\nname: inner\n');
    writeFileSync(join(repo, 'gates/latin.yaml'), Buffer.concat([Buffer.from('id: latin\nname: latin\ndescription: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    await git.add('.');
    await git.commit('files that do not load');
  });

  it('warns about base files that could not be read, in every format, and still plans', async () => {
    const text = await flagops(['plan', repo, '--base', 'HEAD~2', '--head', 'HEAD~1'], {});
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('+ gates/dark_mode');
    expect(text.stdout).toContain(`warning: ${BASE_WARNING}`);
    const markdown = await flagops(['plan', repo, '--base', 'HEAD~2', '--head', 'HEAD~1', '--format', 'markdown'], {});
    expect(markdown.stdout).toContain(`> **Warning:** ${BASE_WARNING}`);
    const json = await flagops(['plan', repo, '--base', 'HEAD~2', '--head', 'HEAD~1', '--format', 'json'], {});
    expect(JSON.parse(json.stdout).warnings).toEqual([BASE_WARNING]);
    // A base that loads says nothing.
    const clean = await flagops(['plan', repo, '--base', 'HEAD~1', '--head', 'HEAD~1', '--format', 'json'], {});
    expect(JSON.parse(clean.stdout).warnings).toEqual([]);
  });

  it('refuses a head with a folder named *.yaml or bytes that are not UTF-8, as validate does in the working tree', async () => {
    const validate = await flagops(['validate', repo]);
    expect(validate.code).toBe(1);
    const expected = ['gates/dir.yaml:1:1 is a folder, not a regular file; not read', 'gates/latin.yaml:3:17 is not valid UTF-8 (byte 0xE9)'];
    expect(validate.stdout.split('\n').filter((line) => line.startsWith('gates/'))).toEqual(expected);
    const plan = await flagops(['plan', repo, '--base', 'HEAD~1', '--head', 'HEAD'], {});
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(`error: git HEAD does not validate (2 errors); run flagops validate.\n${expected.map((line) => `  ${line}\n`).join('')}`);
  });
});
