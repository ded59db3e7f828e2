import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { describeValidationTable, REMOVE, storeSnapshot, type Body, type MutationCase } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const BASE = '/console/v1/dynamic_configs';

const SCHEMA = JSON.stringify({
  type: 'object',
  properties: { size: { type: 'number' }, label: { type: 'string' } },
  required: ['size'],
  additionalProperties: false,
});

async function create(body: Body): Promise<Body> {
  const res = await c.call('POST', BASE, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function read(id: string): Promise<Body> {
  const res = await c.call('GET', `${BASE}/${id}`);
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

const errorsOf = (res: { json(): unknown }): { property: string; errorMessage: string }[] => (res.json() as { errors?: { property: string; errorMessage: string }[] }).errors ?? [];

describe('dynamic configs', () => {
  it('creates a config (POST /dynamic_configs) with defaults and the response-only fields', async () => {
    const config = await create({ name: 'Pricing page', defaultValue: { size: 1 } });
    expect(config).toMatchObject({
      id: 'pricing_page',
      name: 'Pricing page',
      description: '',
      isEnabled: true,
      rules: [],
      defaultValue: { size: 1 },
      idType: 'userID',
      tags: [],
      targetApps: [],
      schema: null,
      isTemplate: false,
      version: 1,
      creatorID: 'admin@localhost',
      creatorName: 'admin@localhost',
      lastModifierID: 'admin@localhost',
      lastModifierName: 'admin@localhost',
      lastModifierEmail: 'admin@localhost',
      permalink: 'http://console.test/console/v1/dynamic_configs/pricing_page',
    });
    expect(config['createdTime']).toEqual(expect.any(Number));
    expect(config['lastModifiedTime']).toBe(config['createdTime']);
    expect(await read('pricing_page')).toEqual(config);
  });

  it('keeps isTemplate from create on a full update', async () => {
    await create({ id: 'tpl', name: 'template config', isTemplate: true });
    const res = await c.call('POST', `${BASE}/tpl`, { isEnabled: true, description: 'x', rules: [] });
    expect(res.json().data.isTemplate).toBe(true);
  });

  describe('JSON5 twins (docs/design.md: either one alone is enough; both must agree)', () => {
    it('derives defaultValue from defaultValueJson5 alone and keeps the JSON5 text with its comments', async () => {
      const json5 = "{\n  // how many\n  size: 3,\n  label: 'three',\n}";
      const config = await create({ name: 'json5 config', defaultValueJson5: json5 });
      expect(config).toMatchObject({ defaultValue: { size: 3, label: 'three' }, defaultValueJson5: json5 });
    });

    it('accepts both twins when they parse to the same JSON (key order and formatting aside)', async () => {
      const config = await create({ name: 'twins', defaultValue: { a: 1, b: [true] }, defaultValueJson5: "{b: [true], /* x */ a: 1,}" });
      expect(config['defaultValue']).toEqual({ a: 1, b: [true] });
    });

    it('derives schema from schemaJson5 alone', async () => {
      const config = await create({ name: 'schema json5', schemaJson5: "{type: 'object', /* c */ required: ['size']}", defaultValue: { size: 1 } });
      expect(JSON.parse(String(config['schema']))).toEqual({ type: 'object', required: ['size'] });
    });

    it('derives rule and variant return values from their JSON5 forms and gives variants ids', async () => {
      const config = await create({
        name: 'rules json5',
        rules: [{ name: 'r', passPercentage: 100, conditions: [], returnValueJson5: '{x: 1}', variants: [{ name: 'v', passPercentage: 100, returnValueJson5: '{x: 2} // two' }] }],
      });
      const [rule] = config['rules'] as Body[];
      expect(rule).toMatchObject({ returnValue: { x: 1 }, returnValueJson5: '{x: 1}', id: expect.any(String) });
      expect((rule?.['variants'] as Body[])[0]).toMatchObject({ returnValue: { x: 2 }, id: expect.any(String) });
    });

    it('an unparsable defaultValueJson5 alone is a 400 naming it, nothing stored', async () => {
      const before = await storeSnapshot(c);
      const res = await c.call('POST', BASE, { name: 'broken', defaultValueJson5: '{size: ' });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([{ property: 'defaultValueJson5', errorMessage: expect.stringMatching(/JSON5/) }]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('a patch with only defaultValueJson5 replaces the value (the stored twin is derived again)', async () => {
      await create({ id: 'cfg', name: 'config', defaultValueJson5: '{size: 1}' });
      const res = await c.call('PATCH', `${BASE}/cfg`, { defaultValueJson5: '{size: 2 /* bigger */}' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ defaultValue: { size: 2 }, defaultValueJson5: '{size: 2 /* bigger */}', version: 2 });
    });

    it('a patch with only defaultValue replaces the value and drops the stale JSON5 text', async () => {
      await create({ id: 'cfg', name: 'config', defaultValueJson5: '{size: 1} // one' });
      const res = await c.call('PATCH', `${BASE}/cfg`, { defaultValue: { size: 5 } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ defaultValue: { size: 5 } });
      expect(res.json().data).not.toHaveProperty('defaultValueJson5');
    });

    it('a full update with only defaultValueJson5 uses it', async () => {
      await create({ id: 'cfg', name: 'config', defaultValue: { size: 1 } });
      const res = await c.call('POST', `${BASE}/cfg`, { isEnabled: true, description: '', rules: [], defaultValueJson5: '{size: 7}' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.defaultValue).toEqual({ size: 7 });
    });

    it('a patch with only schemaJson5 replaces the schema', async () => {
      await create({ id: 'cfg', name: 'config', schemaJson5: "{type: 'object'}" });
      const res = await c.call('PATCH', `${BASE}/cfg`, { schemaJson5: "{type: 'object', maxProperties: 3}" });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.json().data.schema)).toEqual({ type: 'object', maxProperties: 3 });
    });

    it('a patch setting schema to null removes the schema', async () => {
      await create({ id: 'cfg', name: 'config', schemaJson5: "{type: 'object'}" });
      const res = await c.call('PATCH', `${BASE}/cfg`, { schema: null });
      expect(res.json().data).toMatchObject({ schema: null, schemaJson5: null });
    });
  });

  describe('JSON Schema (2020-12) of return values', () => {
    it('checks the stored values against a schema a patch introduces, naming the rule', async () => {
      await create({ id: 'cfg', name: 'config', defaultValue: { size: 1 }, rules: [{ name: 'big ones', passPercentage: 10, conditions: [], returnValue: { size: 'huge' } }] });
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${BASE}/cfg`, { schema: SCHEMA });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([{ property: 'rules[0].returnValue', errorMessage: expect.stringContaining("rule 'big ones'") }]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('uses 2020-12 keywords (prefixItems, $defs)', async () => {
      const schema = JSON.stringify({ $defs: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } }, type: 'object', properties: { p: { $ref: '#/$defs/pair' } } });
      expect((await c.call('POST', BASE, { name: 'ok pair', schema, defaultValue: { p: ['a', 1] } })).statusCode).toBe(201);
      const res = await c.call('POST', BASE, { name: 'bad pair', schema, defaultValue: { p: ['a', 1, 2] } });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res).map((e) => e.property)).toEqual(['defaultValue']);
    });

    it('reports every value that fails, each with its path', async () => {
      const res = await c.call('POST', BASE, {
        name: 'many failures',
        schema: SCHEMA,
        defaultValue: {},
        rules: [
          { name: 'a', passPercentage: 1, conditions: [], returnValue: { size: 'x' }, variants: [{ name: 'v', passPercentage: 100, returnValue: { size: 1, extra: 1 } }] },
          { name: 'b', passPercentage: 1, conditions: [], returnValue: { size: 2 } },
        ],
      });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res).map((e) => e.property)).toEqual(['defaultValue', 'rules[0].returnValue', 'rules[0].variants[0].returnValue']);
    });
  });

  describe('dry run (?dryRun=true)', () => {
    it('create: returns the would-be entity and persists nothing', async () => {
      const before = await storeSnapshot(c);
      const res = await c.call('POST', `${BASE}?dryRun=true`, { name: 'dry config', defaultValue: { size: 1 }, schema: SCHEMA });
      expect(res.statusCode).toBe(200);
      expect(res.json().message).toMatch(/dry run/i);
      expect(res.json().data).toMatchObject({ id: 'dry_config', version: 1, defaultValue: { size: 1 } });
      expect(await storeSnapshot(c)).toBe(before);
      expect((await c.call('GET', `${BASE}/dry_config`)).statusCode).toBe(404);
    });

    it.each([
      ['full update', 'POST', { isEnabled: false, description: 'dry', rules: [] }],
      ['partial update', 'PATCH', { description: 'dry' }],
    ] as const)('%s: returns the would-be entity with the next version and persists nothing', async (_name, method, body) => {
      await create({ id: 'cfg', name: 'config' });
      const before = await storeSnapshot(c);
      const res = await c.call(method, `${BASE}/cfg?dryRun=true`, body);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ id: 'cfg', description: 'dry', version: 2 });
      expect(await storeSnapshot(c)).toBe(before);
      expect((await read('cfg'))['description']).toBe('');
    });

    it('runs every check: an invalid body is still a 400', async () => {
      const res = await c.call('POST', `${BASE}?dryRun=true`, { name: 'dry config', schema: SCHEMA, defaultValue: { size: 'x' } });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res).map((e) => e.property)).toEqual(['defaultValue']);
    });

    it('dryRun=false writes; a dryRun that is not a boolean is a 400', async () => {
      expect((await c.call('POST', `${BASE}?dryRun=false`, { name: 'real config' })).statusCode).toBe(201);
      const before = await storeSnapshot(c);
      const res = await c.call('POST', `${BASE}?dryRun=maybe`, { name: 'other config' });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res).map((e) => e.property)).toEqual(['dryRun']);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('full update (POST /dynamic_configs/{id}) and partial update (PATCH /dynamic_configs/{id})', () => {
    const full: Body = {
      name: 'config',
      description: 'the config',
      isEnabled: true,
      rules: [{ name: 'r', passPercentage: 10, conditions: [{ type: 'public' }], returnValue: { size: 2 } }],
      defaultValue: { size: 1 },
      idType: 'stableID',
      tags: ['web'],
      targetApps: ['web'],
      team: 'payments',
      teamID: 't1',
      owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Dev', ownerEmail: 'dev@example.com' },
      schema: SCHEMA,
      releasePipelineID: 'rp1',
    };

    it('full update: left-out fields take their defaults', async () => {
      await create({ id: 'cfg', ...full });
      const res = await c.call('POST', `${BASE}/cfg`, { isEnabled: false, description: 'replaced', rules: [] });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'config', isEnabled: false, description: 'replaced', rules: [], defaultValue: {}, tags: [], schema: null, idType: 'userID', version: 2 });
      expect(res.json().data).not.toHaveProperty('owner');
    });

    it.each<[string, unknown]>([
      ['name', 'config renamed'],
      ['description', 'changed'],
      ['isEnabled', false],
      ['defaultValue', { size: 9 }],
      ['idType', 'userID'],
      ['tags', []],
      ['targetApps', ['ios']],
      ['team', null],
      ['teamID', 't9'],
      ['owner', null],
      ['releasePipelineID', null],
      ['creatorEmail', 'someone@example.com'],
    ])('patch changes only %s', async (field, value) => {
      const before = await create({ id: 'cfg', ...full });
      const res = await c.call('PATCH', `${BASE}/cfg`, { [field]: value });
      expect(res.statusCode, res.body).toBe(200);
      const after = res.json().data as Body;
      // A cleared owner is left out of responses (the reference API types it without null).
      expect(after[field] ?? null).toEqual(value);
      const rest = (config: Body): Body => {
        const { [field]: _changed, version: _v, lastModifiedTime: _t, ...others } = config;
        // status follows isEnabled (Enabled / Disabled).
        if (field === 'isEnabled') delete others['status'];
        return others;
      };
      expect(rest(after)).toEqual(rest(before));
      if (field === 'isEnabled') expect(after['status']).toBe(value === true ? 'Enabled' : 'Disabled');
      expect(after['version']).toBe(2);
    });

    it('patch of rules replaces the rules and keeps rule ids by name', async () => {
      const before = await create({ id: 'cfg', ...full });
      const ruleId = (before['rules'] as Body[])[0]?.['id'];
      const res = await c.call('PATCH', `${BASE}/cfg`, { rules: [{ name: 'r', passPercentage: 90, conditions: [], returnValue: { size: 3 } }] });
      expect(res.json().data.rules).toEqual([expect.objectContaining({ id: ruleId, passPercentage: 90, returnValue: { size: 3 } })]);
    });
  });

  describe('list, actions, versions, delete', () => {
    it('filters by idType and tags', async () => {
      await create({ name: 'one', idType: 'stableID', tags: ['a'] });
      await create({ name: 'two', tags: ['b'] });
      const ids = async (q: string): Promise<unknown[]> => ((await c.call('GET', `${BASE}${q}`)).json().data as Body[]).map((d) => d['id']);
      expect(await ids('')).toEqual(['one', 'two']);
      expect(await ids('?idType=stableID')).toEqual(['one']);
      expect(await ids('?tags=b')).toEqual(['two']);
      expect(await ids('?tags=a,b')).toEqual(['one', 'two']);
    });

    it('disable and enable, each a new version; versions newest first', async () => {
      await create({ id: 'cfg', name: 'config' });
      expect((await c.call('PUT', `${BASE}/cfg/disable`)).json().data).toMatchObject({ isEnabled: false, version: 2 });
      expect((await c.call('PUT', `${BASE}/cfg/enable`)).json().data).toMatchObject({ isEnabled: true, version: 3 });
      const versions = (await c.call('GET', `${BASE}/cfg/versions`)).json();
      expect(versions.data.map((v: Body) => [v['version'], v['isEnabled']])).toEqual([
        [3, true],
        [2, false],
        [1, true],
      ]);
      expect(versions.pagination.totalItems).toBe(3);
    });

    it('has no gate-only actions', async () => {
      await create({ id: 'cfg', name: 'config' });
      expect((await c.call('PUT', `${BASE}/cfg/launch`)).statusCode).toBe(404);
    });

    it('deletes; then 404', async () => {
      await create({ id: 'cfg', name: 'config' });
      expect((await c.call('DELETE', `${BASE}/cfg`)).json()).toEqual({ message: expect.any(String) });
      expect((await c.call('GET', `${BASE}/cfg`)).json()).toEqual({ status: 404, message: 'Dynamic config not found.' });
    });
  });
});

const DC_UPDATE: Body = {
  name: 'valid config',
  description: 'A dynamic config used as the base of every validation case.',
  isEnabled: true,
  idType: 'userID',
  tags: ['web'],
  targetApps: ['web'],
  defaultValue: { size: 1 },
  schema: SCHEMA,
  rules: [
    {
      id: 'rule-1',
      name: 'first rule',
      passPercentage: 50,
      conditions: [{ type: 'public' }],
      environments: null,
      returnValue: { size: 2 },
      variants: [
        { name: 'small', passPercentage: 50, returnValue: { size: 3 } },
        { name: 'large', passPercentage: 50, returnValueJson5: '{size: 4 /* big */}' },
      ],
    },
    { name: 'second rule', passPercentage: 100, conditions: [{ type: 'email', operator: 'any', targetValue: ['a@example.com'] }], returnValueJson5: "{size: 5, label: 'five'}" },
  ],
  owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Dev', ownerEmail: 'dev@example.com' },
  team: null,
  teamID: null,
  releasePipelineID: null,
  creatorID: null,
  creatorEmail: null,
};

const CREATE_ONLY = ['create'] as const;
const NOT_CREATE = ['update', 'patch'] as const;

const DC_CASES: MutationCase[] = [
  { label: 'name missing', path: 'name', value: REMOVE, property: 'name', ops: CREATE_ONLY, message: /required/ },
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name', message: /3 to 100/ },
  { label: 'name of 101 characters', path: 'name', value: 'n'.repeat(101), property: 'name' },
  { label: 'name with a colon', path: 'name', value: 'bad:name', property: 'name' },
  { label: 'id of 2 characters', path: 'id', value: 'ab', property: 'id', ops: CREATE_ONLY },
  { label: 'id of 101 characters', path: 'id', value: 'i'.repeat(101), property: 'id', ops: CREATE_ONLY },
  { label: 'id with a space', path: 'id', value: 'has space', property: 'id', ops: CREATE_ONLY },
  { label: 'id with a slash', path: 'id', value: 'a/b/c', property: 'id', ops: CREATE_ONLY },
  { label: 'id on an update', path: 'id', value: 'other', property: 'id', ops: NOT_CREATE },
  { label: 'isTemplate on an update', path: 'isTemplate', value: true, property: 'isTemplate', ops: NOT_CREATE },
  { label: 'isTemplate a string', path: 'isTemplate', value: 'yes', property: 'isTemplate', ops: CREATE_ONLY },
  { label: 'description of 1001 characters', path: 'description', value: 'd'.repeat(1001), property: 'description', message: /1000/ },
  { label: 'description missing on a full update', path: 'description', value: REMOVE, property: 'description', ops: ['update'] },
  { label: 'isEnabled missing on a full update', path: 'isEnabled', value: REMOVE, property: 'isEnabled', ops: ['update'] },
  { label: 'rules missing on a full update', path: 'rules', value: REMOVE, property: 'rules', ops: ['update'] },
  { label: 'isEnabled a number', path: 'isEnabled', value: 1, property: 'isEnabled' },
  { label: 'idType empty', path: 'idType', value: '', property: 'idType' },
  { label: 'an empty tag', path: 'tags.0', value: '', property: 'tags[0]' },
  { label: 'targetApps a string', path: 'targetApps', value: 'web', property: 'targetApps' },
  { label: 'unknown owner field', path: 'owner.owner', value: 'x', property: 'owner.owner' },
  { label: 'team a number', path: 'team', value: 5, property: 'team' },
  { label: 'releasePipelineID an object', path: 'releasePipelineID', value: {}, property: 'releasePipelineID' },
  { label: 'defaultValue a string', path: 'defaultValue', value: 'big', property: 'defaultValue' },
  { label: 'defaultValue an array', path: 'defaultValue', value: [1], property: 'defaultValue' },
  { label: 'defaultValue null', path: 'defaultValue', value: null, property: 'defaultValue' },
  { label: 'defaultValue of the wrong type for the schema', path: 'defaultValue', value: { size: 'big' }, property: 'defaultValue', message: /schema/ },
  { label: 'defaultValue with a property the schema forbids', path: 'defaultValue', value: { size: 1, extra: true }, property: 'defaultValue', message: /schema/ },
  { label: 'defaultValue without a required property', path: 'defaultValue', value: {}, property: 'defaultValue', message: /size/ },
  { label: 'defaultValueJson5 different from defaultValue', path: 'defaultValueJson5', value: '{size: 2}', property: 'defaultValueJson5', message: /same JSON/ },
  { label: 'defaultValueJson5 unparsable', path: 'defaultValueJson5', value: '{size: ', property: 'defaultValueJson5', message: /JSON5/ },
  { label: 'defaultValueJson5 a number', path: 'defaultValueJson5', value: 5, property: 'defaultValueJson5' },
  { label: 'schema not JSON', path: 'schema', value: 'not json', property: 'schema', message: /JSON/ },
  { label: 'schema not a valid JSON Schema', path: 'schema', value: '{"type": 12}', property: 'schema', message: /JSON Schema/ },
  { label: 'schema a number', path: 'schema', value: 42, property: 'schema' },
  { label: 'schemaJson5 different from schema', path: 'schemaJson5', value: "{type: 'array'}", property: 'schemaJson5', message: /same JSON/ },
  { label: 'schemaJson5 unparsable', path: 'schemaJson5', value: '{type: ', property: 'schemaJson5', message: /JSON5/ },
  { label: 'rules not an array', path: 'rules', value: {}, property: 'rules' },
  { label: 'duplicate rule name', path: 'rules.1.name', value: 'first rule', property: 'rules[1].name', message: /unique/ },
  { label: 'duplicate rule id', path: 'rules.1.id', value: 'rule-1', property: 'rules[1].id', message: /unique/ },
  { label: 'rule passPercentage 101', path: 'rules.0.passPercentage', value: 101, property: 'rules[0].passPercentage' },
  { label: 'rule passPercentage -0.5', path: 'rules.1.passPercentage', value: -0.5, property: 'rules[1].passPercentage' },
  { label: 'rule without conditions', path: 'rules.1.conditions', value: REMOVE, property: 'rules[1].conditions' },
  { label: 'condition with empty type', path: 'rules.1.conditions.0.type', value: '', property: 'rules[1].conditions[0].type' },
  { label: 'rule returnValue a string', path: 'rules.0.returnValue', value: 'x', property: 'rules[0].returnValue' },
  { label: 'rule returnValue failing the schema', path: 'rules.0.returnValue', value: { size: 'x' }, property: 'rules[0].returnValue', message: /rule 'first rule'/ },
  { label: 'rule returnValueJson5 different from returnValue', path: 'rules.0.returnValueJson5', value: '{size: 9}', property: 'rules[0].returnValueJson5', message: /same JSON/ },
  { label: 'rule returnValueJson5 unparsable', path: 'rules.1.returnValueJson5', value: '{size', property: 'rules[1].returnValueJson5', message: /JSON5/ },
  { label: 'rule returnValueJson5 failing the schema', path: 'rules.1.returnValueJson5', value: "{size: 'five'}", property: 'rules[1].returnValue', message: /rule 'second rule'/ },
  { label: 'unknown rule field', path: 'rules.0.value', value: {}, property: 'rules[0].value' },
  { label: 'variants not an array', path: 'rules.0.variants', value: {}, property: 'rules[0].variants' },
  { label: 'variant without name', path: 'rules.0.variants.0.name', value: REMOVE, property: 'rules[0].variants[0].name' },
  { label: 'duplicate variant name', path: 'rules.0.variants.1.name', value: 'small', property: 'rules[0].variants[1].name', message: /unique/ },
  { label: 'variant passPercentage 101', path: 'rules.0.variants.0.passPercentage', value: 101, property: 'rules[0].variants[0].passPercentage' },
  { label: 'variant returnValue failing the schema', path: 'rules.0.variants.0.returnValue', value: { size: [] }, property: 'rules[0].variants[0].returnValue', message: /rule 'first rule'/ },
  { label: 'variant returnValueJson5 failing the schema', path: 'rules.0.variants.1.returnValueJson5', value: '{}', property: 'rules[0].variants[1].returnValue', message: /size/ },
  { label: 'variant returnValueJson5 different from returnValue', path: 'rules.0.variants.0.returnValueJson5', value: '{size: 4}', property: 'rules[0].variants[0].returnValueJson5', message: /same JSON/ },
  { label: 'unknown variant field', path: 'rules.0.variants.0.weight', value: 1, property: 'rules[0].variants[0].weight' },
  { label: 'a misspelt field', path: 'defaultVaule', value: {}, property: 'defaultVaule', message: /did you mean 'defaultValue'/ },
  { label: 'response-only version', path: 'version', value: 1, property: 'version' },
  { label: 'response-only permalink', path: 'permalink', value: 'x', property: 'permalink' },
  { label: 'response-only holdoutIDs', path: 'holdoutIDs', value: [], property: 'holdoutIDs' },
  { label: 'response-only createdTime', path: 'createdTime', value: 1, property: 'createdTime' },
];

describe('dynamic config validation: one mutated field per case', () => {
  describeValidationTable({
    listPath: 'dynamic_configs',
    existingId: 'existing_config',
    seed: async (t) => {
      const res = await t.call('POST', BASE, { id: 'existing_config', name: 'existing config', defaultValue: { size: 0 }, schema: SCHEMA });
      expect(res.statusCode).toBe(201);
    },
    bodies: { create: { ...DC_UPDATE, id: 'valid_config', isTemplate: false }, update: DC_UPDATE, patch: DC_UPDATE },
    cases: DC_CASES,
  });
});
