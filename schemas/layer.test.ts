import { describe, expect, it } from 'vitest';
import { describeSchemaCases, undescribedProperties } from '../controller/test-support/schema-cases.js';
import { REMOVE } from '../controller/test-support/validation-table.js';
import { LAYER_DEFAULTS, LayerCreateSchema, LayerOverridesChangeSchema, LayerSchema, LayerUpdateSchema, LayerWritableSchema } from './layer.js';

const base = {
  id: 'main_layer',
  name: 'Main Layer',
  description: 'd',
  idType: 'userID',
  parameters: [
    { name: 'color', type: 'string', defaultValue: 'red' },
    { name: 'config', type: 'object', defaultValue: { a: 1 } },
    { name: 'list', type: 'array', defaultValue: [1, 'a'] },
  ],
  targetApps: ['web'],
  tags: ['t'],
  team: null,
  teamID: null,
};

describeSchemaCases('LayerCreateSchema', LayerCreateSchema, base, [
  { label: 'no name', path: 'name', value: REMOVE, property: 'name' },
  { label: 'name of 101 characters', path: 'name', value: 'x'.repeat(101), property: 'name' },
  { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description' },
  { label: 'parameter type date', path: 'parameters.0.type', value: 'date', property: 'parameters[0].type' },
  { label: 'parameter without a name', path: 'parameters.0.name', value: REMOVE, property: 'parameters[0].name' },
  { label: 'parameter default null', path: 'parameters.0.defaultValue', value: null, property: 'parameters[0].defaultValue' },
  { label: 'server-managed isImplicitLayer', path: 'isImplicitLayer', value: false, property: 'isImplicitLayer' },
]);

const { id: _id, name: _name, ...full } = base;
describeSchemaCases('LayerUpdateSchema', LayerUpdateSchema, full, [
  { label: 'no parameters', path: 'parameters', value: REMOVE, property: 'parameters' },
  { label: 'no description', path: 'description', value: REMOVE, property: 'description' },
]);

const OVERRIDES = {
  op: 'add',
  conditionalOverrides: [{ type: 'segment', name: 'staff', experimentName: 'exp1', groupName: 'Test' }],
  idOverrides: [{ groupName: 'Control', ids: ['u1'], idType: null, environment: 'staging', experimentName: 'exp1' }],
};

describeSchemaCases('LayerOverridesChangeSchema (PATCH and DELETE .../overrides)', LayerOverridesChangeSchema, OVERRIDES, [
  { label: 'op remove', path: 'op', value: 'remove', property: 'op' },
  { label: 'conditional override without an experiment', path: 'conditionalOverrides.0.experimentName', value: REMOVE, property: 'conditionalOverrides[0].experimentName' },
  { label: 'conditional override type config', path: 'conditionalOverrides.0.type', value: 'config', property: 'conditionalOverrides[0].type' },
  { label: 'id override without ids', path: 'idOverrides.0.ids', value: REMOVE, property: 'idOverrides[0].ids' },
  { label: 'id override with an empty environment', path: 'idOverrides.0.environment', value: '', property: 'idOverrides[0].environment' },
]);

describeSchemaCases('LayerCreateSchema: overrides', LayerCreateSchema, { id: 'l_1', name: 'l 1', conditionalOverrides: OVERRIDES.conditionalOverrides, idOverrides: OVERRIDES.idOverrides }, [
  { label: 'an op (request bodies of .../overrides only)', path: 'op', value: 'add', property: 'op' },
  { label: 'id override with an unknown key', path: 'idOverrides.0.group', value: 'x', property: 'idOverrides[0].group' },
]);

describe('layer schemas', () => {
  it('the defaults cover every writable field but name; every writable field is in the response; all described', () => {
    expect(Object.keys(LAYER_DEFAULTS).sort()).toEqual(Object.keys(LayerWritableSchema.shape).filter((k) => k !== 'name').sort());
    expect(LayerWritableSchema.safeParse({ ...LAYER_DEFAULTS, name: 'abc' }).error).toBeUndefined();
    expect(Object.keys(LayerWritableSchema.shape).filter((k) => !(k in LayerSchema.shape))).toEqual([]);
    expect(undescribedProperties(LayerCreateSchema)).toEqual([]);
  });
});
