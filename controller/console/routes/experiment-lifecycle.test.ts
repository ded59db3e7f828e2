import { describe, expect, it } from 'vitest';
import { createExperiment, groups, ok, useExperimentConsole, type Body } from '../../test-support/experiment-fixtures.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

const NOW = 1_700_000_000_000;
const env = useExperimentConsole(NOW);

const BASE = '/console/v1/experiments';
const put = (id: string, action: string, body?: unknown) => env.c.call('PUT', `${BASE}/${id}/${action}`, body);

async function experimentIn(status: 'setup' | 'active' | 'decision_made' | 'abandoned', body: Body = {}): Promise<Body> {
  await createExperiment(env.c, { name: 'exp', targetingGateID: 'beta', groups: groups(), ...body });
  if (status === 'active' || status === 'decision_made') await ok(env.c, 'PUT', `${BASE}/exp/start`);
  if (status === 'decision_made') await ok(env.c, 'PUT', `${BASE}/exp/make_decision`, { id: 'g_test' });
  if (status === 'abandoned') await ok(env.c, 'PUT', `${BASE}/exp/abandon`);
  return ((await ok(env.c, 'GET', `${BASE}/exp`))['data'] as Body);
}

describe('experiment lifecycle: setup → active → decision_made | abandoned', () => {
  it('start: setup → active with startTime', async () => {
    await experimentIn('setup');
    env.time += 5000;
    const res = await ok(env.c, 'PUT', `${BASE}/exp/start`);
    expect(res['message']).toBe('Experiment started successfully.');
    expect(res['data']).toMatchObject({ status: 'active', startTime: NOW + 5000, version: 2 });
    expect(res['data']).not.toHaveProperty('endTime');
  });

  it('start takes the reference body: analysisEndTime', async () => {
    await experimentIn('setup');
    const res = await ok(env.c, 'PUT', `${BASE}/exp/start`, { analysisEndTime: '2026-10-30' });
    expect(res['data']).toMatchObject({ status: 'active', analysisEndTime: '2026-10-30' });
  });

  it('make_decision ships a group named by id: decision_made, launchedGroupID, decision and end time', async () => {
    await experimentIn('active');
    env.time += 9000;
    const res = await ok(env.c, 'PUT', `${BASE}/exp/make_decision`, { id: 'g_test', decisionReason: 'blue wins' });
    expect(res['message']).toBe('Experiment shipped successfully.');
    expect(res['data']).toMatchObject({ status: 'decision_made', launchedGroupID: 'g_test', decisionReason: 'blue wins', decisionTime: NOW + 9000, endTime: NOW + 9000, targetingGateID: 'beta' });
  });

  it('make_decision ships a group named by name; removeTargeting drops the targeting gate', async () => {
    await experimentIn('active');
    const res = await ok(env.c, 'PUT', `${BASE}/exp/make_decision`, { name: 'Control', removeTargeting: true });
    expect(res['data']).toMatchObject({ status: 'decision_made', launchedGroupID: 'g_control' });
    expect(res['data']).not.toHaveProperty('decisionReason');
    expect(res['data']).not.toHaveProperty('targetingGateID');
  });

  it.each(['setup', 'active'] as const)('abandon: %s → abandoned', async (status) => {
    await experimentIn(status);
    env.time += 1;
    const res = await ok(env.c, 'PUT', `${BASE}/exp/abandon`, { decisionReason: 'not needed' });
    expect(res['data']).toMatchObject({ status: 'abandoned', decisionReason: 'not needed', endTime: NOW + 1 });
    expect(res['data']).not.toHaveProperty('launchedGroupID');
  });

  it('each action appends a version and an audit row', async () => {
    await experimentIn('decision_made');
    const versions = ((await ok(env.c, 'GET', `${BASE}/exp/versions`))['data'] as Body[]).map((v) => [v['version'], v['status']]);
    expect(versions).toEqual([[3, 'decision_made'], [2, 'active'], [1, 'setup']]);
    const audit = ((await ok(env.c, 'GET', '/console/v1/audit_logs?kind=experiment'))['data'] as Body[]).map((a) => [a['action'], a['version']]);
    expect(audit).toEqual([['make_decision', 3], ['start', 2], ['create', 1]]);
  });

  it.each([
    ['start', 'active', undefined],
    ['start', 'decision_made', undefined],
    ['start', 'abandoned', undefined],
    ['make_decision', 'setup', { id: 'g_test' }],
    ['make_decision', 'decision_made', { id: 'g_test' }],
    ['make_decision', 'abandoned', { id: 'g_test' }],
    ['abandon', 'decision_made', undefined],
    ['abandon', 'abandoned', undefined],
  ] as const)('%s on a %s experiment is a 409 and changes nothing', async (action, status, body) => {
    await experimentIn(status);
    const before = await storeSnapshot(env.c);
    const res = await put('exp', action, body);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toEqual({ status: 409, message: expect.stringMatching(new RegExp(`^Experiment exp is ${status}; only an experiment that is .+ can `)) });
    expect(await storeSnapshot(env.c)).toBe(before);
  });

  it.each([
    ['no group named', {}, 'id'],
    ['an unknown group id', { id: 'g_nope' }, 'id'],
    ['an unknown group name', { name: 'Nope' }, 'name'],
    ['id and name of different groups', { id: 'g_test', name: 'Control' }, 'name'],
    ['an unknown field', { group: 'g_test' }, 'group'],
    ['a non-string id', { id: 5 }, 'id'],
  ])('make_decision with %s is a 400 naming %s, changing nothing', async (_label, body, property) => {
    await experimentIn('active');
    const before = await storeSnapshot(env.c);
    const res = await put('exp', 'make_decision', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: Body) => e['property'])).toEqual([property]);
    expect(await storeSnapshot(env.c)).toBe(before);
  });

  it('a disabled group cannot ship', async () => {
    await experimentIn('active', { groups: groups({ disabled: true }) });
    const res = await put('exp', 'make_decision', { id: 'g_control' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'id', errorMessage: 'group Control is disabled and cannot ship' }]);
  });

  it('an unknown action is a 404; status is not writable through create or patch', async () => {
    await experimentIn('setup');
    expect((await put('exp', 'launch')).statusCode).toBe(404);
    const patch = await env.c.call('PATCH', `${BASE}/exp`, { status: 'active' });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().errors).toEqual([{ property: 'status', errorMessage: expect.stringMatching(/^is not a known field/) }]);
  });
});

describe('what may change once an experiment has started', () => {
  const lockedWhileActive: [string, Body, string][] = [
    ['idType', { idType: 'stableID' }, 'idType'],
    ['secondaryIDType', { secondaryIDType: 'stableID' }, 'secondaryIDType'],
    ['layerID', { layerID: 'main_layer' }, 'layerID'],
    ['userBuckets', { userBuckets: [5] }, 'userBuckets'],
    ['controlGroupID', { controlGroupID: 'g_test' }, 'controlGroupID'],
    ['assignmentSourceName', { assignmentSourceName: 'warehouse' }, 'assignmentSourceName'],
    ['group sizes', { groups: [{ name: 'Control', size: 40, parameterValues: { color: 'red' } }, { name: 'Test', size: 60, parameterValues: { color: 'blue' } }] }, 'groups[0].size,groups[1].size'],
    ['a group name', { groups: [{ id: 'g_control', name: 'Baseline', size: 50, parameterValues: { color: 'red' } }, { name: 'Test', size: 50, parameterValues: { color: 'blue' } }] }, 'groups[0].name'],
    ['group parameter values', { groups: [{ name: 'Control', size: 50, parameterValues: { color: 'green' } }, { name: 'Test', size: 50, parameterValues: { color: 'blue' } }] }, 'groups[0].parameterValues'],
    ['the number of groups', { groups: [{ name: 'Control', size: 50 }, { name: 'Test', size: 25 }, { name: 'Other', size: 25 }] }, 'groups'],
  ];

  it.each(lockedWhileActive)('an active experiment keeps its %s: 400, nothing changes', async (_label, patch, property) => {
    await experimentIn('active');
    const before = await storeSnapshot(env.c);
    const res = await env.c.call('PATCH', `${BASE}/exp`, patch);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual(property.split(',').map((p) => ({ property: p, errorMessage: expect.stringMatching(/once the experiment is active/) })));
    expect(await storeSnapshot(env.c)).toBe(before);
  });

  const writableWhileActive: [string, Body][] = [
    ['allocation', { allocation: 40 }],
    ['targeting', { targetingGateID: null }],
    ['metrics', { primaryMetrics: [{ name: 'purchase', type: 'event_count' }] }],
    ['analysis settings', { sequentialTesting: true, defaultConfidenceInterval: '99' }],
    ['metadata', { description: 'd', hypothesis: 'h', tags: ['t'], name: 'Renamed' }],
    ['group description and disabled', { groups: [{ name: 'Control', size: 50, parameterValues: { color: 'red' }, description: 'baseline' }, { name: 'Test', size: 50, parameterValues: { color: 'blue' }, disabled: true }] }],
  ];

  it.each(writableWhileActive)('an active experiment may change its %s', async (_label, patch) => {
    await experimentIn('active');
    const res = await ok(env.c, 'PATCH', `${BASE}/exp`, patch);
    // A field cleared with null is left out of the response (the reference API types no experiment field nullable).
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null));
    expect(res['data']).toMatchObject({ ...set, groups: expect.any(Array), status: 'active', version: 3 });
    for (const [field, v] of Object.entries(patch)) if (v === null) expect(res['data']).not.toHaveProperty(field);
  });

  it.each([
    ['decision_made', 'allocation', { allocation: 10 }],
    ['decision_made', 'targetingGateID', { targetingGateID: null }],
    ['decision_made', 'groups', { groups: [{ name: 'Control', size: 50, parameterValues: { color: 'red' }, disabled: true }, { name: 'Test', size: 50, parameterValues: { color: 'blue' } }] }],
    ['abandoned', 'inlineTargetingRules', { inlineTargetingRules: [{ name: 'all', passPercentage: 100, conditions: [] }] }],
    ['abandoned', 'idType', { idType: 'stableID' }],
  ] as const)('a %s experiment keeps its %s', async (status, property, patch) => {
    await experimentIn(status);
    const before = await storeSnapshot(env.c);
    const res = await env.c.call('PATCH', `${BASE}/exp`, patch);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ property, errorMessage: `cannot change once the experiment is ${status}` }]);
    expect(await storeSnapshot(env.c)).toBe(before);
  });

  it.each(['decision_made', 'abandoned'] as const)('a %s experiment may still change its metadata and metrics', async (status) => {
    await experimentIn(status);
    const res = await ok(env.c, 'PATCH', `${BASE}/exp`, { description: 'done', tags: ['archived'], secondaryMetrics: [{ name: 'x', type: 'event_count' }], summarySections: [{ name: 'Result', content: 'blue won' }] });
    expect(res['data']).toMatchObject({ description: 'done', status });
  });

  it('a full update of an active experiment that repeats its fixed fields succeeds', async () => {
    const active = await experimentIn('active');
    const res = await ok(env.c, 'POST', `${BASE}/exp`, {
      description: 'full',
      idType: active['idType'],
      hypothesis: 'h',
      groups: active['groups'],
      allocation: 60,
      targetingGateID: 'beta',
    });
    expect(res['data']).toMatchObject({ description: 'full', allocation: 60, status: 'active', startTime: active['startTime'] });
  });
});
