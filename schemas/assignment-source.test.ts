import { describe, expect, it } from 'vitest';
import { SOURCE_BODY } from '../controller/test-support/experiment-fixtures.js';
import { describeSchemaCases, undescribedProperties } from '../controller/test-support/schema-cases.js';
import { REMOVE } from '../controller/test-support/validation-table.js';
import {
  ASSIGNMENT_SOURCE_DEFAULTS,
  AssignmentSourceCreateRequestSchema,
  AssignmentSourceCreateSchema,
  AssignmentSourcePatchSchema,
  AssignmentSourceSchema,
  AssignmentSourceUpdateSchema,
  AssignmentSourceWritableSchema,
} from './assignment-source.js';

const base: Record<string, unknown> = { ...SOURCE_BODY, scheduledReloadHour: 23, groupNameColumn: 'name', isVerified: true, isReadOnly: false };

describeSchemaCases('AssignmentSourceCreateSchema (files)', AssignmentSourceCreateSchema, base, [
  { label: 'no name', path: 'name', value: REMOVE, property: 'name' },
  { label: 'no sql', path: 'sql', value: REMOVE, property: 'sql' },
  { label: 'no idTypeMapping', path: 'idTypeMapping', value: REMOVE, property: 'idTypeMapping' },
  { label: 'empty idTypeMapping', path: 'idTypeMapping', value: [], property: 'idTypeMapping' },
  { label: 'idTypeMapping item without a unit ID', path: 'idTypeMapping.0.statsigUnitID', value: REMOVE, property: 'idTypeMapping[0].statsigUnitID' },
  { label: 'scheduledReloadHour 24', path: 'scheduledReloadHour', value: 24, property: 'scheduledReloadHour' },
  { label: 'scheduledReloadHour -1', path: 'scheduledReloadHour', value: -1, property: 'scheduledReloadHour' },
  { label: 'scheduledReloadHour 7.5', path: 'scheduledReloadHour', value: 7.5, property: 'scheduledReloadHour' },
  { label: 'dryRun (a request flag, not a field of a file)', path: 'dryRun', value: true, property: 'dryRun' },
]);

describeSchemaCases('AssignmentSourceCreateRequestSchema', AssignmentSourceCreateRequestSchema, { ...base, dryRun: true }, [
  { label: 'dryRun as text', path: 'dryRun', value: 'yes', property: 'dryRun' },
]);

const { name: _name, ...fields } = base;
describeSchemaCases('AssignmentSourceUpdateSchema', AssignmentSourceUpdateSchema, fields, [
  { label: 'no timestampColumn', path: 'timestampColumn', value: REMOVE, property: 'timestampColumn' },
  { label: 'no experimentIDColumn', path: 'experimentIDColumn', value: REMOVE, property: 'experimentIDColumn' },
]);

describeSchemaCases('AssignmentSourcePatchSchema (PATCH /experiments/assignment_source/{name})', AssignmentSourcePatchSchema, { scheduledReloadHour: null, dryRun: false }, [
  { label: 'scheduledReloadHour 23.5', path: 'scheduledReloadHour', value: 23.5, property: 'scheduledReloadHour' },
  { label: 'empty groupIDColumn', path: 'groupIDColumn', value: '', property: 'groupIDColumn' },
]);

describe('assignment source schemas', () => {
  it('the defaults cover every writable field the create does not require; all in the response; all described', () => {
    const required = ['name', 'sql', 'timestampColumn', 'experimentIDColumn', 'groupIDColumn', 'idTypeMapping'];
    expect(Object.keys(ASSIGNMENT_SOURCE_DEFAULTS).sort()).toEqual(Object.keys(AssignmentSourceWritableSchema.shape).filter((k) => !required.includes(k)).sort());
    expect(Object.keys(AssignmentSourceWritableSchema.shape).filter((k) => !(k in AssignmentSourceSchema.shape))).toEqual([]);
    expect(undescribedProperties(AssignmentSourceCreateRequestSchema)).toEqual([]);
  });
});
