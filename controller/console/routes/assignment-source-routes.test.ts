import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASSIGNMENT_SOURCE_DEFAULTS, AssignmentSourceSchema } from '../../../schemas/assignment-source.js';
import { createExperiment, ok, SOURCE_BODY, type Body } from '../../test-support/experiment-fixtures.js';
import { describeValidationTable, REMOVE, storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const LIST = '/console/v1/experiments/assignment_sources';
const ITEM = '/console/v1/experiments/assignment_source';

describe('assignment sources', () => {
  it('creates under /experiments/assignment_sources (201) with every writable field defaulted', async () => {
    const data = (await ok(c, 'POST', LIST, SOURCE_BODY, 201))['data'] as Body;
    // Unset owner and groupNameColumn are left out (the reference API types them without null); team stays null.
    const { owner: _o, groupNameColumn: _g, ...defaults } = ASSIGNMENT_SOURCE_DEFAULTS;
    expect(data).toMatchObject({ ...defaults, ...SOURCE_BODY, version: 1, permalink: 'http://console.test/console/v1/experiments/assignment_source/warehouse' });
    expect(data).not.toHaveProperty('owner');
    expect(data).not.toHaveProperty('groupNameColumn');
    expect(AssignmentSourceSchema.safeParse(data).error).toBeUndefined();
  });

  it('lists under /experiments/assignment_sources with pagination', async () => {
    await ok(c, 'POST', LIST, SOURCE_BODY, 201);
    await ok(c, 'POST', LIST, { ...SOURCE_BODY, name: 'second', tags: ['x'] }, 201);
    const page = await ok(c, 'GET', `${LIST}?limit=1&page=2`);
    expect((page['data'] as Body[]).map((s) => s['name'])).toEqual(['second']);
    expect(page['pagination']).toEqual({ itemsPerPage: 1, pageNumber: 2, totalItems: 2, nextPage: null, previousPage: `${LIST}?page=1&limit=1`, all: LIST });
    expect(((await ok(c, 'GET', `${LIST}?tags=x`))['data'] as Body[]).map((s) => s['name'])).toEqual(['second']);
  });

  it('PATCH /experiments/assignment_source/{name} changes only the supplied fields', async () => {
    await ok(c, 'POST', LIST, SOURCE_BODY, 201);
    const res = await ok(c, 'PATCH', `${ITEM}/warehouse`, { description: 'nightly', isVerified: true, scheduledReloadHour: 23, groupNameColumn: 'group_name' });
    expect(Object.keys(res).sort()).toEqual(['data', 'message']);
    const data = res['data'] as Body;
    // The reference API's response fields of an assignment source.
    for (const field of ['name', 'description', 'tags', 'sql', 'timestampColumn', 'groupIDColumn', 'experimentIDColumn', 'idTypeMapping']) expect(data, field).toHaveProperty(field);
    expect(data).toMatchObject({ ...SOURCE_BODY, description: 'nightly', isVerified: true, scheduledReloadHour: 23, groupNameColumn: 'group_name', version: 2 });
    const all = { tags: ['t'], timestampColumn: 'at', experimentIDColumn: 'exp', groupIDColumn: 'g', idTypeMapping: [{ statsigUnitID: 'stableID', column: 'sid' }], isReadOnly: true, owner: { ownerName: 'A' }, team: 'data', teamID: 'd1', scheduledReloadHour: null };
    expect((await ok(c, 'PATCH', `${ITEM}/warehouse`, all))['data']).toMatchObject(all);
  });

  it('full update (POST) resets omitted fields; delete (200 without data)', async () => {
    await ok(c, 'POST', LIST, { ...SOURCE_BODY, description: 'd', tags: ['t'] }, 201);
    const { name: _n, ...required } = SOURCE_BODY;
    const updated = (await ok(c, 'POST', `${ITEM}/warehouse`, { ...required, sql: 'select 2' }))['data'] as Body;
    expect(updated).toMatchObject({ name: 'warehouse', sql: 'select 2', description: '', tags: [], version: 2 });
    expect(await ok(c, 'DELETE', `${ITEM}/warehouse`)).toEqual({ message: 'Assignment source deleted successfully.' });
    expect((await c.call('GET', `${ITEM}/warehouse`)).json()).toEqual({ status: 404, message: 'Assignment source not found.' });
  });

  describe('dryRun in the body validates and persists nothing', () => {
    beforeEach(() => ok(c, 'POST', LIST, SOURCE_BODY, 201).then(() => undefined));

    it.each([
      ['create', 'POST', LIST, { ...SOURCE_BODY, name: 'other', dryRun: true }, { name: 'other' }],
      ['full update', 'POST', `${ITEM}/warehouse`, { ...SOURCE_BODY, sql: 'select 3', dryRun: true }, { sql: 'select 3', version: 2 }],
      ['patch', 'PATCH', `${ITEM}/warehouse`, { scheduledReloadHour: 5, dryRun: true }, { scheduledReloadHour: 5, version: 2 }],
      ['rename', 'PATCH', `${ITEM}/warehouse`, { name: 'renamed', dryRun: true }, { name: 'renamed' }],
    ])('%s: 200 with the would-be source, store unchanged', async (_label, method, url, body, expected) => {
      const before = await storeSnapshot(c);
      const res = await ok(c, method, url, body);
      expect(res['message']).toBe('Assignment source is valid (dry run, nothing persisted).');
      expect(res['data']).toMatchObject(expected);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('an invalid dry run is a 400 like any write', async () => {
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${ITEM}/warehouse`, { scheduledReloadHour: 24, dryRun: true });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.map((e: Body) => e['property'])).toEqual(['scheduledReloadHour']);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('dryRun must be a boolean; dryRun false writes', async () => {
      const bad = await c.call('PATCH', `${ITEM}/warehouse`, { description: 'x', dryRun: 'yes' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'must be true or false' }]);
      expect((await ok(c, 'PATCH', `${ITEM}/warehouse`, { description: 'x', dryRun: false }))['data']).toMatchObject({ description: 'x', version: 2 });
    });

    it.each<[unknown, string]>([['', 'an empty string'], ['true', 'a string'], [null, 'null'], [1, 'a number']])('dryRun %j (%s) is a 400, not read as false, and writes nothing', async (dryRun) => {
      const before = await storeSnapshot(c);
      const bad = await c.call('PATCH', `${ITEM}/warehouse`, { description: 'x', dryRun });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'must be true or false' }]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('dryRun in the query is a 400 saying to send it in the body, and writes nothing', async () => {
      const before = await storeSnapshot(c);
      const bad = await c.call('PATCH', `${ITEM}/warehouse?dryRun=true`, { description: 'x' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'is not supported in the query: send "dryRun": true in the body' }]);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('renaming (the name identifies a source)', () => {
    it('moves the source and its version history to the new name; the audit row records the old name', async () => {
      await ok(c, 'POST', LIST, SOURCE_BODY, 201);
      await ok(c, 'PATCH', `${ITEM}/warehouse`, { description: 'v2' });
      const renamed = (await ok(c, 'PATCH', `${ITEM}/warehouse`, { name: 'lake' }))['data'] as Body;
      expect(renamed).toMatchObject({ name: 'lake', description: 'v2', version: 3, permalink: 'http://console.test/console/v1/experiments/assignment_source/lake' });
      expect((await c.call('GET', `${ITEM}/warehouse`)).statusCode).toBe(404);
      const versions = (await ok(c, 'GET', `${ITEM}/lake/versions`))['data'] as Body[];
      expect(versions.map((v) => [v['version'], v['name'], v['description']])).toEqual([[3, 'lake', 'v2'], [2, 'warehouse', 'v2'], [1, 'warehouse', '']]);
      const audit = (await ok(c, 'GET', '/console/v1/audit_logs?kind=assignment_source&limit=1'))['data'] as Body[];
      expect(audit[0]).toMatchObject({ action: 'patch', entityId: 'lake', version: 3, details: { renamedFrom: 'warehouse' } });
      expect(((await ok(c, 'GET', LIST))['data'] as Body[]).map((s) => s['name'])).toEqual(['lake']);
    });

    it('a full update renames too', async () => {
      await ok(c, 'POST', LIST, SOURCE_BODY, 201);
      expect(((await ok(c, 'POST', `${ITEM}/warehouse`, { ...SOURCE_BODY, name: 'lake' }))['data'] as Body)['name']).toBe('lake');
      expect((await c.call('GET', `${ITEM}/lake`)).statusCode).toBe(200);
    });

    it.each([['POST', LIST], ['PATCH', `${ITEM}/warehouse`]])('a name that starts or ends with a space is a 400 naming name (%s): the name is the id', async (method, path) => {
      await ok(c, 'POST', LIST, SOURCE_BODY, 201);
      const before = await storeSnapshot(c);
      for (const name of ['warehouse ', ' warehouse', '     ']) {
        const res = await c.call(method, path, method === 'POST' ? { ...SOURCE_BODY, name } : { name });
        expect(res.statusCode, name).toBe(400);
        expect(res.json().errors).toContainEqual({ property: 'name', errorMessage: 'must not start or end with a space: the name is the id' });
      }
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('renaming onto an existing name is a 409 and changes nothing', async () => {
      await ok(c, 'POST', LIST, SOURCE_BODY, 201);
      await ok(c, 'POST', LIST, { ...SOURCE_BODY, name: 'lake' }, 201);
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${ITEM}/warehouse`, { name: 'lake' });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe('Assignment source lake already exists.');
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('a source an experiment uses can be neither renamed (400) nor deleted (409)', async () => {
      await ok(c, 'POST', LIST, SOURCE_BODY, 201);
      await createExperiment(c, { name: 'exp', assignmentSourceName: 'warehouse' });
      const before = await storeSnapshot(c);
      const rename = await c.call('PATCH', `${ITEM}/warehouse`, { name: 'lake' });
      expect(rename.statusCode).toBe(400);
      expect(rename.json().errors).toEqual([{ property: 'name', errorMessage: 'cannot change while experiment exp (assignmentSourceName) use the source' }]);
      const remove = await c.call('DELETE', `${ITEM}/warehouse`);
      expect(remove.statusCode).toBe(409);
      expect(remove.json().message).toBe('Assignment source warehouse is used by experiment exp (assignmentSourceName); remove those references first.');
      expect(await storeSnapshot(c)).toBe(before);
    });
  });
});

describe('assignment source validation (mutate one field; 400 names it; nothing changes)', () => {
  const { name: _n, ...fields } = SOURCE_BODY;
  const body: Body = { ...fields, description: 'd', scheduledReloadHour: 0, groupNameColumn: 'gn', isVerified: false, isReadOnly: false };
  describeValidationTable({
    listPath: 'experiments/assignment_sources',
    itemPath: 'experiments/assignment_source',
    seed: async (t) => void (await ok(t, 'POST', LIST, SOURCE_BODY, 201)),
    existingId: 'warehouse',
    bodies: { create: { ...body, name: 'new source' }, update: body, patch: body },
    cases: [
      { label: 'scheduledReloadHour 24', path: 'scheduledReloadHour', value: 24, property: 'scheduledReloadHour', message: /0 to 23/ },
      { label: 'scheduledReloadHour -1', path: 'scheduledReloadHour', value: -1, property: 'scheduledReloadHour', message: /0 to 23/ },
      { label: 'fractional scheduledReloadHour', path: 'scheduledReloadHour', value: 1.5, property: 'scheduledReloadHour', message: /integer/ },
      { label: 'scheduledReloadHour as text', path: 'scheduledReloadHour', value: '3', property: 'scheduledReloadHour' },
      { label: 'no idTypeMapping items', path: 'idTypeMapping', value: [], property: 'idTypeMapping', message: /at least one/ },
      { label: 'idTypeMapping item without a column', path: 'idTypeMapping.0.column', value: REMOVE, property: 'idTypeMapping[0].column', message: /required/ },
      { label: 'idTypeMapping item with an empty unit ID', path: 'idTypeMapping.0.statsigUnitID', value: '', property: 'idTypeMapping[0].statsigUnitID' },
      { label: 'idTypeMapping mapping a unit ID twice', path: 'idTypeMapping.1', value: { statsigUnitID: 'userID', column: 'other' }, property: 'idTypeMapping[1].statsigUnitID', message: /unique/ },
      { label: 'empty sql', path: 'sql', value: '', property: 'sql' },
      { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description', message: /1000/ },
      { label: 'isVerified as text', path: 'isVerified', value: 'true', property: 'isVerified' },
      { label: 'unknown field', path: 'query', value: 'select 1', property: 'query', message: /not a known field/ },
      { label: 'create without sql', path: 'sql', value: REMOVE, property: 'sql', message: /required/, ops: ['create', 'update'] },
      { label: 'create without name', path: 'name', value: REMOVE, property: 'name', message: /required/, ops: ['create'] },
      { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name', ops: ['create'] },
      { label: 'full update without groupIDColumn', path: 'groupIDColumn', value: REMOVE, property: 'groupIDColumn', message: /required/, ops: ['update'] },
    ],
  });
});
