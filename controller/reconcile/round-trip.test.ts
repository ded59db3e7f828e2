import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { fmtRepo } from '../source/fmt-repo.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo } from '../source/load-repo.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { apiPathOf, SAMPLE_ENTITIES } from '../test-support/sample-entities.js';
import { ConsoleClient } from './console-client.js';
import { exportConsole } from './export-service.js';
import { planAgainstConsole } from './plan-service.js';

let c: TestConsole;
let client: ConsoleClient;
let dir: string;

beforeAll(async () => {
  c = createTestConsole();
  for (const { folder, body } of SAMPLE_ENTITIES) {
    const res = await c.call('POST', apiPathOf(folder), body);
    expect(res.statusCode, `${folder}: ${res.body}`).toBe(201);
  }
  const address = await c.app.listen({ port: 0, host: '127.0.0.1' });
  client = new ConsoleClient({ baseUrl: address, apiKey: ADMIN_KEY });
  dir = await mkdtemp(join(tmpdir(), 'flagops-roundtrip-'));
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

describe('export then plan', () => {
  it('covers every kind', () => {
    expect(new Set(SAMPLE_ENTITIES.map((e) => e.folder))).toEqual(new Set(ENTITY_SCHEMAS.map((e) => e.folder)));
  });

  it('exports every live entity as a file that validates, and the plan is empty', async () => {
    const result = await exportConsole(client, dir);
    expect(result.files).toHaveLength(SAMPLE_ENTITIES.length);
    const repo = await loadRepo(new FsRepoReader(dir));
    expect(repo.diagnostics).toEqual([]);
    expect(repo.entities).toHaveLength(SAMPLE_ENTITIES.length);
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(dir), client });
    expect(plan.changes).toEqual([]);
    expect(plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: SAMPLE_ENTITIES.length });
  });

  it('writes every file in the canonical form flagops fmt --check accepts', async () => {
    const report = await fmtRepo(dir, { check: true });
    expect(report.checked).toBe(SAMPLE_ENTITIES.length);
    expect(report.changed).toEqual([]);
  });

  it('keeps JSON5 blocks with their comments and leaves defaults out', async () => {
    const text = await readFile(join(dir, 'dynamic_configs/pricing.yaml'), 'utf8');
    expect(text).toMatch(/^# yaml-language-server: \$schema=\.\.\/schemas\/dynamic_config\.schema\.json\n/);
    expect(text).toContain('defaultValueJson5: |\n  {\n    price: 10, // euros\n  }\n');
    expect(text).not.toMatch(/^defaultValue:/m);
    expect(text).not.toContain('isEnabled');
    expect(text).not.toContain('creatorEmail');
    expect(text).not.toMatch(/\bid: [A-Za-z0-9_-]{16}\b/);
  });

  it('leaves response-only fields out of the files: rule rollouts, and unset fields the read leaves out', async () => {
    const live = (await c.call('GET', '/console/v1/gates/new_checkout')).json().data as { rules: Record<string, unknown>[] };
    expect(live.rules[0]).toMatchObject({ completedAutomatedRollouts: [], pendingAutomatedRollouts: [] });
    const plain = (await c.call('GET', '/console/v1/experiments/plain_experiment')).json().data as Record<string, unknown>;
    expect(plain).not.toHaveProperty('controlGroupID');
    for (const file of ['gates/new_checkout.yaml', 'dynamic_configs/pricing.yaml', 'experiments/plain_experiment.yaml']) {
      const text = await readFile(join(dir, file), 'utf8');
      expect(text, file).not.toContain('AutomatedRollouts');
      expect(text, file).not.toMatch(/: null$/m);
    }
  });

  it("plans no change for an experiment whose file leaves a group's parameterValues out (the console answers {})", async () => {
    const own = await mkdtemp(join(tmpdir(), 'flagops-roundtrip-groups-'));
    try {
      const groups = '  - name: control\n    size: 50\n  - name: test\n    size: 50\n    parameterValues: { color: red }\n';
      await mkdir(join(own, 'experiments'));
      await writeFile(join(own, 'experiments/bare_groups.yaml'), `id: bare_groups\nname: bare groups\ngroups:\n${groups}`);
      const created = await c.call('POST', '/console/v1/experiments', { id: 'bare_groups', name: 'bare groups', groups: [{ name: 'control', size: 50 }, { name: 'test', size: 50, parameterValues: { color: 'red' } }] });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().data.groups[0].parameterValues).toEqual({});
      const { plan } = await planAgainstConsole({ desired: new FsRepoReader(own), client });
      expect(plan.changes).toEqual([]);
    } finally {
      await c.call('DELETE', '/console/v1/experiments/bare_groups');
      await rm(own, { recursive: true, force: true });
    }
  });

  it('plans an edit as a field-level update and a removed managed file as a delete only with pruning', async () => {
    const file = join(dir, 'gates/new_checkout.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('passPercentage: 25', 'passPercentage: 50'));
    await unlink(join(dir, 'segments/beta_testers.yaml'));
    // The gate still names the segment, so drop that condition too.
    const edited = (await readFile(file, 'utf8')).replace(/conditions:\n {6}- type: passes_segment\n {8}targetValue:\n {10}- beta_testers\n/, 'conditions: []\n');
    await writeFile(file, edited);
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(dir), client });
    expect(plan.changes.map((ch) => `${ch.action} ${ch.kind}/${ch.id}`)).toEqual(['update gates/new_checkout']);
    expect(plan.changes[0]?.fields).toContainEqual({ path: 'rules[name=rollout].passPercentage', old: 25, new: 50 });
    expect(plan.summary.untracked).toBe(1);
    const pruned = await planAgainstConsole({ desired: new FsRepoReader(dir), client, prune: true });
    expect(pruned.plan.changes.map((ch) => `${ch.action} ${ch.kind}/${ch.id}`)).toEqual(['delete segments/beta_testers', 'update gates/new_checkout']);
  });
});
