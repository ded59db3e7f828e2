import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAYER_DEFAULTS, LayerSchema } from '../../../schemas/layer.js';
import { createExperiment, groups, LAYER_BODY, ok, type Body } from '../../test-support/experiment-fixtures.js';
import { describeValidationTable, REMOVE, storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const BASE = '/console/v1/layers';

describe('layers', () => {
  it('creates a layer with an id derived from the name and every writable field defaulted', async () => {
    const data = (await ok(c, 'POST', BASE, { name: 'A Layer' }, 201))['data'] as Body;
    expect(data).toMatchObject({ ...LAYER_DEFAULTS, id: 'a_layer', name: 'A Layer', isImplicitLayer: false, holdoutIDs: [], version: 1, creatorID: 'admin@localhost', creatorEmail: 'admin@localhost' });
    expect(LayerSchema.safeParse(data).error).toBeUndefined();
  });

  it('lists, reads, fully updates, patches and deletes', async () => {
    await ok(c, 'POST', BASE, LAYER_BODY, 201);
    await ok(c, 'POST', BASE, { name: 'second', idType: 'stableID', tags: ['x'] }, 201);
    const list = await ok(c, 'GET', `${BASE}?limit=1`);
    expect((list['data'] as Body[]).map((l) => l['id'])).toEqual(['main_layer']);
    expect((list['pagination'] as Body)['totalItems']).toBe(2);
    expect(((await ok(c, 'GET', `${BASE}?idType=stableID`))['data'] as Body[]).map((l) => l['id'])).toEqual(['second']);
    expect(((await ok(c, 'GET', `${BASE}/main_layer`))['data'] as Body)['parameters']).toEqual(LAYER_BODY['parameters']);
    const updated = (await ok(c, 'POST', `${BASE}/second`, { description: 'full', parameters: [] }))['data'] as Body;
    expect(updated).toMatchObject({ description: 'full', idType: 'userID', tags: [], version: 2 });
    const patched = (await ok(c, 'PATCH', `${BASE}/second`, { tags: ['y'] }))['data'] as Body;
    expect(patched).toMatchObject({ description: 'full', tags: ['y'], version: 3 });
    expect(await ok(c, 'DELETE', `${BASE}/second`)).toEqual({ message: 'Layer deleted successfully.' });
    expect((await c.call('GET', `${BASE}/second`)).json()).toEqual({ status: 404, message: 'Layer not found.' });
  });

  it('refuses to delete a layer while experiments use it (409, nothing changes), then allows it', async () => {
    await ok(c, 'POST', BASE, LAYER_BODY, 201);
    await createExperiment(c, { name: 'exp', layerID: 'main_layer', groups: groups() });
    const before = await storeSnapshot(c);
    const res = await c.call('DELETE', `${BASE}/main_layer`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('Layer main_layer is used by experiment exp (layerID); remove those references first.');
    expect(await storeSnapshot(c)).toBe(before);
    await ok(c, 'DELETE', '/console/v1/experiments/exp');
    await ok(c, 'DELETE', `${BASE}/main_layer`);
  });

  it('refuses to delete a layer a holdout names', async () => {
    await ok(c, 'POST', BASE, LAYER_BODY, 201);
    await ok(c, 'POST', '/console/v1/holdouts', { name: 'hold', layerIDs: ['main_layer'] }, 201);
    const res = await c.call('DELETE', `${BASE}/main_layer`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/holdout hold \(layerIDs\)/);
  });

  it('keeps the experiments of a layer valid: idType fixed and used parameters declared with their type', async () => {
    await ok(c, 'POST', BASE, LAYER_BODY, 201);
    await createExperiment(c, { name: 'exp', layerID: 'main_layer', groups: groups() });
    const before = await storeSnapshot(c);
    const idType = await c.call('PATCH', `${BASE}/main_layer`, { idType: 'stableID' });
    expect(idType.statusCode).toBe(400);
    expect(idType.json().errors).toEqual([{ property: 'idType', errorMessage: 'cannot change while experiments use the layer (exp)' }]);
    const dropped = await c.call('PATCH', `${BASE}/main_layer`, { parameters: [] });
    expect(dropped.statusCode).toBe(400);
    expect(dropped.json().errors).toEqual([
      { property: 'parameters', errorMessage: "must declare 'color': group Control of experiment exp sets it" },
      { property: 'parameters', errorMessage: "must declare 'color': group Test of experiment exp sets it" },
    ]);
    const retyped = await c.call('PATCH', `${BASE}/main_layer`, { parameters: [{ name: 'color', type: 'number', defaultValue: 1 }] });
    expect(retyped.statusCode).toBe(400);
    expect(await storeSnapshot(c)).toBe(before);
    // An unused parameter may go.
    await ok(c, 'PATCH', `${BASE}/main_layer`, { parameters: [{ name: 'color', type: 'string', defaultValue: 'red' }] });
  });

  it('holdoutIDs lists the holdouts naming the layer', async () => {
    await ok(c, 'POST', BASE, LAYER_BODY, 201);
    await ok(c, 'POST', '/console/v1/holdouts', { name: 'hold', layerIDs: ['main_layer'] }, 201);
    expect(((await ok(c, 'GET', `${BASE}/main_layer`))['data'] as Body)['holdoutIDs']).toEqual(['hold']);
  });
});

describe('layer validation (mutate one field; 400 names it; nothing changes)', () => {
  const body: Body = { name: 'Layer Two', description: 'd', idType: 'userID', parameters: [{ name: 'p', type: 'boolean', defaultValue: false }], tags: ['t'], targetApps: ['web'] };
  describeValidationTable({
    listPath: 'layers',
    seed: async (t) => void (await ok(t, 'POST', BASE, LAYER_BODY, 201)),
    existingId: 'main_layer',
    bodies: { create: { ...body, id: 'layer_two' }, update: body, patch: body },
    cases: [
      { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name' },
      { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description' },
      { label: 'parameter of unknown type', path: 'parameters.0.type', value: 'date', property: 'parameters[0].type' },
      { label: 'default value of another type', path: 'parameters.0.defaultValue', value: 'no', property: 'parameters[0].defaultValue', message: /type boolean/ },
      { label: 'parameter without a default', path: 'parameters.0.defaultValue', value: REMOVE, property: 'parameters[0].defaultValue' },
      { label: 'duplicate parameter names', path: 'parameters.1', value: { name: 'p', type: 'string', defaultValue: '' }, property: 'parameters[1].name', message: /unique/ },
      { label: 'server-managed isImplicitLayer', path: 'isImplicitLayer', value: true, property: 'isImplicitLayer', message: /not a known field/ },
      { label: 'full update without parameters', path: 'parameters', value: REMOVE, property: 'parameters', ops: ['update'] },
    ],
  });
});
