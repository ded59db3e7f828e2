import { describe } from 'vitest';
import { createExperiment, groups, ok, seedReferences, type Body } from '../../test-support/experiment-fixtures.js';
import { describeValidationTable, REMOVE, type MutationCase } from '../../test-support/validation-table.js';
import type { TestConsole } from '../../test-support/test-console.js';

/** Fields every write of the table sends; the experiment sits in main_layer next to one using 50%. */
const common: Body = {
  name: 'Checkout',
  description: 'd',
  idType: 'userID',
  hypothesis: 'h',
  groups: groups(),
  allocation: 40,
  layerID: 'main_layer',
  targetingGateID: 'beta',
  assignmentSourceName: 'warehouse',
  primaryMetrics: [{ name: 'purchase', type: 'event_count', direction: 'increase' }],
  inlineTargetingRules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'public' }] }],
  links: [{ url: 'https://example.com' }],
  reviewSettings: { requiredReview: false, allowedReviewers: [] },
  stratifiedSampling: { status: 'pending', useUnits: true },
  bayesianPriors: [{ metric: { name: 'purchase', type: 'event_count' }, priorMean: 0, priorStdDev: 1 }],
  manualQualityScores: [{ criteriaName: 'HYPOTHESIS_LENGTH', status: 'PASSED', criteriaDescription: 'ok', score: 100, weight: 1 }],
  scheduledReloadHour: 4,
  scheduledReloadDays: [1],
  duration: 14,
  targetExposures: 1000,
};

const long = (n: number): string => 'x'.repeat(n);

const cases: MutationCase[] = [
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name', message: /3 to 100/ },
  { label: 'name of 101 characters', path: 'name', value: long(101), property: 'name', message: /3 to 100/ },
  { label: 'name with a slash', path: 'name', value: 'a/b', property: 'name', message: /letters, digits/ },
  { label: 'description of 1001 characters', path: 'description', value: long(1001), property: 'description', message: /1000/ },
  { label: 'empty idType', path: 'idType', value: '', property: 'idType' },
  { label: 'group sizes summing to 90', path: 'groups.1.size', value: 40, property: 'groups', message: /sum to 100 \(they sum to 90\)/ },
  { label: 'no groups', path: 'groups', value: [], property: 'groups', message: /at least one group/ },
  { label: 'duplicate group names', path: 'groups.1.name', value: 'Control', property: 'groups[1].name', message: /unique/ },
  { label: 'duplicate group ids', path: 'groups.1.id', value: 'g_control', property: 'groups[1].id', message: /unique/ },
  { label: 'group size 101', path: 'groups.0.size', value: 101, property: 'groups[0].size', message: /0 and 100/ },
  { label: 'group size -1', path: 'groups.0.size', value: -1, property: 'groups[0].size', message: /0 and 100/ },
  { label: 'group without a name', path: 'groups.0.name', value: REMOVE, property: 'groups[0].name', message: /required/ },
  { label: 'group parameter the layer lacks', path: 'groups.0.parameterValues.size', value: 3, property: 'groups[0].parameterValues.size', message: /not a parameter of layer main_layer/ },
  { label: 'group parameter of the wrong type', path: 'groups.0.parameterValues.color', value: 5, property: 'groups[0].parameterValues.color', message: /type string/ },
  { label: 'allocation 101', path: 'allocation', value: 101, property: 'allocation', message: /0 and 100/ },
  { label: 'allocation -1', path: 'allocation', value: -1, property: 'allocation', message: /0 and 100/ },
  { label: 'allocation beyond what the layer has left', path: 'allocation', value: 60, property: 'allocation', message: /exceeds what layer main_layer has left/ },
  { label: 'controlGroupID naming no group', path: 'controlGroupID', value: 'g_nope', property: 'controlGroupID', message: /one of the groups/ },
  { label: 'targetingGateID naming no gate', path: 'targetingGateID', value: 'nope', property: 'targetingGateID', message: /no existing gate/ },
  { label: 'layerID naming no layer', path: 'layerID', value: 'nope', property: 'layerID', message: /no existing layer/ },
  { label: 'assignmentSourceName naming no source', path: 'assignmentSourceName', value: 'nope', property: 'assignmentSourceName', message: /no existing assignment source/ },
  { label: 'idType other than the layer', path: 'idType', value: 'stableID', property: 'idType', message: /idType of layer main_layer/ },
  { label: 'duration 0', path: 'duration', value: 0, property: 'duration', message: /at least 1/ },
  { label: 'fractional targetExposures', path: 'targetExposures', value: 1.5, property: 'targetExposures', message: /integer/ },
  { label: 'scheduledReloadHour 24', path: 'scheduledReloadHour', value: 24, property: 'scheduledReloadHour', message: /0 to 23/ },
  { label: 'scheduledReloadHour -1', path: 'scheduledReloadHour', value: -1, property: 'scheduledReloadHour', message: /0 to 23/ },
  { label: 'fractional scheduledReloadHour', path: 'scheduledReloadHour', value: 2.5, property: 'scheduledReloadHour', message: /integer/ },
  { label: 'scheduledReloadDays beyond Saturday', path: 'scheduledReloadDays.0', value: 7, property: 'scheduledReloadDays[0]' },
  { label: 'defaultConfidenceInterval 85', path: 'defaultConfidenceInterval', value: '85', property: 'defaultConfidenceInterval' },
  { label: 'numeric defaultConfidenceInterval', path: 'defaultConfidenceInterval', value: 95, property: 'defaultConfidenceInterval' },
  { label: 'unknown identifierMappingMode', path: 'identifierMappingMode', value: 'loose', property: 'identifierMappingMode' },
  { label: 'link that is not a URL', path: 'links.0.url', value: 'not a url', property: 'links[0].url', message: /URL/ },
  { label: 'javascript: link (it would run in a page that shows it)', path: 'links.0.url', value: 'javascript:alert(1)', property: 'links[0].url', message: /http or https/ },
  { label: 'data: link', path: 'links.0.url', value: 'data:text/html,<script>alert(1)</script>', property: 'links[0].url', message: /http or https/ },
  { label: 'link URL of 2001 characters', path: 'links.0.url', value: `https://example.com/${'a'.repeat(1981)}`, property: 'links[0].url', message: /at most 2000/ },
  { label: 'metric direction sideways', path: 'primaryMetrics.0.direction', value: 'sideways', property: 'primaryMetrics[0].direction' },
  { label: 'metric without a type', path: 'primaryMetrics.0.type', value: REMOVE, property: 'primaryMetrics[0].type', message: /required/ },
  { label: 'inline targeting rule pass percentage 101', path: 'inlineTargetingRules.0.passPercentage', value: 101, property: 'inlineTargetingRules[0].passPercentage' },
  { label: 'review settings without requiredReview', path: 'reviewSettings.requiredReview', value: REMOVE, property: 'reviewSettings.requiredReview', message: /required/ },
  { label: 'stratified sampling useUnits as text', path: 'stratifiedSampling.useUnits', value: 'yes', property: 'stratifiedSampling.useUnits' },
  { label: 'negative prior standard deviation', path: 'bayesianPriors.0.priorStdDev', value: -1, property: 'bayesianPriors[0].priorStdDev' },
  { label: 'quality score status unknown', path: 'manualQualityScores.0.status', value: 'OK', property: 'manualQualityScores[0].status' },
  {
    label: '11 manual quality scores',
    path: 'manualQualityScores',
    value: Array.from({ length: 11 }, (_, i) => ({ criteriaName: `c${i}`, status: 'PASSED', criteriaDescription: '', score: 1, weight: 1 })),
    property: 'manualQualityScores',
    message: /at most 10/,
  },
  { label: 'server-managed status', path: 'status', value: 'active', property: 'status', message: /not a known field/ },
  { label: 'server-managed startTime', path: 'startTime', value: 1, property: 'startTime', message: /not a known field/ },
  { label: 'misspelt field', path: 'groupz', value: [], property: 'groupz', message: /did you mean 'groups'/ },
  { label: 'reserved id assignment_sources', path: 'id', value: 'assignment_sources', property: 'id', message: /reserved/, ops: ['create'] },
  { label: 'id with a space', path: 'id', value: 'a b', property: 'id', ops: ['create'] },
  { label: 'full update without groups', path: 'groups', value: REMOVE, property: 'groups', message: /required/, ops: ['update'] },
  { label: 'full update without allocation', path: 'allocation', value: REMOVE, property: 'allocation', message: /required/, ops: ['update'] },
];

async function seed(t: TestConsole): Promise<void> {
  await seedReferences(t);
  await createExperiment(t, { name: 'neighbour', layerID: 'main_layer', allocation: 50, groups: groups() });
  await createExperiment(t, { name: 'existing', layerID: 'main_layer', allocation: 10, groups: groups() });
  await ok(t, 'GET', '/console/v1/experiments/existing');
}

describe('experiment validation (mutate one field; 400 names it; nothing changes)', () => {
  describeValidationTable({
    listPath: 'experiments',
    seed,
    existingId: 'existing',
    bodies: { create: { ...common, id: 'checkout' }, update: common, patch: common },
    cases,
  });
});
