import { describe, expect, it } from 'vitest';
import { FULL_EXPERIMENT } from '../controller/test-support/experiment-fixtures.js';
import { describeSchemaCases, undescribedProperties } from '../controller/test-support/schema-cases.js';
import { REMOVE } from '../controller/test-support/validation-table.js';
import { EXPERIMENT_DEFAULTS, ExperimentCreateSchema, ExperimentDecisionSchema, ExperimentOverridesSchema, ExperimentPatchSchema, ExperimentSchema, ExperimentUpdateSchema, ExperimentWritableSchema } from './experiment.js';

const { id: _id, ...writable } = FULL_EXPERIMENT;

describeSchemaCases('ExperimentCreateSchema', ExperimentCreateSchema, FULL_EXPERIMENT, [
  { label: 'no name', path: 'name', value: REMOVE, property: 'name' },
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name' },
  { label: 'id with a space', path: 'id', value: 'a b', property: 'id' },
  { label: 'allocation 100.5', path: 'allocation', value: 100.5, property: 'allocation' },
  { label: 'group size 101', path: 'groups.1.size', value: 101, property: 'groups[1].size' },
  { label: 'group parameterValues as a list', path: 'groups.0.parameterValues', value: [], property: 'groups[0].parameterValues' },
  { label: 'group with an unknown key', path: 'groups.0.weight', value: 1, property: 'groups[0].weight' },
  { label: 'metric direction unknown', path: 'primaryMetrics.0.direction', value: 'up', property: 'primaryMetrics[0].direction' },
  { label: 'scheduledReloadHour 24', path: 'scheduledReloadHour', value: 24, property: 'scheduledReloadHour' },
  { label: 'scheduledReloadHour 0.5', path: 'scheduledReloadHour', value: 0.5, property: 'scheduledReloadHour' },
  { label: 'duration 0', path: 'duration', value: 0, property: 'duration' },
  { label: 'defaultConfidenceInterval 85', path: 'defaultConfidenceInterval', value: '85', property: 'defaultConfidenceInterval' },
  { label: 'subtype unknown', path: 'subtype', value: 'growth', property: 'subtype' },
  { label: 'link URL not a URL', path: 'links.0.url', value: 'nope', property: 'links[0].url', zodOnly: true },
  { label: 'link URL javascript:', path: 'links.0.url', value: 'javascript:alert(1)', property: 'links[0].url', zodOnly: true },
  { label: '11 quality scores', path: 'manualQualityScores', value: Array.from({ length: 11 }, () => (FULL_EXPERIMENT['manualQualityScores'] as unknown[])[0]), property: 'manualQualityScores' },
  { label: 'stratified sampling with an unknown key', path: 'stratifiedSampling.extra', value: 1, property: 'stratifiedSampling.extra' },
  { label: 'review settings without requiredReview', path: 'reviewSettings.requiredReview', value: REMOVE, property: 'reviewSettings.requiredReview' },
  { label: 'server-managed status', path: 'status', value: 'active', property: 'status' },
  { label: 'server-managed holdoutIDs', path: 'holdoutIDs', value: [], property: 'holdoutIDs' },
  { label: 'userBuckets negative', path: 'userBuckets.0', value: -1, property: 'userBuckets[0]' },
  { label: 'scheduledReloadDays 7', path: 'scheduledReloadDays.0', value: 7, property: 'scheduledReloadDays[0]' },
]);

describeSchemaCases('ExperimentUpdateSchema', ExperimentUpdateSchema, writable, [
  { label: 'no groups', path: 'groups', value: REMOVE, property: 'groups' },
  { label: 'no hypothesis', path: 'hypothesis', value: REMOVE, property: 'hypothesis' },
  { label: 'an id', path: 'id', value: 'x_y', property: 'id' },
]);

describeSchemaCases('ExperimentPatchSchema', ExperimentPatchSchema, { description: 'only this' }, [
  { label: 'allocation -1', path: 'allocation', value: -1, property: 'allocation' },
  { label: 'status', path: 'status', value: 'setup', property: 'status' },
]);

const OVERRIDES = {
  overrides: [{ type: 'gate', id: 'beta', groupID: 'Test', environment: null }],
  userIDOverrides: [{ groupID: 'Control', ids: ['u1'], environment: 'staging', unitType: null }],
};

describeSchemaCases('ExperimentPatchSchema: overrides', ExperimentPatchSchema, OVERRIDES, [
  { label: 'override type dynamic_config', path: 'overrides.0.type', value: 'dynamic_config', property: 'overrides[0].type' },
  { label: 'override without a group', path: 'overrides.0.groupID', value: REMOVE, property: 'overrides[0].groupID' },
  { label: 'override with an unknown key', path: 'overrides.0.name', value: 'beta', property: 'overrides[0].name' },
  { label: '1001 overrides', path: 'overrides', value: Array.from({ length: 1001 }, (_, i) => ({ type: 'gate', id: `g${i}`, groupID: 'Test' })), property: 'overrides' },
  { label: 'user id override with an empty id', path: 'userIDOverrides.0.ids.0', value: '', property: 'userIDOverrides[0].ids[0]' },
  { label: 'user id override of 1001 ids', path: 'userIDOverrides.0.ids', value: Array.from({ length: 1001 }, (_, i) => `u${i}`), property: 'userIDOverrides[0].ids' },
]);

describeSchemaCases('ExperimentOverridesSchema (POST .../overrides)', ExperimentOverridesSchema, OVERRIDES, [
  { label: 'no userIDOverrides', path: 'userIDOverrides', value: REMOVE, property: 'userIDOverrides' },
  { label: 'no overrides', path: 'overrides', value: REMOVE, property: 'overrides' },
]);

describeSchemaCases('ExperimentDecisionSchema', ExperimentDecisionSchema, { id: 'g_test', decisionReason: 'r', removeTargeting: false }, [
  { label: 'id as a number', path: 'id', value: 1, property: 'id' },
  { label: 'reason of 1001 characters', path: 'decisionReason', value: 'x'.repeat(1001), property: 'decisionReason' },
]);

describe('experiment schemas', () => {
  it('the defaults cover every writable field but name, and are themselves valid', () => {
    expect(Object.keys(EXPERIMENT_DEFAULTS).sort()).toEqual(Object.keys(ExperimentWritableSchema.shape).filter((k) => k !== 'name').sort());
    expect(ExperimentWritableSchema.safeParse({ ...EXPERIMENT_DEFAULTS, name: 'x_y_z' }).error).toBeUndefined();
  });

  it('every writable field is in the response; every property is described', () => {
    const response = Object.keys(ExperimentSchema.shape);
    expect(Object.keys(ExperimentWritableSchema.shape).filter((k) => !response.includes(k))).toEqual([]);
    expect(undescribedProperties(ExperimentCreateSchema)).toEqual([]);
  });
});
