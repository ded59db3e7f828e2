import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOLDOUT_DEFAULTS, HoldoutSchema } from '../../../schemas/holdout.js';
import { createExperiment, groups, LAYER_BODY, ok, type Body } from '../../test-support/experiment-fixtures.js';
import { describeValidationTable, REMOVE, storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let time = 1_700_000_000_000;
let c: TestConsole;
beforeEach(() => {
  c = createTestConsole({ clock: () => time });
});
afterEach(() => c.close());

const BASE = '/console/v1/holdouts';
const holdoutIDs = async (path: string): Promise<unknown> => ((await ok(c, 'GET', `/console/v1/${path}`))['data'] as Body)['holdoutIDs'];

/** Gates g_one, g_two (stableID: g_stable), layer main_layer, experiments exp_one and exp_layer (in main_layer). */
async function seed(t: TestConsole): Promise<void> {
  await ok(t, 'POST', '/console/v1/gates', { name: 'g_one' }, 201);
  await ok(t, 'POST', '/console/v1/gates', { name: 'g_two' }, 201);
  await ok(t, 'POST', '/console/v1/gates', { name: 'g_stable', idType: 'stableID' }, 201);
  await ok(t, 'POST', '/console/v1/layers', LAYER_BODY, 201);
  await createExperiment(t, { name: 'exp_one' });
  await createExperiment(t, { name: 'exp_layer', layerID: 'main_layer', groups: groups() });
}

describe('holdouts', () => {
  beforeEach(() => seed(c));

  it('creates a holdout with every writable field defaulted', async () => {
    const data = (await ok(c, 'POST', BASE, { name: 'Q1 holdout' }, 201))['data'] as Body;
    expect(data).toMatchObject({ ...HOLDOUT_DEFAULTS, id: 'q1_holdout', name: 'Q1 holdout', version: 1, creatorID: 'admin@localhost', creatorEmail: 'admin@localhost' });
    expect(HoldoutSchema.safeParse(data).error).toBeUndefined();
  });

  it('lists, reads, fully updates and deletes', async () => {
    await ok(c, 'POST', BASE, { name: 'one', tags: ['q1'] }, 201);
    await ok(c, 'POST', BASE, { name: 'two' }, 201);
    expect(((await ok(c, 'GET', `${BASE}?tags=q1`))['data'] as Body[]).map((h) => h['id'])).toEqual(['one']);
    expect(((await ok(c, 'GET', `${BASE}?limit=1&page=2`))['data'] as Body[]).map((h) => h['id'])).toEqual(['two']);
    expect(((await ok(c, 'GET', `${BASE}/one`))['data'] as Body)['tags']).toEqual(['q1']);
    const full = { isEnabled: false, description: 'full', passPercentage: 10, gateIDs: ['g_one'], experimentIDs: ['exp_one'], layerIDs: ['main_layer'], isGlobal: true, targetingGateID: 'g_two' };
    const updated = (await ok(c, 'POST', `${BASE}/one`, full))['data'] as Body;
    expect(updated).toMatchObject({ ...full, tags: [], name: 'one', version: 2 });
    expect(await ok(c, 'DELETE', `${BASE}/one`)).toEqual({ message: 'Holdout deleted successfully.' });
    expect((await c.call('GET', `${BASE}/one`)).json()).toEqual({ status: 404, message: 'Holdout not found.' });
  });

  it('PATCH /holdouts/{id} changes only the supplied fields and returns the holdout', async () => {
    await ok(c, 'POST', BASE, { name: 'one', description: 'keep', gateIDs: ['g_one'] }, 201);
    const res = await ok(c, 'PATCH', `${BASE}/one`, { passPercentage: 2.5, experimentIDs: ['exp_one'] });
    expect(Object.keys(res).sort()).toEqual(['data', 'message']);
    expect(res['data']).toMatchObject({ id: 'one', description: 'keep', gateIDs: ['g_one'], passPercentage: 2.5, experimentIDs: ['exp_one'], version: 2 });
    for (const body of [{ isEnabled: false }, { isGlobal: true }, { layerIDs: ['main_layer'] }, { targetingGateID: 'g_two' }, { monitoringMetrics: [{ name: 'm', type: 'event_count' }] }, { description: 'd' }]) {
      expect((await ok(c, 'PATCH', `${BASE}/one`, body))['data']).toMatchObject(body);
    }
  });

  it('holdoutIDs: gates and experiments named, experiments of named layers; disabled holdouts apply to nothing', async () => {
    await ok(c, 'POST', BASE, { name: 'named', gateIDs: ['g_one'], experimentIDs: ['exp_one'] }, 201);
    await ok(c, 'POST', BASE, { name: 'by layer', layerIDs: ['main_layer'] }, 201);
    await ok(c, 'POST', BASE, { name: 'off', gateIDs: ['g_one'], isEnabled: false }, 201);
    expect(await holdoutIDs('gates/g_one')).toEqual(['named']);
    expect(await holdoutIDs('gates/g_two')).toEqual([]);
    expect(await holdoutIDs('experiments/exp_one')).toEqual(['named']);
    expect(await holdoutIDs('experiments/exp_layer')).toEqual(['by_layer']);
    expect(await holdoutIDs('layers/main_layer')).toEqual(['by_layer']);
    await ok(c, 'PATCH', `${BASE}/off`, { isEnabled: true });
    expect(await holdoutIDs('gates/g_one')).toEqual(['named', 'off']);
    const gates = (await ok(c, 'GET', '/console/v1/gates'))['data'] as Body[];
    expect(gates.map((g) => [g['id'], g['holdoutIDs']])).toEqual([['g_one', ['named', 'off']], ['g_two', []], ['g_stable', []]]);
  });

  it('a global holdout applies to gates created afterwards, not before; dynamic configs show holdoutIDs too', async () => {
    time += 1000;
    await ok(c, 'POST', BASE, { name: 'global', isGlobal: true }, 201);
    time += 1000;
    const later = (await ok(c, 'POST', '/console/v1/gates', { name: 'later' }, 201))['data'] as Body;
    expect(later['holdoutIDs']).toEqual(['global']);
    expect(await holdoutIDs('gates/g_one')).toEqual([]);
    const config = (await ok(c, 'POST', '/console/v1/dynamic_configs', { name: 'config' }, 201))['data'] as Body;
    expect(config['holdoutIDs']).toEqual([]);
    expect(((await ok(c, 'GET', '/console/v1/dynamic_configs/config'))['data'] as Body)['holdoutIDs']).toEqual([]);
    await ok(c, 'PATCH', `${BASE}/global`, { isGlobal: false });
    expect(await holdoutIDs('gates/later')).toEqual([]);
  });

  it.each([
    ['gate', 'gates/g_one', { gateIDs: ['g_one'] }, 'holdout hold (gateIDs)'],
    ['targeting gate', 'gates/g_two', { targetingGateID: 'g_two' }, 'holdout hold (targetingGateID)'],
    ['experiment', 'experiments/exp_one', { experimentIDs: ['exp_one'] }, 'holdout hold (experimentIDs)'],
  ])('a %s a holdout names cannot be deleted (409, nothing changes)', async (_label, path, body, referrer) => {
    await ok(c, 'POST', BASE, { name: 'hold', ...body }, 201);
    const before = await storeSnapshot(c);
    const res = await c.call('DELETE', `/console/v1/${path}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain(`is used by ${referrer}; remove those references first.`);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('a gate an experiment targets cannot be deleted', async () => {
    await createExperiment(c, { name: 'targeted', targetingGateID: 'g_two' });
    const res = await c.call('DELETE', '/console/v1/gates/g_two');
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('Gate g_two is used by experiment targeted (targetingGateID); remove those references first.');
  });
});

describe('holdout validation (mutate one field; 400 names it; nothing changes)', () => {
  const body: Body = {
    name: 'Holdout',
    description: 'd',
    isEnabled: true,
    passPercentage: 5,
    gateIDs: ['g_one', 'g_two'],
    experimentIDs: ['exp_one'],
    layerIDs: ['main_layer'],
    isGlobal: false,
    targetingGateID: 'g_two',
    monitoringMetrics: [{ name: 'm', type: 'event_count' }],
  };
  describeValidationTable({
    listPath: 'holdouts',
    seed: async (t) => {
      await seed(t);
      await ok(t, 'POST', BASE, { name: 'existing' }, 201);
    },
    existingId: 'existing',
    bodies: { create: { ...body, id: 'new_holdout' }, update: body, patch: body },
    cases: [
      { label: 'passPercentage 10.01', path: 'passPercentage', value: 10.01, property: 'passPercentage', message: /0 and 10/ },
      { label: 'passPercentage -0.5', path: 'passPercentage', value: -0.5, property: 'passPercentage', message: /0 and 10/ },
      { label: 'passPercentage as text', path: 'passPercentage', value: '5', property: 'passPercentage' },
      { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description', message: /1000/ },
      { label: 'name of 101 characters', path: 'name', value: 'x'.repeat(101), property: 'name' },
      { label: 'gateIDs naming no gate', path: 'gateIDs.1', value: 'nope', property: 'gateIDs[1]', message: /no existing gate/ },
      { label: 'gateIDs naming a gate twice', path: 'gateIDs.1', value: 'g_one', property: 'gateIDs[1]', message: /duplicates/ },
      { label: 'gateIDs naming a gate of another idType', path: 'gateIDs.1', value: 'g_stable', property: 'gateIDs[1]', message: /idType 'stableID'/ },
      { label: 'experimentIDs naming no experiment', path: 'experimentIDs.0', value: 'nope', property: 'experimentIDs[0]', message: /no existing experiment/ },
      { label: 'layerIDs naming no layer', path: 'layerIDs.0', value: 'nope', property: 'layerIDs[0]', message: /no existing layer/ },
      { label: 'targetingGateID naming no gate', path: 'targetingGateID', value: 'nope', property: 'targetingGateID', message: /no existing gate/ },
      { label: 'monitoring metric without a type', path: 'monitoringMetrics.0.type', value: REMOVE, property: 'monitoringMetrics[0].type' },
      { label: 'server-managed holdoutIDs', path: 'holdoutIDs', value: [], property: 'holdoutIDs', message: /not a known field/ },
      { label: 'full update without passPercentage', path: 'passPercentage', value: REMOVE, property: 'passPercentage', message: /required/, ops: ['update'] },
      { label: 'full update without targetingGateID', path: 'targetingGateID', value: REMOVE, property: 'targetingGateID', message: /required/, ops: ['update'] },
    ],
  });
});
