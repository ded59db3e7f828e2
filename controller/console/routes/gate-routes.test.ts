import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { describeValidationTable, REMOVE, storeSnapshot, type Body, type MutationCase } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const STAMPS = ['version', 'lastModifiedTime', 'lastModifierID', 'lastModifierName', 'lastModifierEmail'];
const withoutStamps = (gate: Body): Body => Object.fromEntries(Object.entries(gate).filter(([k]) => !STAMPS.includes(k)));

async function create(body: Body): Promise<Body> {
  const res = await c.call('POST', '/console/v1/gates', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function read(id: string): Promise<Body> {
  const res = await c.call('GET', `/console/v1/gates/${id}`);
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

const rule = (name: string, extra: Body = {}): Body => ({ name, passPercentage: 100, conditions: [{ type: 'public' }], ...extra });

describe('gates', () => {
  it('creates a gate with defaults and generated rule ids', async () => {
    const res = await c.call('POST', '/console/v1/gates', { name: 'new checkout', rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] });
    expect(res.statusCode).toBe(201);
    const gate = res.json().data;
    expect(gate).toMatchObject({ id: 'new_checkout', name: 'new checkout', isEnabled: true, type: 'PERMANENT', status: 'In Progress', version: 1 });
    expect(gate.rules[0].id).toEqual(expect.any(String));
  });

  it('fills every writable field with its default and computes the response-only fields', async () => {
    const now = 1_700_000_000_000;
    const timed = createTestConsole({ clock: () => now });
    try {
      const res = await timed.call('POST', '/console/v1/gates', { name: 'checkout' });
      expect(res.json().data).toEqual({
        id: 'checkout',
        name: 'checkout',
        description: '',
        isEnabled: true,
        rules: [],
        tags: [],
        type: 'PERMANENT',
        typeReason: 'NONE',
        status: 'In Progress',
        idType: 'userID',
        targetApps: [],
        creatorID: 'admin@localhost',
        creatorEmail: 'admin@localhost',
        // owner is not set: left out (the reference API types it without null; "the owner may be undefined").
        team: null,
        teamID: null,
        measureMetricLifts: false,
        monitoringMetrics: [],
        reviewSettings: { requiredReview: false, allowedReviewers: [] },
        releasePipelineID: null,
        overrides: { passingUserIDs: [], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [] },
        isTemplate: false,
        checksPerHour: 0,
        store0100Exposures: false,
        version: 1,
        createdTime: now,
        creatorName: 'admin@localhost',
        lastModifiedTime: now,
        lastModifierID: 'admin@localhost',
        lastModifierName: 'admin@localhost',
        lastModifierEmail: 'admin@localhost',
        permalink: 'http://console.test/console/v1/gates/checkout',
        // computed by the holdout kind; not asserted here
        ...(res.json().data.holdoutIDs === undefined ? {} : { holdoutIDs: res.json().data.holdoutIDs }),
      });
    } finally {
      await timed.close();
    }
  });

  it('uses an explicit id, and refuses a second gate with the same id (409)', async () => {
    expect((await create({ id: 'gate.v2-x', name: 'Gate v2' })).id).toBe('gate.v2-x');
    const again = await c.call('POST', '/console/v1/gates', { id: 'gate.v2-x', name: 'Other name' });
    expect(again.statusCode).toBe(409);
    expect((await c.call('POST', '/console/v1/gates', { name: 'Gate v2 ' })).statusCode).toBe(201);
  });

  it.each([
    ['ab ', 'ab'],
    ['  a', 'a'],
  ])('a name whose derived id is invalid (%j → %j) is a 400 naming id, nothing stored', async (name, derived) => {
    const before = await storeSnapshot(c);
    const res = await c.call('POST', '/console/v1/gates', { name });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'id', errorMessage: expect.stringContaining(`'${derived}'`) }]);
    expect(await storeSnapshot(c)).toBe(before);
    expect((await c.call('POST', '/console/v1/gates', { name, id: 'explicit_id' })).statusCode).toBe(201);
  });

  it('records the calling user as creator and modifier', async () => {
    const member = await c.keyFor('dev@example.com', 'member');
    const created = (await c.call('POST', '/console/v1/gates', { name: 'checkout' }, member)).json().data;
    expect(created).toMatchObject({ creatorID: 'dev@example.com', creatorEmail: 'dev@example.com', creatorName: 'dev@example.com', lastModifierEmail: 'dev@example.com' });
    const patched = (await c.call('PATCH', '/console/v1/gates/checkout', { description: 'by admin' })).json().data;
    expect(patched).toMatchObject({ creatorName: 'dev@example.com', lastModifierID: 'admin@localhost', lastModifierName: 'admin@localhost', lastModifierEmail: 'admin@localhost' });
    expect(patched.createdTime).toBe(created.createdTime);
  });

  describe('rules', () => {
    it('generates distinct ids for rules without one and keeps given ids', async () => {
      const gate = await create({ name: 'checkout', rules: [rule('a'), rule('b', { id: 'my-rule' }), rule('c')] });
      const ids = (gate['rules'] as Body[]).map((r) => r['id']);
      expect(ids[1]).toBe('my-rule');
      expect(new Set(ids).size).toBe(3);
      for (const r of gate['rules'] as Body[]) expect(r['baseID']).toBe(r['id']);
    });

    it('keeps rule ids across updates that resend rules without ids (matched by name)', async () => {
      const gate = await create({ name: 'checkout', rules: [rule('a'), rule('b')] });
      const before = (gate['rules'] as Body[]).map((r) => r['id']);
      const res = await c.call('PATCH', '/console/v1/gates/checkout', { rules: [rule('b', { passPercentage: 50 }), rule('a'), rule('new')] });
      const after = res.json().data.rules as Body[];
      expect(after[0]?.['id']).toBe(before[1]);
      expect(after[1]?.['id']).toBe(before[0]);
      expect(before).not.toContain(after[2]?.['id']);
    });

    it('does not hand a rule an inherited id that another rule of the request states', async () => {
      const gate = await create({ name: 'checkout', rules: [rule('a')] });
      const idA = (gate['rules'] as Body[])[0]?.['id'];
      const res = await c.call('PATCH', '/console/v1/gates/checkout', { rules: [rule('renamed', { id: idA }), rule('a')] });
      expect(res.statusCode, res.body).toBe(200);
      const ids = (res.json().data.rules as Body[]).map((r) => r['id']);
      expect(ids[0]).toBe(idA);
      expect(ids[1]).not.toBe(idA);
    });

    it('refuses two rules with the same explicit id', async () => {
      const res = await c.call('POST', '/console/v1/gates', { name: 'checkout', rules: [rule('a', { id: 'same' }), rule('b', { id: 'same' })] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ property: 'rules[1].id', errorMessage: expect.stringContaining('unique') }]);
    });

    it('keeps conditions as given', async () => {
      const conditions = [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }, { type: 'app_version', operator: 'version_gt', targetValue: ['1.2.0'] }];
      const gate = await create({ name: 'checkout', rules: [rule('a', { conditions, environments: ['production'] })] });
      expect((gate['rules'] as Body[])[0]).toMatchObject({ conditions, environments: ['production'] });
    });
  });

  describe('list', () => {
    beforeEach(async () => {
      await create({ name: 'alpha', type: 'TEMPORARY', tags: ['web', 'beta'], idType: 'userID' });
      await create({ name: 'bravo', type: 'PERMANENT', tags: ['mobile'], idType: 'stableID' });
      await create({ name: 'charlie', type: 'TEMPORARY', tags: [], idType: 'stableID' });
    });
    const ids = async (query: string): Promise<string[]> => {
      const res = await c.call('GET', `/console/v1/gates${query}`);
      expect(res.statusCode).toBe(200);
      return (res.json().data as Body[]).map((g) => String(g['id']));
    };

    it('lists every gate in creation order', async () => {
      expect(await ids('')).toEqual(['alpha', 'bravo', 'charlie']);
    });

    it.each([
      ['?type=TEMPORARY', ['alpha', 'charlie']],
      ['?type=PERMANENT', ['bravo']],
      ['?idType=stableID', ['bravo', 'charlie']],
      ['?tags=mobile', ['bravo']],
      ['?tags=beta,mobile', ['alpha', 'bravo']],
      ['?tags=none', []],
      ['?type=TEMPORARY&idType=stableID', ['charlie']],
    ])('filters %s', async (query, expected) => {
      expect(await ids(query)).toEqual(expected);
    });

    it('counts filtered items in totalItems', async () => {
      const res = await c.call('GET', '/console/v1/gates?type=TEMPORARY&limit=1');
      expect(res.json().pagination).toMatchObject({ totalItems: 2, nextPage: '/console/v1/gates?type=TEMPORARY&page=2&limit=1' });
    });
  });

  describe('full update (POST /gates/{id})', () => {
    it('replaces the writable fields; left-out ones take their defaults; name, type, creator and createdTime stay', async () => {
      const created = await create({ name: 'checkout', description: 'old', tags: ['a'], type: 'TEMPORARY', targetApps: ['web'], isTemplate: true, rules: [rule('a')] });
      const res = await c.call('POST', '/console/v1/gates/checkout', { isEnabled: false, description: 'new', rules: [] });
      expect(res.statusCode).toBe(200);
      const gate = res.json().data;
      expect(gate).toMatchObject({ id: 'checkout', name: 'checkout', isEnabled: false, description: 'new', rules: [], tags: [], type: 'TEMPORARY', targetApps: [], isTemplate: true, version: 2 });
      expect(gate.createdTime).toBe(created['createdTime']);
      expect(gate.creatorName).toBe('admin@localhost');
    });

    it('renames when the body has a name', async () => {
      await create({ name: 'checkout' });
      const gate = (await c.call('POST', '/console/v1/gates/checkout', { name: 'Checkout v2', isEnabled: true, description: '', rules: [] })).json().data;
      expect(gate).toMatchObject({ id: 'checkout', name: 'Checkout v2' });
    });

    it('404 for a gate that does not exist, nothing stored', async () => {
      const before = await storeSnapshot(c);
      const res = await c.call('POST', '/console/v1/gates/nope', { isEnabled: true, description: '', rules: [] });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 404, message: 'Gate not found.' });
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('partial update (PATCH /gates/{id})', () => {
    const full: Body = {
      name: 'checkout',
      description: 'the checkout',
      isEnabled: true,
      rules: [rule('a', { passPercentage: 20 })],
      tags: ['web'],
      type: 'TEMPORARY',
      idType: 'stableID',
      targetApps: ['web'],
      owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Dev', ownerEmail: 'dev@example.com' },
      team: 'payments',
      teamID: 't1',
      measureMetricLifts: true,
      monitoringMetrics: [{ name: 'revenue', type: 'event_count' }],
      reviewSettings: { requiredReview: true, allowedReviewers: [{ email: 'lead@example.com' }] },
      releasePipelineID: 'rp1',
    };

    it.each<[string, unknown]>([
      ['name', 'Checkout renamed'],
      ['description', 'changed'],
      ['isEnabled', false],
      ['rules', [rule('b', { passPercentage: 70 })]],
      ['tags', ['mobile', 'beta']],
      ['type', 'PERMANENT'],
      ['idType', 'userID'],
      ['targetApps', []],
      ['creatorID', 'someone'],
      ['creatorEmail', 'someone@example.com'],
      ['owner', null],
      ['team', null],
      ['teamID', 't2'],
      ['measureMetricLifts', false],
      ['monitoringMetrics', []],
      ['reviewSettings', { requiredReview: false, allowedReviewers: [] }],
      ['releasePipelineID', null],
    ])('changes only %s', async (field, value) => {
      const before = await create(full);
      const res = await c.call('PATCH', '/console/v1/gates/checkout', { [field]: value });
      expect(res.statusCode, res.body).toBe(200);
      const after = res.json().data as Body;
      expect(after['version']).toBe(2);
      if (field === 'rules') {
        expect((after['rules'] as Body[]).map((r) => [r['name'], r['passPercentage']])).toEqual([['b', 70]]);
      } else expect(after[field] ?? null).toEqual(value);
      const unchanged = (g: Body): Body => {
        const { [field]: _changed, ...rest } = withoutStamps(g);
        return rest;
      };
      expect(unchanged(after)).toEqual(unchanged(before));
      expect(await read('checkout')).toEqual(after);
    });

    it('an empty patch changes nothing and bumps no version', async () => {
      await create(full);
      const res = await c.call('PATCH', '/console/v1/gates/checkout', {});
      expect(res.statusCode).toBe(200);
      expect(res.json().data.version).toBe(1);
      expect((await c.store.entities.versions('gate', 'checkout', 0, 10)).total).toBe(1);
    });

    it('404 for a gate that does not exist', async () => {
      const res = await c.call('PATCH', '/console/v1/gates/nope', { description: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Gate not found.');
    });
  });

  describe('delete', () => {
    it('deletes the gate with its history; a second delete is a 404', async () => {
      await create({ name: 'checkout' });
      await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' });
      expect((await c.call('DELETE', '/console/v1/gates/checkout')).statusCode).toBe(200);
      expect((await c.call('GET', '/console/v1/gates/checkout')).statusCode).toBe(404);
      expect((await c.call('GET', '/console/v1/gates/checkout/versions')).statusCode).toBe(404);
      expect((await c.store.audit.list({ kind: 'gate', entityId: 'checkout', offset: 0, limit: 10 })).items.map((e) => e.action)).toEqual(['delete', 'patch', 'create']);
      expect((await c.call('DELETE', '/console/v1/gates/checkout')).statusCode).toBe(404);
    });
  });

  describe('lifecycle actions (PUT /gates/{id}/<action>)', () => {
    const put = async (action: string): Promise<{ status: number; gate: Body; message: string }> => {
      const res = await c.call('PUT', `/console/v1/gates/checkout/${action}`);
      return { status: res.statusCode, gate: res.json().data, message: res.json().message };
    };

    it('disable and enable flip isEnabled and bump the version', async () => {
      await create({ name: 'checkout' });
      expect(await put('disable')).toMatchObject({ status: 200, gate: { isEnabled: false, version: 2, status: 'In Progress' } });
      expect(await put('enable')).toMatchObject({ status: 200, gate: { isEnabled: true, version: 3 } });
    });

    it('enabling an enabled gate is a 200 no-op without a new version', async () => {
      await create({ name: 'checkout' });
      const res = await put('enable');
      expect(res).toMatchObject({ status: 200, gate: { isEnabled: true, version: 1 } });
      expect(res.message).toMatch(/already/);
      expect((await c.store.audit.list({ offset: 0, limit: 10 })).total).toBe(1);
    });

    it('launch sets status Launched and enables the gate', async () => {
      await create({ name: 'checkout', isEnabled: false });
      expect(await put('launch')).toMatchObject({ status: 200, gate: { status: 'Launched', isEnabled: true, version: 2 } });
    });

    it('archive refuses enable, disable and launch (409, nothing changed); unarchive restores the status', async () => {
      await create({ name: 'checkout' });
      await put('launch');
      expect(await put('archive')).toMatchObject({ status: 200, gate: { status: 'Archived' } });
      expect((await read('checkout'))['statusBeforeArchive']).toBeUndefined();
      for (const action of ['enable', 'disable', 'launch']) {
        const before = await storeSnapshot(c);
        expect((await put(action)).status, action).toBe(409);
        expect(await storeSnapshot(c)).toBe(before);
      }
      expect(await put('unarchive')).toMatchObject({ status: 200, gate: { status: 'Launched' } });
    });

    it('unarchive of a gate archived while in progress returns it to In Progress', async () => {
      await create({ name: 'checkout' });
      await put('archive');
      expect((await put('unarchive')).gate['status']).toBe('In Progress');
    });

    it('404 for a missing gate and for an unknown action', async () => {
      expect((await c.call('PUT', '/console/v1/gates/nope/enable')).statusCode).toBe(404);
      await create({ name: 'checkout' });
      expect((await c.call('PUT', '/console/v1/gates/checkout/explode')).statusCode).toBe(404);
    });

    it('writes one audit row per action, named after it', async () => {
      await create({ name: 'checkout' });
      for (const action of ['disable', 'enable', 'launch', 'archive', 'unarchive']) await put(action);
      const actions = (await c.store.audit.list({ kind: 'gate', offset: 0, limit: 10 })).items.map((e) => e.action);
      expect(actions).toEqual(['unarchive', 'archive', 'launch', 'enable', 'disable', 'create']);
    });
  });

  describe('versions (GET /gates/{id}/versions)', () => {
    it('lists one snapshot per change, newest first, with totalItems', async () => {
      await create({ name: 'checkout', description: 'v1' });
      await c.call('PATCH', '/console/v1/gates/checkout', { description: 'v2' });
      await c.call('PUT', '/console/v1/gates/checkout/disable');
      await c.call('POST', '/console/v1/gates/checkout', { isEnabled: true, description: 'v4', rules: [] });
      const res = await c.call('GET', '/console/v1/gates/checkout/versions');
      expect(res.statusCode).toBe(200);
      const { data, pagination } = res.json();
      expect(data.map((v: Body) => [v['version'], v['description'], v['isEnabled']])).toEqual([
        [4, 'v4', true],
        [3, 'v2', false],
        [2, 'v2', true],
        [1, 'v1', true],
      ]);
      expect(pagination).toMatchObject({ totalItems: 4, all: '/console/v1/gates/checkout/versions' });
      expect(data[0]).toEqual(await read('checkout'));
    });

    it('pages versions', async () => {
      await create({ name: 'checkout' });
      for (let i = 2; i <= 5; i++) await c.call('PATCH', '/console/v1/gates/checkout', { description: `v${i}` });
      const res = await c.call('GET', '/console/v1/gates/checkout/versions?page=2&limit=2');
      expect(res.json().data.map((v: Body) => v['version'])).toEqual([3, 2]);
      expect(res.json().pagination).toMatchObject({
        totalItems: 5,
        nextPage: '/console/v1/gates/checkout/versions?page=3&limit=2',
        previousPage: '/console/v1/gates/checkout/versions?page=1&limit=2',
      });
    });
  });
});

const validRule = (name: string): Body => ({
  name,
  passPercentage: 50,
  conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }],
  environments: ['production'],
});

const GATE_UPDATE: Body = {
  name: 'valid gate',
  description: 'A gate used as the base of every validation case.',
  isEnabled: true,
  rules: [{ id: 'rule-1', ...validRule('first rule') }, validRule('second rule')],
  tags: ['web'],
  type: 'TEMPORARY',
  idType: 'userID',
  targetApps: ['web'],
  creatorID: null,
  creatorEmail: null,
  owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Dev', ownerEmail: 'dev@example.com' },
  team: 'payments',
  teamID: 't1',
  measureMetricLifts: true,
  monitoringMetrics: [{ name: 'revenue', type: 'event_count' }],
  reviewSettings: { requiredReview: true, allowedReviewers: [{ id: 'u2', name: 'Lead', email: 'lead@example.com' }] },
  releasePipelineID: null,
};

const CREATE_ONLY = ['create'] as const;
const NOT_CREATE = ['update', 'patch'] as const;

const GATE_CASES: MutationCase[] = [
  { label: 'name missing', path: 'name', value: REMOVE, property: 'name', ops: CREATE_ONLY, message: /required/ },
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name', message: /3 to 100/ },
  { label: 'name of 101 characters', path: 'name', value: 'n'.repeat(101), property: 'name', message: /3 to 100/ },
  { label: 'name with a slash', path: 'name', value: 'bad/name', property: 'name', message: /letters, digits/ },
  { label: 'name not a string', path: 'name', value: 42, property: 'name' },
  { label: 'id of 2 characters', path: 'id', value: 'ab', property: 'id', ops: CREATE_ONLY },
  { label: 'id of 101 characters', path: 'id', value: 'i'.repeat(101), property: 'id', ops: CREATE_ONLY },
  { label: 'id with a space', path: 'id', value: 'has space', property: 'id', ops: CREATE_ONLY, message: /no space|letters, digits/ },
  { label: 'id on an update', path: 'id', value: 'other_id', property: 'id', ops: NOT_CREATE, message: /not a known field/ },
  { label: 'isTemplate on an update', path: 'isTemplate', value: true, property: 'isTemplate', ops: NOT_CREATE },
  { label: 'description of 1001 characters', path: 'description', value: 'd'.repeat(1001), property: 'description', message: /1000/ },
  { label: 'description not a string', path: 'description', value: 5, property: 'description' },
  { label: 'description missing on a full update', path: 'description', value: REMOVE, property: 'description', ops: ['update'], message: /required/ },
  { label: 'isEnabled a string', path: 'isEnabled', value: 'yes', property: 'isEnabled' },
  { label: 'isEnabled missing on a full update', path: 'isEnabled', value: REMOVE, property: 'isEnabled', ops: ['update'], message: /required/ },
  { label: 'rules missing on a full update', path: 'rules', value: REMOVE, property: 'rules', ops: ['update'], message: /required/ },
  { label: 'rules not an array', path: 'rules', value: 'all', property: 'rules' },
  { label: 'type not PERMANENT or TEMPORARY', path: 'type', value: 'BETA', property: 'type' },
  { label: 'idType empty', path: 'idType', value: '', property: 'idType' },
  { label: 'tags not an array', path: 'tags', value: 'web', property: 'tags' },
  { label: 'an empty tag', path: 'tags.0', value: '', property: 'tags[0]' },
  { label: 'an empty target app', path: 'targetApps.0', value: '', property: 'targetApps[0]' },
  { label: 'creatorID a number', path: 'creatorID', value: 5, property: 'creatorID' },
  { label: 'creatorEmail a number', path: 'creatorEmail', value: 5, property: 'creatorEmail' },
  { label: 'unknown owner field', path: 'owner.ownerTeam', value: 'x', property: 'owner.ownerTeam' },
  { label: 'owner e-mail a number', path: 'owner.ownerEmail', value: 5, property: 'owner.ownerEmail' },
  { label: 'team a number', path: 'team', value: 5, property: 'team' },
  { label: 'teamID a boolean', path: 'teamID', value: true, property: 'teamID' },
  { label: 'measureMetricLifts a string', path: 'measureMetricLifts', value: 'no', property: 'measureMetricLifts' },
  { label: 'monitoring metric without type', path: 'monitoringMetrics.0.type', value: REMOVE, property: 'monitoringMetrics[0].type' },
  { label: 'monitoring metric with empty name', path: 'monitoringMetrics.0.name', value: '', property: 'monitoringMetrics[0].name' },
  { label: 'reviewSettings without requiredReview', path: 'reviewSettings.requiredReview', value: REMOVE, property: 'reviewSettings.requiredReview' },
  { label: 'unknown reviewer field', path: 'reviewSettings.allowedReviewers.0.role', value: 'x', property: 'reviewSettings.allowedReviewers[0].role' },
  { label: 'releasePipelineID a number', path: 'releasePipelineID', value: 1, property: 'releasePipelineID' },
  { label: 'rule without name', path: 'rules.0.name', value: REMOVE, property: 'rules[0].name', message: /required/ },
  { label: 'rule with empty name', path: 'rules.0.name', value: '', property: 'rules[0].name' },
  { label: 'rule name of 101 characters', path: 'rules.0.name', value: 'r'.repeat(101), property: 'rules[0].name' },
  { label: 'duplicate rule name', path: 'rules.1.name', value: 'first rule', property: 'rules[1].name', message: /unique/ },
  { label: 'duplicate rule id', path: 'rules.1.id', value: 'rule-1', property: 'rules[1].id', message: /unique/ },
  { label: 'rule passPercentage 101', path: 'rules.0.passPercentage', value: 101, property: 'rules[0].passPercentage', message: /0 and 100/ },
  { label: 'rule passPercentage -1', path: 'rules.1.passPercentage', value: -1, property: 'rules[1].passPercentage' },
  { label: 'rule passPercentage a string', path: 'rules.0.passPercentage', value: '50', property: 'rules[0].passPercentage' },
  { label: 'rule without conditions', path: 'rules.0.conditions', value: REMOVE, property: 'rules[0].conditions' },
  { label: 'condition with empty type', path: 'rules.0.conditions.0.type', value: '', property: 'rules[0].conditions[0].type' },
  { label: 'condition without type', path: 'rules.0.conditions.0.type', value: REMOVE, property: 'rules[0].conditions[0].type' },
  { label: 'condition targetValue an object', path: 'rules.0.conditions.0.targetValue', value: { a: 1 }, property: 'rules[0].conditions[0].targetValue' },
  { label: 'unknown condition field', path: 'rules.0.conditions.0.colour', value: 'red', property: 'rules[0].conditions[0].colour' },
  { label: 'empty rule environment', path: 'rules.0.environments.0', value: '', property: 'rules[0].environments[0]' },
  { label: 'empty rule id', path: 'rules.0.id', value: '', property: 'rules[0].id' },
  { label: 'unknown rule field', path: 'rules.1.returnValue', value: {}, property: 'rules[1].returnValue' },
  { label: 'a misspelt field', path: 'nmae', value: 'x', property: 'nmae', message: /did you mean 'name'/ },
  { label: 'response-only version', path: 'version', value: 3, property: 'version' },
  { label: 'response-only checksPerHour', path: 'checksPerHour', value: 0, property: 'checksPerHour' },
  { label: 'response-only permalink', path: 'permalink', value: 'http://x', property: 'permalink' },
  { label: 'response-only holdoutIDs', path: 'holdoutIDs', value: [], property: 'holdoutIDs' },
  { label: 'response-only status', path: 'status', value: 'Launched', property: 'status' },
  { label: 'response-only lastModifierName', path: 'lastModifierName', value: 'me', property: 'lastModifierName' },
];

describe('gate validation: one mutated field per case', () => {
  describeValidationTable({
    listPath: 'gates',
    existingId: 'existing_gate',
    seed: async (t) => {
      const res = await t.call('POST', '/console/v1/gates', { id: 'existing_gate', name: 'existing gate', rules: [validRule('kept rule')] });
      expect(res.statusCode).toBe(201);
    },
    bodies: { create: { ...GATE_UPDATE, id: 'valid_gate', isTemplate: false }, update: GATE_UPDATE, patch: GATE_UPDATE },
    cases: GATE_CASES,
  });
});

describe('dry run where a kind has none', () => {
  it('refuses ?dryRun on gate writes instead of writing', async () => {
    const c2 = createTestConsole();
    const res = await c2.call('POST', '/console/v1/gates?dryRun=true', { name: 'dry gate' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'dryRun', errorMessage: 'is not supported here: this write has no dry run' }]);
    expect((await c2.call('GET', '/console/v1/gates/dry_gate')).statusCode).toBe(404);
    await c2.close();
  });
});
