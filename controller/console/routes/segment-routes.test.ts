import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { describeValidationTable, REMOVE, storeSnapshot, type Body, type MutationCase } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const BASE = '/console/v1/segments';
const rule = (name: string, extra: Body = {}): Body => ({ name, passPercentage: 100, conditions: [{ type: 'user_id', operator: 'any', targetValue: ['u1', 'u2'] }], ...extra });

async function create(body: Body): Promise<Body> {
  const res = await c.call('POST', BASE, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const errorsOf = (res: { json(): unknown }): string[] => ((res.json() as { errors?: { property: string }[] }).errors ?? []).map((e) => e.property);

describe('segments', () => {
  it('creates a rule-based segment with rule ids and the response-only fields', async () => {
    const segment = await create({ name: 'Beta testers', type: 'rule_based', rules: [rule('listed users')] });
    expect(segment).toMatchObject({
      id: 'beta_testers',
      type: 'rule_based',
      ids: [],
      count: 0,
      idType: 'userID',
      version: 1,
      creatorName: 'admin@localhost',
      lastModifierEmail: 'admin@localhost',
      permalink: 'http://console.test/console/v1/segments/beta_testers',
    });
    expect((segment['rules'] as Body[])[0]).toMatchObject({ name: 'listed users', id: expect.any(String) });
  });

  it('creates an id-list segment, de-duplicating ids, with count', async () => {
    const segment = await create({ id: 'vip', name: 'VIP users', type: 'id_list', ids: ['u1', 'u2', 'u1'] });
    expect(segment).toMatchObject({ ids: ['u1', 'u2'], count: 2, rules: [] });
  });

  describe('id lists (PATCH add_ids / remove_ids)', () => {
    beforeEach(async () => {
      await create({ id: 'vip', name: 'VIP users', type: 'id_list', ids: ['u1', 'u2'] });
    });

    it('add_ids appends new ids (duplicates once) and bumps the version', async () => {
      const res = await c.call('PATCH', `${BASE}/vip/add_ids`, { ids: ['u3', 'u1', 'u3'] });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ ids: ['u1', 'u2', 'u3'], count: 3, version: 2 });
      expect((await c.store.audit.list({ kind: 'segment', offset: 0, limit: 10 })).items[0]).toMatchObject({ action: 'add_ids', version: 2 });
    });

    it('remove_ids removes ids; ids that are not there change nothing', async () => {
      const res = await c.call('PATCH', `${BASE}/vip/remove_ids`, { ids: ['u1'] });
      expect(res.json().data).toMatchObject({ ids: ['u2'], count: 1, version: 2 });
      const again = await c.call('PATCH', `${BASE}/vip/remove_ids`, { ids: ['u1', 'nobody'] });
      expect(again.statusCode).toBe(200);
      expect(again.json().data.version).toBe(2);
    });

    it('adding ids already present is a no-op without a new version', async () => {
      const res = await c.call('PATCH', `${BASE}/vip/add_ids`, { ids: ['u2'] });
      expect(res.json().data.version).toBe(1);
      expect((await c.store.entities.versions('segment', 'vip', 0, 10)).total).toBe(1);
    });

    it.each<[string, string, unknown]>([
      ['an empty list', 'ids', { ids: [] }],
      ['an empty id', 'ids[1]', { ids: ['u9', ''] }],
      ['ids missing', 'ids', {}],
      ['ids a string', 'ids', { ids: 'u9' }],
      ['an unknown field', 'id', { ids: ['u9'], id: 'x' }],
    ])('add_ids with %s → 400 naming %s, nothing changed', async (_what, property, body) => {
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${BASE}/vip/add_ids`, body);
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([property]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('add_ids and remove_ids on a rule-based segment → 400 naming ids, nothing changed', async () => {
      await create({ id: 'rules', name: 'rule segment', type: 'rule_based', rules: [rule('r')] });
      const before = await storeSnapshot(c);
      for (const action of ['add_ids', 'remove_ids']) {
        const res = await c.call('PATCH', `${BASE}/rules/${action}`, { ids: ['u1'] });
        expect(res.statusCode, action).toBe(400);
        expect(errorsOf(res)).toEqual(['ids']);
      }
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('404 for a missing segment', async () => {
      expect((await c.call('PATCH', `${BASE}/nope/add_ids`, { ids: ['u1'] })).statusCode).toBe(404);
    });
  });

  describe('read, list, update, patch, delete, versions', () => {
    it('lists with filters type, idType and tags', async () => {
      await create({ id: 'seg1', name: 'segment one', type: 'id_list', ids: ['a'], tags: ['x'] });
      await create({ id: 'seg2', name: 'segment two', type: 'rule_based', idType: 'stableID', tags: ['y'] });
      const ids = async (q: string): Promise<unknown[]> => ((await c.call('GET', `${BASE}${q}`)).json().data as Body[]).map((s) => s['id']);
      expect(await ids('')).toEqual(['seg1', 'seg2']);
      expect(await ids('?type=id_list')).toEqual(['seg1']);
      expect(await ids('?idType=stableID')).toEqual(['seg2']);
      expect(await ids('?tags=y')).toEqual(['seg2']);
    });

    it('full update replaces fields (left-out ones take defaults) and keeps the name', async () => {
      await create({ id: 'seg1', name: 'segment one', type: 'rule_based', description: 'old', tags: ['x'], rules: [rule('r')] });
      const res = await c.call('POST', `${BASE}/seg1`, { type: 'id_list', ids: ['a', 'b'] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'segment one', type: 'id_list', ids: ['a', 'b'], rules: [], description: '', tags: [], count: 2, version: 2 });
    });

    it('patch changes only the supplied fields', async () => {
      const before = await create({ id: 'seg1', name: 'segment one', type: 'rule_based', description: 'old', tags: ['x'], rules: [rule('r')] });
      const after = (await c.call('PATCH', `${BASE}/seg1`, { description: 'new' })).json().data;
      const rest = ({ description: _d, version: _v, lastModifiedTime: _t, ...others }: Body): Body => others;
      expect(after).toMatchObject({ description: 'new', version: 2 });
      expect(rest(after)).toEqual(rest(before));
    });

    it('patching the type of a segment that has rules to id_list → 400 naming rules, nothing changed', async () => {
      await create({ id: 'seg1', name: 'segment one', type: 'rule_based', rules: [rule('r')] });
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${BASE}/seg1`, { type: 'id_list' });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual(['rules']);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('keeps versions, newest first, and deletes', async () => {
      await create({ id: 'seg1', name: 'segment one', type: 'id_list', ids: ['a'] });
      await c.call('PATCH', `${BASE}/seg1/add_ids`, { ids: ['b'] });
      await c.call('PATCH', `${BASE}/seg1`, { description: 'd' });
      const versions = (await c.call('GET', `${BASE}/seg1/versions`)).json();
      expect(versions.data.map((v: Body) => v['version'])).toEqual([3, 2, 1]);
      expect(versions.data[1].ids).toEqual(['a', 'b']);
      expect(versions.pagination.totalItems).toBe(3);
      expect((await c.call('DELETE', `${BASE}/seg1`)).statusCode).toBe(200);
      expect((await c.call('GET', `${BASE}/seg1`)).json()).toEqual({ status: 404, message: 'Segment not found.' });
    });
  });
});

const SEGMENT_UPDATE: Body = {
  name: 'valid segment',
  description: 'A segment used as the base of every validation case.',
  type: 'rule_based',
  idType: 'userID',
  tags: ['web'],
  rules: [rule('first rule', { id: 'rule-1' }), rule('second rule', { passPercentage: 50 })],
  ids: [],
  creatorID: null,
  creatorEmail: null,
  team: null,
  teamID: null,
};

const CREATE_ONLY = ['create'] as const;

const SEGMENT_CASES: MutationCase[] = [
  { label: 'name missing', path: 'name', value: REMOVE, property: 'name', ops: CREATE_ONLY },
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name' },
  { label: 'name of 101 characters', path: 'name', value: 's'.repeat(101), property: 'name' },
  { label: 'name with an @', path: 'name', value: 'team@x', property: 'name' },
  { label: 'id with a space', path: 'id', value: 'has space', property: 'id', ops: CREATE_ONLY },
  { label: 'id of 2 characters', path: 'id', value: 'ab', property: 'id', ops: CREATE_ONLY },
  { label: 'id on an update', path: 'id', value: 'other', property: 'id', ops: ['update', 'patch'] },
  { label: 'type missing', path: 'type', value: REMOVE, property: 'type', ops: ['create', 'update'], message: /required/ },
  { label: 'type unknown', path: 'type', value: 'list', property: 'type' },
  { label: 'type id_list while the segment has rules', path: 'type', value: 'id_list', property: 'rules', message: /id_list/ },
  { label: 'ids on a rule-based segment', path: 'ids', value: ['u1'], property: 'ids', message: /rule_based/ },
  { label: 'an empty id', path: 'ids', value: ['u1', ''], property: 'ids[1]' },
  { label: 'ids a string', path: 'ids', value: 'u1', property: 'ids' },
  { label: 'description of 1001 characters', path: 'description', value: 'd'.repeat(1001), property: 'description' },
  { label: 'idType empty', path: 'idType', value: '', property: 'idType' },
  { label: 'an empty tag', path: 'tags.0', value: '', property: 'tags[0]' },
  { label: 'team a number', path: 'team', value: 1, property: 'team' },
  { label: 'rules not an array', path: 'rules', value: 'all', property: 'rules' },
  { label: 'rule without name', path: 'rules.0.name', value: REMOVE, property: 'rules[0].name' },
  { label: 'duplicate rule name', path: 'rules.1.name', value: 'first rule', property: 'rules[1].name', message: /unique/ },
  { label: 'duplicate rule id', path: 'rules.1.id', value: 'rule-1', property: 'rules[1].id', message: /unique/ },
  { label: 'rule passPercentage 100.5', path: 'rules.1.passPercentage', value: 100.5, property: 'rules[1].passPercentage' },
  { label: 'condition with empty type', path: 'rules.0.conditions.0.type', value: '', property: 'rules[0].conditions[0].type' },
  { label: 'rule returnValue (a gate-rule field list)', path: 'rules.0.returnValue', value: {}, property: 'rules[0].returnValue' },
  { label: 'a misspelt field', path: 'tagz', value: [], property: 'tagz', message: /did you mean 'tags'/ },
  { label: 'response-only count', path: 'count', value: 3, property: 'count' },
  { label: 'response-only version', path: 'version', value: 3, property: 'version' },
  { label: 'response-only permalink', path: 'permalink', value: 'x', property: 'permalink' },
];

describe('segment validation: one mutated field per case', () => {
  describeValidationTable({
    listPath: 'segments',
    existingId: 'existing_segment',
    seed: async (t) => {
      const res = await t.call('POST', BASE, { id: 'existing_segment', name: 'existing segment', type: 'rule_based', rules: [rule('kept rule')] });
      expect(res.statusCode).toBe(201);
    },
    bodies: { create: { ...SEGMENT_UPDATE, id: 'valid_segment' }, update: SEGMENT_UPDATE, patch: SEGMENT_UPDATE },
    cases: SEGMENT_CASES,
  });
});
