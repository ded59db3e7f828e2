/**
 * Bodies and seeds shared by the experiment, layer, holdout and assignment-source tests.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { createTestConsole, type TestConsole } from './test-console.js';

export type Body = Record<string, unknown>;

export const LAYER_BODY: Body = {
  name: 'Main Layer',
  description: 'checkout experiments',
  parameters: [
    { name: 'color', type: 'string', defaultValue: 'red' },
    { name: 'discount', type: 'number', defaultValue: 0 },
  ],
};

export const SOURCE_BODY: Body = {
  name: 'warehouse',
  sql: 'select user_id, experiment, grp, ts from assignments',
  timestampColumn: 'ts',
  experimentIDColumn: 'experiment',
  groupIDColumn: 'grp',
  idTypeMapping: [{ statsigUnitID: 'userID', column: 'user_id' }],
};

export const groups = (extra: Body = {}): Body[] => [
  { id: 'g_control', name: 'Control', size: 50, parameterValues: { color: 'red' }, ...extra },
  { id: 'g_test', name: 'Test', size: 50, parameterValues: { color: 'blue' } },
];

/** Every writable field of an experiment, each with a non-default value. */
export const FULL_EXPERIMENT: Body = {
  id: 'full_experiment',
  name: 'Full experiment',
  description: 'every field',
  idType: 'userID',
  secondaryIDType: 'stableID',
  identifierMappingMode: 'firstTouchOneToMany',
  identityResolutionSource: 'identity_source',
  hypothesis: 'Blue converts better',
  links: [{ url: 'https://example.com/doc', title: 'Design doc' }],
  groups: [
    { id: 'g_control', name: 'Control', description: 'as today', foreignGroupID: 'c', size: 40, parameterValues: { color: 'red' }, disabled: false, highlighted: false },
    { id: 'g_test', name: 'Test', description: 'blue', foreignGroupID: 't', size: 60, parameterValues: { color: 'blue', discount: 5 }, disabled: false, highlighted: true },
  ],
  controlGroupID: 'g_control',
  allocation: 30,
  layerID: 'main_layer',
  targetingGateID: 'beta',
  inlineTargetingRules: [{ name: 'employees', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }], environments: ['production'], returnValue: { color: 'green' } }],
  primaryMetrics: [{ name: 'purchase', type: 'event_count', direction: 'increase', hypothesizedValue: 0.02 }],
  secondaryMetrics: [{ name: 'add_to_cart', type: 'event_count' }],
  otherMetrics: [{ name: 'latency', type: 'ratio', direction: 'decrease' }],
  primaryMetricTags: ['core'],
  secondaryMetricTags: ['guardrails'],
  tags: ['checkout'],
  targetApps: ['web'],
  duration: 21,
  targetExposures: 50000,
  sequentialTesting: true,
  bonferroniCorrection: true,
  bonferroniCorrectionPerMetric: true,
  benjaminiHochbergPerVariant: true,
  benjaminiHochbergPerMetric: true,
  benjaminiPrimaryMetricsOnly: true,
  defaultConfidenceInterval: '90',
  defaultRollupWindow: 7,
  defaultChanceToBeatThreshold: 95,
  defaultSPRTPowerParam: 0.8,
  defaultSPRTMDE: 0.05,
  sprtBaselineMode: 'manual',
  sprtMDESettings: [{ metricKey: 'purchase', groupSettings: [{ groupKey: 'g_test', mde: 0.01, mean: 0.1, stdDev: 0.02 }] }],
  bayesianPriors: [{ metric: { name: 'purchase', type: 'event_count' }, priorMean: 0, priorStdDev: 1 }],
  manualQualityScores: [
    { criteriaName: 'HYPOTHESIS_LENGTH', status: 'PASSED', criteriaDescription: 'hypothesis is written', score: 100, weight: 3 },
    { criteriaName: 'custom', status: 'WARNING', criteriaDescription: 'reviewed', score: 50, weight: 1 },
  ],
  assignmentSourceName: 'warehouse',
  assignmentSourceExperimentName: 'checkout_blue',
  assignmentSourceFilters: [{ condition: 'in', column: 'country', values: ['DE', 'FR'] }],
  isAnalysisOnly: true,
  allocationDuration: 7,
  cohortedAnalysisDuration: 14,
  fixedAnalysisDuration: 28,
  cohortedMetricsMatureAfterEnd: true,
  cohortWaitUntilEndToInclude: true,
  scheduledReloadHour: 3,
  scheduledReloadType: 'incremental',
  scheduledReloadDays: [1, 4],
  analysisEndTime: '2026-12-31',
  analyticsType: 'frequentist',
  stratifiedSampling: {
    status: 'pending',
    metric: { name: 'purchase', startDate: '2026-01-01', endDate: '2026-02-01', type: 'event_count' },
    entityPropertySource: { propertySourceName: 'users', column: 'country' },
    csv: { original: 'a,b', identifier: 'a' },
    useStratifiedSalt: true,
    useUnits: false,
    deltaReduction: 0.1,
    spreadReduction: 0.2,
  },
  isSidecar: true,
  turboMode: true,
  experimentType: 'BASE',
  subtype: 'conversion',
  externalExperimentName: 'ext_checkout',
  userBuckets: [1, 2, 3],
  enabledNonProdEnvironments: ['staging'],
  preComputedUserDimensions: [{ name: 'country', propertySource: 'users' }],
  cureCovariates: [{ name: 'past_purchases', type: 'metric' }],
  externalEvents: [{ name: 'marketing push', timestamp: 1_700_000_000_000 }],
  summarySections: [{ name: 'Result', content: 'pending' }],
  reviewSettings: { requiredReview: true, allowedReviewers: [{ email: 'lead@example.com' }] },
  owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Lead', ownerEmail: 'lead@example.com' },
  team: 'growth',
  teamID: 't_growth',
  creatorID: 'c1',
  creatorEmail: 'creator@example.com',
};

export async function ok(t: TestConsole, method: string, url: string, body?: unknown, status = 200): Promise<Body> {
  const res = await t.call(method, url, body);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json() as Body;
}

/** A layer main_layer, a gate beta and an assignment source warehouse: what FULL_EXPERIMENT names. */
export async function seedReferences(t: TestConsole): Promise<void> {
  await ok(t, 'POST', '/console/v1/layers', LAYER_BODY, 201);
  await ok(t, 'POST', '/console/v1/gates', { name: 'beta' }, 201);
  await ok(t, 'POST', '/console/v1/experiments/assignment_sources', SOURCE_BODY, 201);
}

export async function createExperiment(t: TestConsole, body: Body): Promise<Body> {
  return (await ok(t, 'POST', '/console/v1/experiments', body, 201))['data'] as Body;
}

/**
 * A fresh console for each test, on a clock the test moves (`env.time += ms`), with the entities
 * experiments refer to seeded; closed after each test.
 */
export function useExperimentConsole(start: number): { readonly c: TestConsole; time: number } {
  const env = { c: undefined as unknown as TestConsole, time: start };
  beforeEach(async () => {
    env.time = start;
    env.c = createTestConsole({ clock: () => env.time });
    await seedReferences(env.c);
  });
  afterEach(() => env.c.close());
  return env;
}
