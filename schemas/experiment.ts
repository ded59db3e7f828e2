/**
 * Experiments: every field of the reference API's experiment version. Writable fields are accepted
 * by create, full update and patch (and in experiments/<id>.yaml); the lifecycle fields (status,
 * start/end/decision times, decisionReason, launchedGroupID) are set by the start, make_decision and
 * abandon actions; the rest of the response is computed. Which writable fields may still change once
 * an experiment has started or concluded is a rule of the console (controller/console/kinds/experiment-kind.ts).
 */
import { z } from 'zod';
import {
  ComputedResponseShape,
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  JsonObjectSchema,
  NullableStringSchema,
  OwnerSchema,
  PercentageSchema,
  responseShape,
  ActiveReviewShape,
  ReviewSettingsSchema,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';
import { GateRuleSchema, RuleResponseShape } from './rule.js';
import { isHttpUrl } from './http-url.js';

export const EXPERIMENT_STATUSES = ['setup', 'active', 'decision_made', 'abandoned', 'archived'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

const text = (description: string) => z.string().describe(description);
const nonEmpty = (description: string) => z.string().min(1, 'must not be empty').describe(description);
const nullableText = (description: string) => NullableStringSchema.describe(description);
const days = (description: string) => z.number().int('must be an integer').min(1, 'must be at least 1').nullable().describe(description);
const nullableNumber = (description: string) => z.number().nullable().describe(description);

export const MetricReferenceSchema = z
  .strictObject({
    name: nonEmpty('Metric name.'),
    type: nonEmpty('Metric type, e.g. event_count.'),
    direction: z.enum(['increase', 'decrease']).optional().describe('Desired direction of the metric.'),
    hypothesizedValue: z.number().optional().describe('Expected effect size.'),
  })
  .describe('A metric of the experiment.')
  .meta({ id: 'ExperimentMetric' });

export const ExperimentGroupSchema = z
  .strictObject({
    name: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters long').describe('Group name, unique within the experiment.'),
    id: z.string().min(1, 'must not be empty').optional().describe('Group id; generated when missing (kept for a group of the same name).'),
    description: z.string().max(1000, 'must be at most 1000 characters long').optional().describe('What the group gets.'),
    foreignGroupID: z.string().nullable().optional().describe('Group id in an external assignment source.'),
    size: PercentageSchema.describe('Share of the allocated units, 0 to 100; the sizes of all groups sum to 100.'),
    parameterValues: JsonObjectSchema.optional().describe('Parameter values the group serves.'),
    disabled: z.boolean().optional().describe('A disabled group no longer receives units.'),
    highlighted: z.boolean().optional().describe('Highlighted in results.'),
  })
  .describe('A group (variant) of the experiment.')
  .meta({ id: 'ExperimentGroup' });

export const ExperimentTargetingRuleSchema = GateRuleSchema.extend({
  returnValue: JsonObjectSchema.optional().describe('Parameter values served to units this rule forces.'),
})
  .describe('An inline targeting rule of the experiment.')
  .meta({ id: 'ExperimentTargetingRule' });

const LinkSchema = z.strictObject({
  // Shown as a link wherever experiments are shown: javascript: or data: would run in that page.
  url: z
    .string()
    .max(2000, 'must be at most 2000 characters long')
    .refine(isHttpUrl, 'must be an absolute http or https URL')
    .describe('The URL of the link: an absolute http or https URL.'),
  title: z.string().optional().describe('Title of the link.'),
});

const ExternalEventSchema = z.strictObject({ name: nonEmpty('Event name.'), timestamp: z.number().describe('Epoch milliseconds.') });

const MetricKeySchema = z.strictObject({ name: nonEmpty('Metric name.'), type: nonEmpty('Metric type.') });

const BayesianPriorSchema = z.strictObject({
  metric: MetricKeySchema.describe('Metric the prior is for.'),
  priorMean: z.number().describe('Mean of the prior.'),
  priorStdDev: z.number().min(0, 'must not be negative').describe('Standard deviation of the prior.'),
});

const ManualQualityScoreSchema = z.strictObject({
  criteriaName: nonEmpty('Criterion: HYPOTHESIS_LENGTH, BALANCED_EXPOSURE, ... or a custom name.'),
  status: z.enum(['PASSED', 'FAILED', 'WARNING']).describe('PASSED, FAILED or WARNING.'),
  criteriaDescription: text('What the criterion checks.'),
  score: z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').describe('Score, 0 to 100.'),
  weight: z.number().min(0, 'must not be negative').describe('Weight of the score; weights are normalised.'),
});

const AssignmentSourceFilterSchema = z.strictObject({
  condition: nonEmpty('Condition: in, not_in, =, >, <, is_null, ...'),
  column: nonEmpty('Column to filter on.'),
  values: z.array(z.string()).describe('Values to match.'),
});

const SprtMdeSettingSchema = z.strictObject({
  metricKey: nonEmpty('Metric key.'),
  groupSettings: z
    .array(
      z.strictObject({
        groupKey: nonEmpty('Group key.'),
        mde: z.number().describe('Minimum detectable effect.'),
        mean: z.number().describe('Mean.'),
        stdDev: z.number().describe('Standard deviation.'),
      }),
    )
    .describe('Settings per group.'),
});

const NamedSourceSchema = z.strictObject({ name: nonEmpty('Dimension name.'), propertySource: nonEmpty('Entity property source.') });
const CovariateSchema = z.strictObject({ name: nonEmpty('Covariate name.'), type: nonEmpty('Covariate type.') });
const SummarySectionSchema = z.strictObject({ name: nonEmpty('Section title.'), content: z.string().nullable().describe('Section text.') });

export const StratifiedSamplingSchema = z
  .strictObject({
    status: z.string().optional().describe('pending, success or error.'),
    metric: z
      .strictObject({ name: nonEmpty('Metric name.'), startDate: text('Start date.'), endDate: text('End date.'), type: z.string().optional().describe('Metric type.') })
      .optional()
      .describe('Metric to stratify on.'),
    entityPropertySource: z
      .strictObject({ propertySourceName: nonEmpty('Entity property source.'), column: nonEmpty('Column.') })
      .optional()
      .describe('Entity property to stratify on.'),
    csv: z.strictObject({ original: text('Uploaded CSV.'), identifier: text('Identifier column.') }).optional().describe('CSV to stratify on.'),
    useStratifiedSalt: z.boolean().optional().describe('Use the stratified salt.'),
    useUnits: z.boolean().optional().describe('Stratify on units.'),
    deltaReduction: z.number().optional().describe('Delta reduction achieved.'),
    spreadReduction: z.number().optional().describe('Spread reduction achieved.'),
  })
  .nullable()
  .describe('Stratified sampling settings, or null.')
  .meta({ id: 'StratifiedSampling' });

/** Most entries of an experiment's `overrides`, and most ids one `userIDOverrides` entry holds (the reference's limits). */
export const MAX_EXPERIMENT_OVERRIDES = 1000;

const environmentOfOverride = z.string().min(1, 'must not be empty').nullable().optional().describe('Environment the override applies in; left out (or null): every environment.');

export const ExperimentOverrideSchema = z
  .strictObject({
    type: z.enum(['gate', 'segment']).describe('gate or segment: what the units must pass to be forced into the group.'),
    id: nonEmpty('Id of the gate or segment; must exist.'),
    groupID: nonEmpty('The group (its id or name) units passing the gate or segment are forced into.'),
    environment: environmentOfOverride,
  })
  .describe('Units passing a gate or in a segment are forced into a group.')
  .meta({ id: 'ExperimentOverride' });

export const ExperimentUserIDOverrideSchema = z
  .strictObject({
    groupID: nonEmpty('The group (its id or name) the ids are forced into.'),
    ids: z
      .array(z.string().min(1, 'must not be empty'))
      .max(MAX_EXPERIMENT_OVERRIDES, `must hold at most ${MAX_EXPERIMENT_OVERRIDES} ids`)
      .describe('Unit ids forced into the group.'),
    environment: environmentOfOverride,
    unitType: z.string().min(1, 'must not be empty').nullable().optional().describe("Unit ID type of the ids; left out (or null): the experiment's idType."),
  })
  .describe('Unit ids forced into a group.')
  .meta({ id: 'ExperimentUserIDOverride' });

const overrideFields = {
  overrides: z
    .array(ExperimentOverrideSchema)
    .max(MAX_EXPERIMENT_OVERRIDES, `must have at most ${MAX_EXPERIMENT_OVERRIDES} items`)
    .describe('Gates and segments whose units are forced into a group; one entry per gate or segment and environment.'),
  userIDOverrides: z.array(ExperimentUserIDOverrideSchema).describe('Unit ids forced into a group; an id is in at most one group per environment and unit type.'),
};

/** Data of GET and body of POST /experiments/{id}/overrides (the reference's ExperimentOverridesDto). */
export const ExperimentOverridesSchema = z.strictObject(overrideFields).meta({ id: 'ExperimentOverrides', description: "An experiment's overrides." });

/** Body of PATCH and DELETE /experiments/{id}/overrides: what to add, or what to remove; lists left out stay as they are. */
export const ExperimentOverridesChangeSchema = ExperimentOverridesSchema.partial().meta({
  id: 'ExperimentOverridesChange',
  description: 'PATCH adds the entries (an entry for the same gate or segment and environment is replaced; ids join the entry of the same group, environment and unit type); DELETE removes them.',
});

/** Writable fields of an experiment. */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  idType: nonEmpty('Unit ID type the experiment randomises on; fixed once started.'),
  secondaryIDType: nullableText('Secondary ID type (warehouse-native ID resolution); fixed once started.'),
  identifierMappingMode: z
    .enum(['strictOneToOne', 'firstTouchOneToMany', 'lastTouchOneToMany'])
    .nullable()
    .describe('Identifier mapping mode for ID resolution.'),
  identityResolutionSource: nullableText('Entity property source for ID resolution.'),
  hypothesis: text('Statement the experiment tests.'),
  links: z.array(LinkSchema).describe('Links to documentation or resources.'),
  groups: z.array(ExperimentGroupSchema).describe('Groups; names unique, sizes sum to 100; fixed (but for description, disabled, highlighted) once started.'),
  controlGroupID: nullableText('Id of the control group; must be the id of one of the groups.'),
  allocation: PercentageSchema.describe('Percent of the layer (or of all units) allocated to the experiment, 0 to 100.'),
  layerID: nullableText('Layer the experiment belongs to; must exist and share the idType; fixed once started.'),
  targetingGateID: nullableText('Restricts the experiment to units passing this gate; must exist.'),
  inlineTargetingRules: z.array(ExperimentTargetingRuleSchema).describe('Inline targeting rules, evaluated before allocation.'),
  primaryMetrics: z.array(MetricReferenceSchema).describe('Metrics that decide the hypothesis.'),
  secondaryMetrics: z.array(MetricReferenceSchema).describe('Metrics to monitor.'),
  otherMetrics: z.array(MetricReferenceSchema).describe('Metrics to learn from; no corrections applied.'),
  primaryMetricTags: TagsSchema.describe('Metric tags whose metrics are primary.'),
  secondaryMetricTags: TagsSchema.describe('Metric tags whose metrics are secondary.'),
  tags: TagsSchema,
  targetApps: TargetAppsSchema,
  duration: days('Planned duration in days.'),
  targetExposures: z.number().int('must be an integer').min(1, 'must be at least 1').nullable().describe('Target exposures.'),
  sequentialTesting: z.boolean().describe('Apply sequential testing.'),
  bonferroniCorrection: z.boolean().describe('Bonferroni correction per variant.'),
  bonferroniCorrectionPerMetric: z.boolean().describe('Bonferroni correction per metric.'),
  benjaminiHochbergPerVariant: z.boolean().describe('Benjamini-Hochberg per variant.'),
  benjaminiHochbergPerMetric: z.boolean().describe('Benjamini-Hochberg per metric.'),
  benjaminiPrimaryMetricsOnly: z.boolean().describe('Benjamini-Hochberg for primary metrics only.'),
  defaultConfidenceInterval: z.enum(['80', '90', '95', '98', '99']).describe('Default confidence interval, as a string: 80, 90, 95, 98 or 99.'),
  defaultRollupWindow: nullableNumber('Default rollup window in days.'),
  defaultChanceToBeatThreshold: nullableNumber('Default chance-to-beat threshold (Bayesian), percent.'),
  defaultSPRTPowerParam: nullableNumber('SPRT power parameter.'),
  defaultSPRTMDE: nullableNumber('SPRT minimum detectable effect.'),
  sprtBaselineMode: nullableText('SPRT baseline mode, e.g. manual.'),
  sprtMDESettings: z.array(SprtMdeSettingSchema).describe('Per-metric SPRT settings.'),
  bayesianPriors: z.array(BayesianPriorSchema).describe('Bayesian priors per metric.'),
  manualQualityScores: z.array(ManualQualityScoreSchema).max(10, 'must have at most 10 items').describe('Up to 10 manually set quality scores.'),
  assignmentSourceName: nullableText('Assignment source the units come from; must exist; fixed once started.'),
  assignmentSourceExperimentName: nullableText('Experiment name in the assignment source; fixed once started.'),
  assignmentSourceFilters: z.array(AssignmentSourceFilterSchema).describe('Filters on the assignment source.'),
  isAnalysisOnly: z.boolean().describe('Analysis-only (warehouse native) experiment.'),
  allocationDuration: days('Allocation duration in days (warehouse native).'),
  cohortedAnalysisDuration: days('Cohorted analysis duration in days.'),
  fixedAnalysisDuration: days('Fixed analysis duration in days.'),
  cohortedMetricsMatureAfterEnd: z.boolean().describe('Cohorted metrics mature after the end.'),
  cohortWaitUntilEndToInclude: z.boolean().describe('Cohorts wait until the end to be included.'),
  scheduledReloadHour: z
    .number()
    .int('must be an integer')
    .min(0, 'must be an integer from 0 to 23')
    .max(23, 'must be an integer from 0 to 23')
    .nullable()
    .describe('UTC hour (0 to 23) of scheduled pulse loads, or null.'),
  scheduledReloadType: z.enum(['full', 'incremental']).nullable().describe('full or incremental scheduled reloads.'),
  scheduledReloadDays: z
    .array(z.number().int('must be an integer').min(0, 'must be from 0 (Sunday) to 6').max(6, 'must be from 0 (Sunday) to 6'))
    .describe('Weekdays of scheduled reloads, 0 (Sunday) to 6.'),
  analysisEndTime: nullableText('End of analysis (analysis-only experiments), e.g. 2024-10-30.'),
  analyticsType: nullableText('Analytics type.'),
  stratifiedSampling: StratifiedSamplingSchema,
  isSidecar: z.boolean().describe('Sidecar experiment.'),
  turboMode: z.boolean().describe('Turbo mode.'),
  experimentType: nonEmpty('Experiment type, e.g. BASE.'),
  subtype: z.enum(['conversion', 'reactivation', 'retention']).nullable().describe('conversion, reactivation or retention.'),
  externalExperimentName: nullableText('Name in an external system.'),
  userBuckets: z.array(z.number().int('must be an integer').min(0, 'must not be negative')).describe('Layer buckets reserved for the experiment; fixed once started.'),
  enabledNonProdEnvironments: z.array(z.string().min(1, 'must not be empty')).describe('Non-production environments the experiment runs in.'),
  preComputedUserDimensions: z.array(NamedSourceSchema).describe('Pre-computed user dimensions.'),
  cureCovariates: z.array(CovariateSchema).describe('CURE covariates.'),
  externalEvents: z.array(ExternalEventSchema).describe('External events marked on results.'),
  summarySections: z.array(SummarySectionSchema).describe('Summary sections.'),
  reviewSettings: ReviewSettingsSchema,
  ...overrideFields,
  owner: OwnerSchema.nullable().describe('Owner of the entity; may be absent.'),
  ...TeamShape,
  ...CreatorShape,
};

export const ExperimentWritableSchema = z.strictObject(fields);
export type ExperimentWritable = z.infer<typeof ExperimentWritableSchema>;

/** Values an experiment takes for fields a create or full update leaves out (Control/Test 50/50). */
export const EXPERIMENT_DEFAULTS: Omit<ExperimentWritable, 'name'> = {
  description: '',
  idType: 'userID',
  secondaryIDType: null,
  identifierMappingMode: null,
  identityResolutionSource: null,
  hypothesis: '',
  links: [],
  groups: [
    { name: 'Control', size: 50, parameterValues: {} },
    { name: 'Test', size: 50, parameterValues: {} },
  ],
  controlGroupID: null,
  allocation: 100,
  layerID: null,
  targetingGateID: null,
  inlineTargetingRules: [],
  primaryMetrics: [],
  secondaryMetrics: [],
  otherMetrics: [],
  primaryMetricTags: [],
  secondaryMetricTags: [],
  tags: [],
  targetApps: [],
  duration: 14,
  targetExposures: null,
  sequentialTesting: false,
  bonferroniCorrection: false,
  bonferroniCorrectionPerMetric: false,
  benjaminiHochbergPerVariant: false,
  benjaminiHochbergPerMetric: false,
  benjaminiPrimaryMetricsOnly: false,
  defaultConfidenceInterval: '95',
  defaultRollupWindow: null,
  defaultChanceToBeatThreshold: null,
  defaultSPRTPowerParam: null,
  defaultSPRTMDE: null,
  sprtBaselineMode: null,
  sprtMDESettings: [],
  bayesianPriors: [],
  manualQualityScores: [],
  assignmentSourceName: null,
  assignmentSourceExperimentName: null,
  assignmentSourceFilters: [],
  isAnalysisOnly: false,
  allocationDuration: null,
  cohortedAnalysisDuration: null,
  fixedAnalysisDuration: null,
  cohortedMetricsMatureAfterEnd: false,
  cohortWaitUntilEndToInclude: false,
  scheduledReloadHour: null,
  scheduledReloadType: null,
  scheduledReloadDays: [],
  analysisEndTime: null,
  analyticsType: null,
  stratifiedSampling: null,
  isSidecar: false,
  turboMode: false,
  experimentType: 'BASE',
  subtype: null,
  externalExperimentName: null,
  userBuckets: [],
  enabledNonProdEnvironments: [],
  preComputedUserDimensions: [],
  cureCovariates: [],
  externalEvents: [],
  summarySections: [],
  reviewSettings: { requiredReview: false, allowedReviewers: [] },
  overrides: [],
  userIDOverrides: [],
  owner: null,
  ...TEAM_DEFAULTS,
  ...CREATOR_DEFAULTS,
};

export const ExperimentCreateSchema = z
  .strictObject({ ...fields, id: EntityIdSchema.describe('Experiment id; derived from name when missing.') })
  .partial()
  .required({ name: true })
  .meta({ id: 'ExperimentCreate', description: 'Body of POST /experiments. The experiment starts in status setup.' });

export const ExperimentUpdateSchema = ExperimentWritableSchema.partial()
  .required({ description: true, idType: true, hypothesis: true, groups: true, allocation: true })
  .meta({
    id: 'ExperimentFullUpdate',
    description: 'Body of POST /experiments/{id}: fields left out take their defaults. Once started, idType, secondaryIDType, layerID, userBuckets, controlGroupID, the assignment source and the groups (but for description, disabled, highlighted) are fixed; once concluded, also allocation and targeting.',
  });

export const ExperimentPatchSchema = ExperimentWritableSchema.partial().meta({
  id: 'ExperimentPartialUpdate',
  description: 'Body of PATCH /experiments/{id}: only the supplied fields change, with the same restrictions on started and concluded experiments as a full update.',
});

export const ExperimentStartSchema = z
  .strictObject({
    analysisEndTime: z.string().min(1, 'must not be empty').optional().describe('End of analysis for analysis-only experiments, e.g. 2024-10-30.'),
  })
  .meta({ id: 'ExperimentStart', description: 'Optional body of PUT /experiments/{id}/start: setup → active.' });

export const ExperimentDecisionSchema = z
  .strictObject({
    id: z.string().min(1, 'must not be empty').optional().describe('Id of the group to ship (this or name).'),
    name: z.string().min(1, 'must not be empty').optional().describe('Name of the group to ship (this or id).'),
    decisionReason: z.string().max(1000, 'must be at most 1000 characters long').optional().describe('Why the decision was made.'),
    removeTargeting: z.boolean().optional().describe('Ship to everyone: drop the targeting gate.'),
  })
  .meta({ id: 'ExperimentDecision', description: 'Body of PUT /experiments/{id}/make_decision: ships one group (active → decision_made).' });

export const ExperimentAbandonSchema = z
  .strictObject({
    decisionReason: z.string().max(1000, 'must be at most 1000 characters long').optional().describe('Why the experiment was abandoned.'),
  })
  .meta({ id: 'ExperimentAbandon', description: 'Optional body of PUT /experiments/{id}/abandon (setup or active → abandoned).' });

const HealthCheckSchema = z
  .object({
    name: z.string().describe('Check name.'),
    description: z.string().describe('What the check verifies.'),
    status: z.string().describe('PASSED, FAILED, WAITING or WARNING.'),
    type: z.string().describe('Check type, e.g. has_checks.'),
    metadata: z.record(z.string(), z.unknown()).describe('Check details (ids, rates, metrics, groups).'),
  })
  .describe('A health check result.');

const QualityScoreSchema = z
  .strictObject({
    score: z.number().describe('Weighted mean of the scores.'),
    breakdown: z.array(
      z.strictObject({
        criterion: z.string(),
        status: z.string(),
        passingDescription: z.string(),
        score: z.number(),
        weight: z.number().describe('Weight normalised to sum to 100.'),
      }),
    ),
  })
  .describe('Quality score computed from manualQualityScores.');

export const ExperimentSchema = z
  .strictObject({
    id: EntityIdSchema,
    // The spec types no experiment field "| null": a field that is not set is left out.
    ...responseShape(fields),
    groups: z.array(
      ExperimentGroupSchema.required({ id: true }).extend({
        foreignGroupID: z.string().optional().describe('Group id in an external assignment source.'),
        parameterValues: JsonObjectSchema.describe('Parameter values the group serves ({} when none).'),
      }),
    ),
    inlineTargetingRules: z.array(ExperimentTargetingRuleSchema.extend(RuleResponseShape)),
    status: z
      .enum(EXPERIMENT_STATUSES)
      .describe('setup → active → decision_made | abandoned, and archived from any but active (unarchive returns to the status before); changed only by the start, make_decision, abandon, reset, archive and unarchive actions.'),
    startTime: z.number().optional().describe('When the experiment started (epoch ms); absent before the start.'),
    endTime: z.number().optional().describe('When it concluded (epoch ms); absent while it runs.'),
    decisionTime: z.number().optional().describe('When the decision was made (epoch ms); absent before one.'),
    decisionReason: z.string().optional().describe('Reason given with make_decision or abandon.'),
    launchedGroupID: z.string().optional().describe('Id of the shipped group; absent unless one was shipped.'),
    healthChecks: z.array(HealthCheckSchema).describe('Health check results; the embedded console has no exposure pipeline, so none arrive.'),
    healthCheckStatus: z.string().describe('WAITING while no health check results exist, else the worst status among them.'),
    isStale: z.boolean().describe('Active for longer than its planned duration.'),
    qualityScore: QualityScoreSchema.optional().describe('Quality score computed from manualQualityScores; absent when there are none.'),
    ...ActiveReviewShape,
    inlineTargetingRulesJSON: z.string().describe('inlineTargetingRules serialised as JSON.'),
    ...ComputedResponseShape,
  })
  .meta({ id: 'Experiment', description: 'An experiment (and an item of its version list) as the console returns it.' });

export type Experiment = z.infer<typeof ExperimentSchema>;
