/**
 * The archived state in the config repository: `archived: true` in the file of a gate, dynamic
 * config, segment or experiment. Export writes it, plan shows archive/unarchive, apply submits the
 * archive and unarchive reviews, and export → plan is empty with archived entities present.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPlanJson } from '../core/render-plan-json.js';
import { renderPlanMarkdown } from '../core/render-plan-markdown.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { fmtRepo } from '../source/fmt-repo.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo } from '../source/load-repo.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { applyRepo } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { exportConsole } from './export-service.js';
import { planAgainstConsole } from './plan-service.js';

let c: TestConsole;
let admin: ConsoleClient;
let client: ConsoleClient;
let approver: ConsoleClient;
let dir: string;

const ENTITIES: [string, Record<string, unknown>][] = [
  ['segments', { id: 'old_staff', name: 'Old staff', type: 'id_list', ids: ['u1'] }],
  ['gates', { id: 'old_gate', name: 'Old gate', description: 'retired' }],
  ['gates', { id: 'live_gate', name: 'Live gate' }],
  ['dynamic_configs', { id: 'old_config', name: 'Old config', defaultValue: { a: 1 } }],
  ['experiments', { id: 'old_experiment', name: 'Old experiment' }],
];

beforeAll(async () => {
  c = createTestConsole();
  for (const [folder, body] of ENTITIES) {
    expect((await c.call('POST', `/console/v1/${folder}`, body)).statusCode).toBe(201);
    if (body['id'] !== 'live_gate') expect((await c.call('PUT', `/console/v1/${folder}/${String(body['id'])}/archive`)).statusCode).toBe(200);
  }
  const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  admin = new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY });
  client = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  approver = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('lead@example.com', 'member') });
  dir = await mkdtemp(join(tmpdir(), 'flagops-archived-'));
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

const file = (path: string) => join(dir, path);
const live = async (path: string) => (await c.call('GET', `/console/v1/${path}`)).json().data as Record<string, unknown>;
const plan = async () => (await planAgainstConsole({ desired: new FsRepoReader(dir), client: admin })).plan;
const apply = () => applyRepo({ desired: new FsRepoReader(dir), client, approver, pollIntervalMs: 5, sleep: async () => undefined });

describe('archived entities in the config repository', () => {
  it('export writes archived: true for archived entities only; the files validate, are canonical, and plan empty', async () => {
    await exportConsole(admin, dir);
    for (const [folder, body] of ENTITIES) {
      const text = await readFile(file(`${folder}/${String(body['id'])}.yaml`), 'utf8');
      if (body['id'] === 'live_gate') expect(text).not.toContain('archived');
      else expect(text, `${folder}/${String(body['id'])}`).toMatch(/^archived: true$/m);
    }
    const repo = await loadRepo(new FsRepoReader(dir));
    expect(repo.diagnostics).toEqual([]);
    expect((await fmtRepo(dir, { check: true })).changed).toEqual([]);
    const empty = await plan();
    expect(empty.changes).toEqual([]);
    expect(empty.summary.unchanged).toBe(ENTITIES.length);
  });

  it('validate refuses a non-boolean archived, and the field on kinds that cannot be archived', async () => {
    const gate = await readFile(file('gates/old_gate.yaml'), 'utf8');
    await writeFile(file('gates/old_gate.yaml'), gate.replace('archived: true', 'archived: yes please'));
    await mkdir(file('layers'), { recursive: true });
    await writeFile(file('layers/some_layer.yaml'), 'id: some_layer\nname: Some layer\narchived: true\n');
    try {
      const repo = await loadRepo(new FsRepoReader(dir));
      expect(repo.diagnostics.map((d) => `${d.file} ${d.property} ${d.code}`)).toEqual(
        expect.arrayContaining(['gates/old_gate.yaml archived schema', 'layers/some_layer.yaml archived unknown-field']),
      );
    } finally {
      await writeFile(file('gates/old_gate.yaml'), gate);
      await rm(file('layers'), { recursive: true });
    }
  });

  it('plan shows archive and unarchive in every format, beside the other field changes', async () => {
    const gate = await readFile(file('gates/old_gate.yaml'), 'utf8');
    await writeFile(file('gates/old_gate.yaml'), gate.replace('archived: true\n', '').replace('description: retired', 'description: back'));
    await writeFile(file('gates/live_gate.yaml'), `${await readFile(file('gates/live_gate.yaml'), 'utf8')}archived: true\n`);
    await writeFile(file('gates/new_archived.yaml'), 'id: new_archived\nname: New archived\narchived: true\n');
    const planned = await plan();
    expect(planned.changes.map((ch) => [ch.action, `${ch.kind}/${ch.id}`, ch.lifecycle])).toEqual([
      ['update', 'gates/live_gate', 'archive'],
      ['create', 'gates/new_archived', 'archive'],
      ['update', 'gates/old_gate', 'unarchive'],
    ]);
    expect(planned.changes[0]?.fields).toEqual([{ path: 'archived', new: true }]);
    expect(planned.changes[2]?.fields).toEqual([
      { path: 'description', old: 'retired', new: 'back' },
      { path: 'archived', old: true },
    ]);
    const json = JSON.parse(renderPlanJson(planned)) as { changes: Record<string, unknown>[] };
    expect(json.changes[2]).toMatchObject({ action: 'update', lifecycle: 'unarchive', fields: [{ path: 'description' }, { path: 'archived', old: true, new: null }] });
    const text = renderPlanText(planned);
    expect(text).toContain('~ gates/live_gate (archive) (gates/live_gate.yaml)\n    + archived: true\n');
    expect(text).toContain('~ gates/old_gate (unarchive) (gates/old_gate.yaml)');
    const markdown = renderPlanMarkdown(planned);
    expect(markdown).toContain('| ~ update, archive | `gates/live_gate` |');
    expect(markdown).toContain('| + create, archive | `gates/new_archived` |');
  });

  it('apply submits archive and unarchive reviews (an unarchive before the update, an archive after the create), then plans empty', async () => {
    const report = await apply();
    expect(report.outcomes.map((o) => `${o.kind}/${o.id} ${o.status}`)).toEqual(['gates/live_gate committed', 'gates/new_archived committed', 'gates/old_gate committed']);
    expect(report.replan.changes).toEqual([]);
    expect(report.ok).toBe(true);
    expect(await live('gates/live_gate')).toMatchObject({ status: 'Archived' });
    expect(await live('gates/new_archived')).toMatchObject({ status: 'Archived' });
    expect(await live('gates/old_gate')).toMatchObject({ status: 'In Progress', description: 'back' });
    const reviews = (await admin.listAll<Record<string, unknown>>('/console/v1/reviews')).filter((r) => r['submitter'] === 'flagops@ci.example.com');
    const of = (id: string) => reviews.filter((r) => r['configName'] === id).map((r) => [r['action'], r['status']]).reverse();
    expect(of('old_gate')).toEqual([['unarchive', 'committed'], ['update', 'committed']]);
    expect(of('new_archived')).toEqual([['create', 'committed'], ['archive', 'committed']]);
    expect(of('live_gate')).toEqual([['archive', 'committed']]);
    // The review of the change itself carries no `archived` (it is no request field).
    expect(reviews.find((r) => r['configName'] === 'new_archived' && r['action'] === 'create')?.['change']).not.toHaveProperty('archived');
  });

  it('archives and unarchives the other kinds the same way', async () => {
    for (const path of ['segments/old_staff.yaml', 'dynamic_configs/old_config.yaml', 'experiments/old_experiment.yaml']) {
      await writeFile(file(path), (await readFile(file(path), 'utf8')).replace('archived: true\n', ''));
    }
    const report = await apply();
    expect(report.plan.changes.map((ch) => `${ch.kind}/${ch.id} ${ch.lifecycle}`)).toEqual(['segments/old_staff unarchive', 'dynamic_configs/old_config unarchive', 'experiments/old_experiment unarchive']);
    expect(report.ok).toBe(true);
    expect(await live('segments/old_staff')).toMatchObject({ status: 'Active' });
    expect(await live('dynamic_configs/old_config')).toMatchObject({ status: 'Enabled' });
    expect(await live('experiments/old_experiment')).toMatchObject({ status: 'setup' });
    expect((await plan()).changes).toEqual([]);
  });
});
