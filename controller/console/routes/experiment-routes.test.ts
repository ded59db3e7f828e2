import { describe, expect, it } from 'vitest';
import { EXPERIMENT_DEFAULTS, ExperimentSchema } from '../../../schemas/experiment.js';
import { createExperiment, FULL_EXPERIMENT, groups, ok, useExperimentConsole, type Body } from '../../test-support/experiment-fixtures.js';
import { EXPERIMENT, EXPERIMENT_GROUP, EXPERIMENT_UNSET_FIELDS, specProblems } from '../../test-support/spec-fields.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

const NOW = 1_700_000_000_000;
const env = useExperimentConsole(NOW);

const BASE = '/console/v1/experiments';

/** Every reference field has the reference API's type, never null; those named in `unset` may be left out instead. */
function assertSpecTypes(experiment: Body, unset: readonly string[] = []): void {
  const groups = Array.isArray(experiment['groups']) ? (experiment['groups'] as Body[]) : [];
  const problems = [
    ...specProblems(experiment, EXPERIMENT, 'experiment', unset),
    ...groups.flatMap((g, i) => specProblems(g, EXPERIMENT_GROUP, `groups[${i}]`, ['description', 'foreignGroupID', 'disabled', 'highlighted'])),
  ];
  expect(problems).toEqual([]);
}

describe('experiments: create, read, list', () => {
  it('creates an experiment in setup with every writable field defaulted and every response field typed', async () => {
    const created = await createExperiment(env.c, { name: 'Checkout colors' });
    expect(created).toMatchObject({ id: 'checkout_colors', name: 'Checkout colors', status: 'setup', version: 1, createdTime: NOW });
    expect(created).not.toHaveProperty('startTime');
    expect(created).not.toHaveProperty('launchedGroupID');
    for (const [field, value] of Object.entries(EXPERIMENT_DEFAULTS)) {
      if (field === 'groups' || field === 'creatorID' || field === 'creatorEmail') continue;
      // A default of null means "not set": the field is left out.
      if (value === null) expect(created, field).not.toHaveProperty(field);
      else expect(created[field], field).toEqual(value);
    }
    expect((created['groups'] as Body[]).map((g) => [g['name'], g['size']])).toEqual([['Control', 50], ['Test', 50]]);
    expect((created['groups'] as Body[]).every((g) => typeof g['id'] === 'string')).toBe(true);
    expect(created['creatorEmail']).toBe('admin@localhost');
    expect(created).not.toHaveProperty('owner');
    expect(ExperimentSchema.safeParse(created).success).toBe(true);
    // Left at their defaults, these fields are not set and left out; everything else has the reference API's type.
    assertSpecTypes(created, EXPERIMENT_UNSET_FIELDS);
  });

  it('accepts every writable field and returns each with its type; after shipping no spec field is null', async () => {
    const created = await createExperiment(env.c, FULL_EXPERIMENT);
    for (const [field, value] of Object.entries(FULL_EXPERIMENT)) {
      if (field === 'groups' || field === 'inlineTargetingRules' || field === 'reviewSettings') continue;
      expect(created[field], field).toEqual(value);
    }
    expect(created['groups']).toEqual(FULL_EXPERIMENT['groups']);
    expect(created['inlineTargetingRules']).toEqual([expect.objectContaining({ ...(FULL_EXPERIMENT['inlineTargetingRules'] as Body[])[0], id: expect.any(String), baseID: expect.any(String) })]);
    expect(created['inlineTargetingRulesJSON']).toBe(JSON.stringify(created['inlineTargetingRules']));
    expect(created['qualityScore']).toEqual({
      score: 87.5,
      breakdown: [
        { criterion: 'HYPOTHESIS_LENGTH', status: 'PASSED', passingDescription: 'hypothesis is written', score: 100, weight: 75 },
        { criterion: 'custom', status: 'WARNING', passingDescription: 'reviewed', score: 50, weight: 25 },
      ],
    });
    await ok(env.c, 'PUT', `${BASE}/full_experiment/start`);
    const shipped = (await ok(env.c, 'PUT', `${BASE}/full_experiment/make_decision`, { id: 'g_test', decisionReason: 'blue wins' }))['data'] as Body;
    expect(ExperimentSchema.safeParse(shipped).success).toBe(true);
    assertSpecTypes(shipped, ['activeReview']);
  });

  it('reads one experiment and 404s an unknown one', async () => {
    await createExperiment(env.c, { name: 'Checkout colors' });
    expect(((await ok(env.c, 'GET', `${BASE}/checkout_colors`))['data'] as Body)['name']).toBe('Checkout colors');
    const missing = await env.c.call('GET', `${BASE}/nope`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ status: 404, message: 'Experiment not found.' });
  });

  it('lists with pagination and the reference filters (status, layerID, idType, tags)', async () => {
    await createExperiment(env.c, { name: 'one', tags: ['a'] });
    await createExperiment(env.c, { name: 'two', layerID: 'main_layer', allocation: 50, groups: groups() });
    await createExperiment(env.c, { name: 'three', idType: 'stableID' });
    await ok(env.c, 'PUT', `${BASE}/two/start`);
    const page = await ok(env.c, 'GET', `${BASE}?limit=2&page=2`);
    expect((page['data'] as Body[]).map((e) => e['id'])).toEqual(['three']);
    expect(page['pagination']).toEqual({ itemsPerPage: 2, pageNumber: 2, totalItems: 3, nextPage: null, previousPage: '/console/v1/experiments?page=1&limit=2', all: '/console/v1/experiments' });
    const ids = async (query: string): Promise<unknown[]> => ((await ok(env.c, 'GET', `${BASE}?${query}`))['data'] as Body[]).map((e) => e['id']);
    expect(await ids('status=active')).toEqual(['two']);
    expect(await ids('status=setup')).toEqual(['one', 'three']);
    expect(await ids('layerID=main_layer')).toEqual(['two']);
    expect(await ids('idType=stableID')).toEqual(['three']);
    expect(await ids('tags=a')).toEqual(['one']);
  });

  it('a duplicate id is a 409 and changes nothing', async () => {
    await createExperiment(env.c, { name: 'one' });
    const before = await storeSnapshot(env.c);
    const res = await env.c.call('POST', BASE, { name: 'One', id: 'one' });
    expect(res.statusCode).toBe(409);
    expect(await storeSnapshot(env.c)).toBe(before);
  });
});

describe('experiments: full update, patch, delete', () => {
  it('a full update resets omitted fields to their defaults and keeps the lifecycle fields', async () => {
    await createExperiment(env.c, { name: 'one', tags: ['a'], hypothesis: 'h', duration: 30 });
    const res = await ok(env.c, 'POST', `${BASE}/one`, { description: 'new', idType: 'userID', hypothesis: 'h2', groups: groups(), allocation: 20 });
    const data = res['data'] as Body;
    expect(data).toMatchObject({ id: 'one', name: 'one', description: 'new', hypothesis: 'h2', allocation: 20, tags: [], duration: 14, status: 'setup', version: 2 });
    expect(res['message']).toBe('Experiment updated successfully.');
  });

  it('a full update without its required fields is a 400 naming each', async () => {
    await createExperiment(env.c, { name: 'one' });
    const res = await env.c.call('POST', `${BASE}/one`, { description: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: Body) => e['property']).sort()).toEqual(['allocation', 'groups', 'hypothesis', 'idType']);
  });

  it('a patch changes only the supplied fields; group ids survive a patch that omits them', async () => {
    const created = await createExperiment(env.c, { name: 'one', tags: ['a'] });
    const ids = (created['groups'] as Body[]).map((g) => g['id']);
    const res = await ok(env.c, 'PATCH', `${BASE}/one`, { hypothesis: 'new', groups: [{ name: 'Control', size: 30 }, { name: 'Test', size: 70 }] });
    const data = res['data'] as Body;
    expect(data).toMatchObject({ hypothesis: 'new', tags: ['a'], version: 2 });
    expect((data['groups'] as Body[]).map((g) => g['id'])).toEqual(ids);
  });

  it('an unchanged patch is a no-op: no new version', async () => {
    await createExperiment(env.c, { name: 'one', hypothesis: 'h' });
    const res = await ok(env.c, 'PATCH', `${BASE}/one`, { hypothesis: 'h' });
    expect(res['message']).toBe('Experiment unchanged.');
    expect((res['data'] as Body)['version']).toBe(1);
  });

  it('deletes an experiment (200 without data) and its history', async () => {
    await createExperiment(env.c, { name: 'one' });
    expect(await ok(env.c, 'DELETE', `${BASE}/one`)).toEqual({ message: 'Experiment deleted successfully.' });
    expect((await env.c.call('GET', `${BASE}/one`)).statusCode).toBe(404);
    expect((await env.c.call('GET', `${BASE}/one/versions`)).statusCode).toBe(404);
  });

  it('honours If-Match on writes: a stale version is a 409 naming the current one', async () => {
    await createExperiment(env.c, { name: 'one' });
    const stale = await env.c.call('PATCH', `${BASE}/one`, { hypothesis: 'x' }, undefined, { 'if-match': '"7"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/version 1/);
    expect((await env.c.call('PUT', `${BASE}/one/start`, undefined, undefined, { 'if-match': '"7"' })).statusCode).toBe(409);
    expect((await env.c.call('PUT', `${BASE}/one/start`, undefined, undefined, { 'if-match': '"1"' })).statusCode).toBe(200);
  });
});

describe('experiment versions (GET /experiments/{id}/versions)', () => {
  async function experimentWithFiveVersions(): Promise<void> {
    await createExperiment(env.c, { name: 'one' });
    for (const hypothesis of ['a', 'b', 'c']) {
      env.time += 1000;
      await ok(env.c, 'PATCH', `${BASE}/one`, { hypothesis });
    }
    env.time += 1000;
    await ok(env.c, 'PUT', `${BASE}/one/start`);
  }

  it('lists versions newest first with the full pagination object; each item is an experiment version', async () => {
    await experimentWithFiveVersions();
    const first = await ok(env.c, 'GET', `${BASE}/one/versions?limit=2`);
    expect(Object.keys(first).sort()).toEqual(['data', 'message', 'pagination']);
    const items = first['data'] as Body[];
    expect(items.map((v) => v['version'])).toEqual([5, 4]);
    expect(items[0]).toMatchObject({ status: 'active', startTime: NOW + 4000 });
    expect(items[1]).toMatchObject({ status: 'setup', hypothesis: 'c' });
    for (const item of items) expect(ExperimentSchema.safeParse(item).error).toBeUndefined();
    expect(first['pagination']).toEqual({
      itemsPerPage: 2,
      pageNumber: 1,
      totalItems: 5,
      nextPage: '/console/v1/experiments/one/versions?page=2&limit=2',
      previousPage: null,
      all: '/console/v1/experiments/one/versions',
    });
    const last = await ok(env.c, 'GET', `${BASE}/one/versions?limit=2&page=3`);
    expect((last['data'] as Body[]).map((v) => v['version'])).toEqual([1]);
    expect((last['pagination'] as Body)['nextPage']).toBeNull();
    expect((last['pagination'] as Body)['previousPage']).toBe('/console/v1/experiments/one/versions?page=2&limit=2');
  });

  it('defaults to page 1 of 100 and accepts numeric strings only', async () => {
    await experimentWithFiveVersions();
    const all = await ok(env.c, 'GET', `${BASE}/one/versions`);
    expect((all['data'] as Body[]).map((v) => v['version'])).toEqual([5, 4, 3, 2, 1]);
    expect((all['pagination'] as Body)['itemsPerPage']).toBe(100);
    const bad = await env.c.call('GET', `${BASE}/one/versions?limit=zero&page=-1`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: Body) => e['property']).sort()).toEqual(['limit', 'page']);
  });

  it('404s the versions of an unknown experiment', async () => {
    const res = await env.c.call('GET', `${BASE}/nope/versions`);
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Experiment not found.');
  });
});

describe('experiment computed fields', () => {
  it('isStale once an active experiment runs past its duration', async () => {
    await createExperiment(env.c, { name: 'one', duration: 2 });
    await ok(env.c, 'PUT', `${BASE}/one/start`);
    const read = async (): Promise<unknown> => ((await ok(env.c, 'GET', `${BASE}/one`))['data'] as Body)['isStale'];
    env.time += 2 * 24 * 3600 * 1000;
    expect(await read()).toBe(false);
    env.time += 1;
    expect(await read()).toBe(true);
  });

  it('healthCheckStatus is WAITING while no health check results exist', async () => {
    const created = await createExperiment(env.c, { name: 'one' });
    expect(created).toMatchObject({ healthChecks: [], healthCheckStatus: 'WAITING' });
    expect(created).not.toHaveProperty('activeReview');
    expect(created).not.toHaveProperty('qualityScore');
  });

  it('holdoutIDs lists the holdouts naming the experiment or its layer', async () => {
    await createExperiment(env.c, { name: 'in layer', layerID: 'main_layer', groups: groups() });
    await createExperiment(env.c, { name: 'alone' });
    await ok(env.c, 'POST', '/console/v1/holdouts', { name: 'by experiment', experimentIDs: ['alone'] }, 201);
    await ok(env.c, 'POST', '/console/v1/holdouts', { name: 'by layer', layerIDs: ['main_layer'] }, 201);
    await ok(env.c, 'POST', '/console/v1/holdouts', { name: 'disabled', experimentIDs: ['alone'], isEnabled: false }, 201);
    const holdoutIDs = async (id: string): Promise<unknown> => ((await ok(env.c, 'GET', `${BASE}/${id}`))['data'] as Body)['holdoutIDs'];
    expect(await holdoutIDs('in_layer')).toEqual(['by_layer']);
    expect(await holdoutIDs('alone')).toEqual(['by_experiment']);
  });
});
