import { describe, expect, it } from 'vitest';
import { describeSchemaCases, undescribedProperties } from '../controller/test-support/schema-cases.js';
import { REMOVE } from '../controller/test-support/validation-table.js';
import { HOLDOUT_DEFAULTS, HoldoutCreateSchema, HoldoutPatchSchema, HoldoutSchema, HoldoutUpdateSchema, HoldoutWritableSchema } from './holdout.js';

const full = {
  isEnabled: true,
  description: 'd',
  passPercentage: 10,
  gateIDs: ['g'],
  experimentIDs: ['e'],
  layerIDs: ['l'],
  isGlobal: false,
  targetingGateID: null,
  monitoringMetrics: [{ name: 'm', type: 'event_count' }],
};

describeSchemaCases('HoldoutCreateSchema', HoldoutCreateSchema, { name: 'Holdout', id: 'holdout', ...full }, [
  { label: 'no name', path: 'name', value: REMOVE, property: 'name' },
  { label: 'passPercentage 10.5', path: 'passPercentage', value: 10.5, property: 'passPercentage' },
  { label: 'passPercentage -1', path: 'passPercentage', value: -1, property: 'passPercentage' },
  { label: 'gateIDs with an empty id', path: 'gateIDs.0', value: '', property: 'gateIDs[0]' },
  { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description' },
]);

describeSchemaCases('HoldoutUpdateSchema', HoldoutUpdateSchema, full, [
  { label: 'no passPercentage', path: 'passPercentage', value: REMOVE, property: 'passPercentage' },
  { label: 'no gateIDs', path: 'gateIDs', value: REMOVE, property: 'gateIDs' },
  { label: 'no isGlobal', path: 'isGlobal', value: REMOVE, property: 'isGlobal' },
]);

describeSchemaCases('HoldoutPatchSchema (PATCH /holdouts/{id})', HoldoutPatchSchema, { passPercentage: 0 }, [
  { label: 'passPercentage 11', path: 'passPercentage', value: 11, property: 'passPercentage' },
  { label: 'targetingGateID as a number', path: 'targetingGateID', value: 1, property: 'targetingGateID' },
  { label: 'monitoring metric without a name', path: 'monitoringMetrics', value: [{ type: 'x' }], property: 'monitoringMetrics[0].name' },
]);

describe('holdout schemas', () => {
  it('the defaults cover every writable field but name; every writable field is in the response; all described', () => {
    expect(Object.keys(HOLDOUT_DEFAULTS).sort()).toEqual(Object.keys(HoldoutWritableSchema.shape).filter((k) => k !== 'name').sort());
    expect(HoldoutWritableSchema.safeParse({ ...HOLDOUT_DEFAULTS, name: 'abc' }).error).toBeUndefined();
    expect(Object.keys(HoldoutWritableSchema.shape).filter((k) => !(k in HoldoutSchema.shape))).toEqual([]);
    expect(undescribedProperties(HoldoutCreateSchema)).toEqual([]);
  });
});
