/**
 * Overrides in a config repository: files declare them as entity fields, plan shows them, apply
 * writes them (through reviews for gates and experiments), export writes them back, and the plan
 * of the export is empty — with archived entities and entities whose optional fields are all left out.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo } from '../source/load-repo.js';
import { writeFiles } from '../test-support/git-repo.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { applyRepo } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { exportConsole } from './export-service.js';
import { planAgainstConsole } from './plan-service.js';

const FILES: Record<string, string> = {
  'flagops.yaml': 'console:\n  url: http://127.0.0.1:8080\nenvironments: [staging, production]\n',
  'segments/staff.yaml': 'id: staff\nname: staff\ntype: id_list\nids: [u1]\n',
  'gates/beta.yaml': [
    'id: beta',
    'name: beta',
    'overrides:',
    '  passingUserIDs: [alice, bob]',
    '  failingUserIDs: [mallory]',
    '  environmentOverrides:',
    '    - environment: staging',
    '      passingIDs: [tester]',
    '',
  ].join('\n'),
  // Archived, with overrides: export → plan must keep both.
  'gates/retired.yaml': 'id: retired\nname: retired\narchived: true\noverrides:\n  failingUserIDs: [zed]\n',
  // Every optional field left out: the console's defaults must not read as changes.
  'gates/bare.yaml': 'id: bare\nname: bare\n',
  'layers/home.yaml': [
    'id: home',
    'name: home',
    'conditionalOverrides:',
    '  - { type: segment, name: staff, experimentName: exp1, groupName: Test }',
    'idOverrides:',
    '  - { groupName: Control, ids: [carol], experimentName: exp1 }',
    '',
  ].join('\n'),
  'experiments/exp1.yaml': [
    'id: exp1',
    'name: exp one',
    'layerID: home',
    'overrides:',
    '  - { type: gate, id: beta, groupID: Test, environment: production }',
    'userIDOverrides:',
    '  - { groupID: Control, ids: [dave, erin] }',
    '',
  ].join('\n'),
};

let c: TestConsole;
let client: ConsoleClient;
let approver: ConsoleClient;
let repo: string;
let exported: string;

beforeAll(async () => {
  c = createTestConsole();
  const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  client = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  approver = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('lead@example.com', 'member') });
  repo = await mkdtemp(join(tmpdir(), 'flagops-overrides-'));
  exported = await mkdtemp(join(tmpdir(), 'flagops-overrides-export-'));
  writeFiles(repo, FILES);
});
afterAll(async () => {
  await c.close();
  await rm(repo, { recursive: true, force: true });
  await rm(exported, { recursive: true, force: true });
});

describe('overrides in a config repository', () => {
  it('validate names what the console would refuse: ids twice, unknown groups, undeclared gates, experiments outside the layer', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'flagops-overrides-bad-'));
    try {
      writeFiles(bad, {
        ...FILES,
        'gates/beta.yaml': 'id: beta\nname: beta\noverrides:\n  passingUserIDs: [alice]\n  failingUserIDs: [alice]\n',
        'experiments/exp1.yaml': 'id: exp1\nname: exp one\nlayerID: home\noverrides:\n  - { type: segment, id: nobody, groupID: Treatment }\n',
        'experiments/solo.yaml': 'id: solo\nname: solo\n',
        'layers/home.yaml': 'id: home\nname: home\nidOverrides:\n  - { groupName: Test, ids: [u1], experimentName: solo }\n  - { groupName: Nope, ids: [u2], experimentName: exp1 }\n',
      });
      const issues = (await loadRepo(new FsRepoReader(bad))).diagnostics.map((d) => `${d.file} ${d.property}`);
      expect(issues.sort()).toEqual([
        'experiments/exp1.yaml overrides[0].groupID',
        'experiments/exp1.yaml overrides[0].id',
        'gates/beta.yaml overrides.failingUserIDs[0]',
        'layers/home.yaml idOverrides[0].experimentName',
        'layers/home.yaml idOverrides[1].groupName',
      ]);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it('validate accepts them; plan shows them on the creates', async () => {
    expect((await loadRepo(new FsRepoReader(repo))).diagnostics).toEqual([]);
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(repo), client });
    expect(plan.summary).toMatchObject({ create: 6, update: 0 });
    const fields = (kind: string, id = kind === 'gates' ? 'beta' : undefined) => JSON.stringify(plan.changes.find((ch) => ch.kind === kind && (id === undefined || ch.id === id))?.fields);
    expect(fields('gates')).toContain('mallory');
    expect(fields('experiments')).toContain('userIDOverrides');
    expect(fields('layers')).toContain('conditionalOverrides');
  });

  it('apply writes them, and the re-plan is empty', async () => {
    const report = await applyRepo({ desired: new FsRepoReader(repo), client, approver, commit: 'abc123', pollIntervalMs: 5, sleep: async () => undefined });
    expect(report.outcomes.filter((o) => o.status !== 'committed' && o.status !== 'written').map((o) => `${o.kind}/${o.id} ${o.status} ${o.message}`)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.replan.changes).toEqual([]);
    expect((await c.call('GET', '/console/v1/gates/beta/overrides')).json().data).toEqual({
      passingUserIDs: ['alice', 'bob'],
      failingUserIDs: ['mallory'],
      passingCustomIDs: [],
      failingCustomIDs: [],
      environmentOverrides: [{ environment: 'staging', passingIDs: ['tester'], failingIDs: [] }],
    });
    expect((await c.call('GET', '/console/v1/experiments/exp1/overrides')).json().data).toEqual({
      overrides: [{ type: 'gate', id: 'beta', groupID: 'Test', environment: 'production' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['dave', 'erin'] }],
    });
  });

  it('an override added in the console is drift the plan names by field', async () => {
    expect((await c.call('PATCH', '/console/v1/gates/beta/overrides', { passingCustomIDs: ['acme'] })).statusCode).toBe(200);
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(repo), client });
    const change = plan.changes.find((ch) => ch.kind === 'gates');
    expect(change?.fields).toEqual([{ path: 'overrides.passingCustomIDs', old: ['acme'], new: [] }]);
    expect((await c.call('DELETE', '/console/v1/gates/beta/overrides', { passingCustomIDs: ['acme'] })).statusCode).toBe(200);
  });

  it('export writes them back, and the plan of the export is empty', async () => {
    expect((await c.call('GET', '/console/v1/gates/retired')).json().data).toMatchObject({ status: 'Archived', overrides: { failingUserIDs: ['zed'] } });
    await exportConsole(client, exported);
    const gate = await readFile(join(exported, 'gates/beta.yaml'), 'utf8');
    expect(gate).toContain('mallory');
    const retired = await readFile(join(exported, 'gates/retired.yaml'), 'utf8');
    expect(retired).toContain('archived: true');
    expect(retired).toContain('zed');
    // Only what the file said (and the tag apply marks managed entities with): no defaults written out.
    expect(Object.keys(parseYaml(await readFile(join(exported, 'gates/bare.yaml'), 'utf8')) as object)).toEqual(['id', 'name', 'tags']);
    expect(await readFile(join(exported, 'layers/home.yaml'), 'utf8')).toContain('experimentName: exp1');
    expect((await loadRepo(new FsRepoReader(exported))).diagnostics).toEqual([]);
    const { plan } = await planAgainstConsole({ desired: new FsRepoReader(exported), client });
    expect(plan.changes).toEqual([]);
  });
});
