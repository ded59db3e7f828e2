/**
 * GET /audit_logs: every write of every entity kind appears once, newest first, with actor, action,
 * kind, entity, version and time; failed writes, dry runs and unchanged writes add nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_KINDS } from '../kinds/all-kinds.js';
import { groups, LAYER_BODY, ok, SOURCE_BODY, type Body } from '../../test-support/experiment-fixtures.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';

const T0 = 1_700_000_000_000;
let time = T0;
let c: TestConsole;
let memberKey: string;
beforeEach(async () => {
  time = T0;
  c = createTestConsole({ clock: () => time });
  memberKey = await c.keyFor('dev@example.com', 'member');
});
afterEach(() => c.close());

const V1 = '/console/v1';
const { name: _sourceName, ...sourceFields } = SOURCE_BODY;

/** One write: request, and the audit row it must leave (kind, entity id, action, version). */
type Step = [method: string, path: string, body: unknown, kind: string, entityId: string, action: string, version: number];

const STEPS: Step[] = [
  ['POST', '/segments', { name: 'seg one', type: 'rule_based' }, 'segment', 'seg_one', 'create', 1],
  ['POST', '/segments/seg_one', { type: 'rule_based', description: 'full' }, 'segment', 'seg_one', 'update', 2],
  ['PATCH', '/segments/seg_one', { description: 'patched' }, 'segment', 'seg_one', 'patch', 3],
  ['POST', '/gates', { name: 'gate one' }, 'gate', 'gate_one', 'create', 1],
  ['POST', '/gates/gate_one', { isEnabled: true, description: 'full', rules: [] }, 'gate', 'gate_one', 'update', 2],
  ['PATCH', '/gates/gate_one', { description: 'patched' }, 'gate', 'gate_one', 'patch', 3],
  ['PUT', '/gates/gate_one/disable', undefined, 'gate', 'gate_one', 'disable', 4],
  ['PUT', '/gates/gate_one/enable', undefined, 'gate', 'gate_one', 'enable', 5],
  ['PUT', '/gates/gate_one/launch', undefined, 'gate', 'gate_one', 'launch', 6],
  ['PUT', '/gates/gate_one/archive', undefined, 'gate', 'gate_one', 'archive', 7],
  ['PUT', '/gates/gate_one/unarchive', undefined, 'gate', 'gate_one', 'unarchive', 8],
  ['POST', '/dynamic_configs', { name: 'config one' }, 'dynamic_config', 'config_one', 'create', 1],
  ['POST', '/dynamic_configs/config_one', { isEnabled: true, description: 'full', rules: [] }, 'dynamic_config', 'config_one', 'update', 2],
  ['PATCH', '/dynamic_configs/config_one', { description: 'patched' }, 'dynamic_config', 'config_one', 'patch', 3],
  ['PUT', '/dynamic_configs/config_one/disable', undefined, 'dynamic_config', 'config_one', 'disable', 4],
  ['PUT', '/dynamic_configs/config_one/enable', undefined, 'dynamic_config', 'config_one', 'enable', 5],
  ['POST', '/layers', LAYER_BODY, 'layer', 'main_layer', 'create', 1],
  ['POST', '/layers/main_layer', { description: 'full', parameters: LAYER_BODY['parameters'] }, 'layer', 'main_layer', 'update', 2],
  ['PATCH', '/layers/main_layer', { tags: ['t'] }, 'layer', 'main_layer', 'patch', 3],
  ['POST', '/experiments/assignment_sources', SOURCE_BODY, 'assignment_source', 'warehouse', 'create', 1],
  ['POST', '/experiments/assignment_source/warehouse', { ...sourceFields, sql: 'select 2' }, 'assignment_source', 'warehouse', 'update', 2],
  ['PATCH', '/experiments/assignment_source/warehouse', { description: 'patched' }, 'assignment_source', 'warehouse', 'patch', 3],
  ['POST', '/experiments', { name: 'exp one', layerID: 'main_layer', groups: groups() }, 'experiment', 'exp_one', 'create', 1],
  ['POST', '/experiments/exp_one', { description: 'full', idType: 'userID', hypothesis: 'h', groups: groups(), allocation: 50, layerID: 'main_layer' }, 'experiment', 'exp_one', 'update', 2],
  ['PATCH', '/experiments/exp_one', { hypothesis: 'patched' }, 'experiment', 'exp_one', 'patch', 3],
  ['PUT', '/experiments/exp_one/start', undefined, 'experiment', 'exp_one', 'start', 4],
  ['PUT', '/experiments/exp_one/make_decision', { id: 'g_test' }, 'experiment', 'exp_one', 'make_decision', 5],
  ['POST', '/experiments', { name: 'exp two' }, 'experiment', 'exp_two', 'create', 1],
  ['PUT', '/experiments/exp_two/abandon', { decisionReason: 'no' }, 'experiment', 'exp_two', 'abandon', 2],
  ['POST', '/holdouts', { name: 'hold one', gateIDs: ['gate_one'] }, 'holdout', 'hold_one', 'create', 1],
  ['POST', '/holdouts/hold_one', { isEnabled: true, description: 'full', passPercentage: 1, gateIDs: [], experimentIDs: ['exp_one'], layerIDs: [], isGlobal: false, targetingGateID: null }, 'holdout', 'hold_one', 'update', 2],
  ['PATCH', '/holdouts/hold_one', { passPercentage: 2 }, 'holdout', 'hold_one', 'patch', 3],
  ['POST', '/prompts', { name: 'prompt one' }, 'prompt', 'prompt one', 'create', 1],
  ['PATCH', '/prompts/prompt%20one', { description: 'patched' }, 'prompt', 'prompt one', 'patch', 2],
  ['DELETE', '/holdouts/hold_one', undefined, 'holdout', 'hold_one', 'delete', 3],
  ['DELETE', '/experiments/exp_one', undefined, 'experiment', 'exp_one', 'delete', 5],
  ['DELETE', '/experiments/assignment_source/warehouse', undefined, 'assignment_source', 'warehouse', 'delete', 3],
  ['DELETE', '/layers/main_layer', undefined, 'layer', 'main_layer', 'delete', 3],
  ['DELETE', '/dynamic_configs/config_one', undefined, 'dynamic_config', 'config_one', 'delete', 5],
  ['DELETE', '/gates/gate_one', undefined, 'gate', 'gate_one', 'delete', 8],
  ['DELETE', '/segments/seg_one', undefined, 'segment', 'seg_one', 'delete', 3],
];

/** Runs every step, alternating the admin and a member key, one clock tick apart. */
async function runSteps(): Promise<void> {
  for (const [i, [method, path, body]] of STEPS.entries()) {
    time = T0 + i * 1000;
    const res = await c.call(method, `${V1}${path}`, body, i % 2 === 0 ? ADMIN_KEY : memberKey);
    expect([200, 201], `${method} ${path}: ${res.body}`).toContain(res.statusCode);
  }
}

async function auditLog(query = ''): Promise<Body> {
  return ok(c, 'GET', `${V1}/audit_logs?limit=1000${query}`);
}

describe('audit log', () => {
  it('records every write of every kind with actor, action, kind, entity, version and time, newest first', async () => {
    await runSteps();
    // The member key's creation (beforeEach) has its own row, of kind key.
    const rows = ((await auditLog())['data'] as Body[]).filter((r) => r['kind'] !== 'key');
    const expected = STEPS.map(([, , , kind, entityId, action, version], i) => ({
      kind,
      entityId,
      action,
      version,
      time: T0 + i * 1000,
      actorEmail: i % 2 === 0 ? 'admin@localhost' : 'dev@example.com',
      actorKeyId: expect.any(String),
      reviewId: null,
      id: expect.any(String),
    }));
    expect(rows).toEqual(expected.reverse().map((row) => expect.objectContaining(row)));
    // Every kind the console serves wrote at least one row.
    expect(new Set(rows.map((r) => r['kind']))).toEqual(new Set(ALL_KINDS.map((k) => k.kind)));
  });

  it('filters by kind, entityID and actor, and paginates', async () => {
    await runSteps();
    const experiment = (await auditLog('&kind=experiment&entityID=exp_one'))['data'] as Body[];
    expect(experiment.map((r) => r['action'])).toEqual(['delete', 'make_decision', 'start', 'patch', 'update', 'create']);
    const byMember = (await auditLog('&actor=dev%40example.com'))['data'] as Body[];
    expect(byMember).toHaveLength(Math.floor(STEPS.length / 2));
    expect(byMember.every((r) => r['actorEmail'] === 'dev@example.com')).toBe(true);
    const prompts = (await auditLog('&kind=prompt'))['data'] as Body[];
    expect(prompts.map((r) => [r['action'], r['entityId']])).toEqual([['patch', 'prompt one'], ['create', 'prompt one']]);
    const page = await ok(c, 'GET', `${V1}/audit_logs?kind=gate&limit=3&page=2`);
    expect((page['data'] as Body[]).map((r) => r['action'])).toEqual(['launch', 'enable', 'disable']);
    expect(page['pagination']).toEqual({
      itemsPerPage: 3,
      pageNumber: 2,
      totalItems: 9,
      nextPage: '/console/v1/audit_logs?kind=gate&page=3&limit=3',
      previousPage: '/console/v1/audit_logs?kind=gate&page=1&limit=3',
      all: '/console/v1/audit_logs',
    });
  });

  it('failed writes, dry runs and unchanged writes add no row', async () => {
    await ok(c, 'POST', `${V1}/experiments/assignment_sources`, SOURCE_BODY, 201);
    await ok(c, 'POST', `${V1}/experiments`, { name: 'exp', hypothesis: 'h' }, 201);
    const count = async (): Promise<unknown> => ((await auditLog())['pagination'] as Body)['totalItems'];
    // The member key's creation and the two writes.
    expect(await count()).toBe(3);
    const attempts: [string, string, unknown, number][] = [
      ['POST', '/experiments', { name: 'x' }, 400],
      ['PUT', '/experiments/exp/make_decision', { id: 'nope' }, 409],
      ['PATCH', '/holdouts/nope', { passPercentage: 1 }, 404],
      ['POST', '/holdouts', { name: 'hold', passPercentage: 11 }, 400],
      ['PATCH', '/experiments/assignment_source/warehouse', { description: 'x', dryRun: true }, 200],
      ['POST', '/experiments/assignment_sources', { ...SOURCE_BODY, name: 'other', dryRun: true }, 200],
      ['POST', '/dynamic_configs?dryRun=true', { name: 'config' }, 200],
      ['PATCH', '/experiments/exp', { hypothesis: 'h' }, 200],
      ['PATCH', '/prompts/none', { description: 'x' }, 404],
    ];
    for (const [method, path, body, status] of attempts) {
      expect((await c.call(method, `${V1}${path}`, body)).statusCode, `${method} ${path}`).toBe(status);
    }
    expect(await count()).toBe(3);
  });

  it('needs the read permission, like every console endpoint', async () => {
    expect((await c.call('GET', `${V1}/audit_logs`, undefined, 'console-wrong')).statusCode).toBe(401);
    const reader = await c.keyFor('reader@example.com', 'read_only');
    expect((await c.call('GET', `${V1}/audit_logs`, undefined, reader)).statusCode).toBe(200);
  });
});
