/**
 * The response fields the reference API lists for its own endpoints (docs/design.md, "Entities and
 * endpoints"), with the type it gives each, and a checker: every listed field present with that type,
 * `null` only where the reference types the field nullable.
 */

/** A type as the reference API writes it. */
export type SpecType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'string[]' | 'integer[]' | 'object[]' | 'string|null' | 'number|null' | `enum:${string}`;

export type SpecTable = Readonly<Record<string, SpecType>>;

const is: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'string[]': (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  'integer[]': (v) => Array.isArray(v) && v.every((x) => Number.isInteger(x)),
  'object[]': (v) => Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x)),
};

function matches(type: SpecType, value: unknown): boolean {
  if (type.startsWith('enum:')) return type.slice(5).split(',').includes(value as string);
  if (type.endsWith('|null')) return value === null || matches(type.slice(0, -5) as SpecType, value);
  return is[type]?.(value) ?? false;
}

/**
 * Where `value` departs from the table: a missing field (unless named in `mayBeAbsent`), a value of
 * another type, or a null the reference has no room for. `where` prefixes each problem.
 */
export function specProblems(value: unknown, table: SpecTable, where: string, mayBeAbsent: readonly string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return [`${where} is ${JSON.stringify(value)}, not an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, type] of Object.entries(table)) {
    if (!(field in record)) {
      if (!mayBeAbsent.includes(field)) problems.push(`${where}.${field} missing`);
    } else if (!matches(type, record[field])) problems.push(`${where}.${field} = ${JSON.stringify(record[field])}, spec type ${type}`);
  }
  return problems;
}

/** Every successful response: `{ message: string, data }`; lists add pagination. */
export const ENVELOPE: SpecTable = { message: 'string' };

/**
 * Pagination object. nextPage and previousPage are null where there is no such page (docs/design.md,
 * "HTTP conventions"), though the reference API's field table writes string.
 */
export const PAGINATION: SpecTable = { itemsPerPage: 'number', pageNumber: 'number', nextPage: 'string|null', previousPage: 'string|null', totalItems: 'number', all: 'string' };

export const OWNER: SpecTable = { ownerID: 'string', ownerType: 'string', ownerName: 'string', ownerEmail: 'string' };

export const CONDITION: SpecTable = { type: 'string', operator: 'string', field: 'string', customID: 'string' };

export const ROLLOUT: SpecTable = { passPercent: 'number', time: 'number' };

/** The reference API does not list a gate rule's fields; it carries what every rule does. */
export const RULE: SpecTable = {
  name: 'string',
  conditions: 'object[]',
  passPercentage: 'number',
  environments: 'string[]',
  id: 'string',
  baseID: 'string',
  completedAutomatedRollouts: 'object[]',
  pendingAutomatedRollouts: 'object[]',
};

/** Rule (dynamic config), response form. */
export const DYNAMIC_CONFIG_RULE: SpecTable = { ...RULE, returnValue: 'object', returnValueJson5: 'string', variants: 'object[]' };

export const VARIANT: SpecTable = { name: 'string', passPercentage: 'number', id: 'string', returnValue: 'object', returnValueJson5: 'string' };

/** Endpoint 4's response data (endpoints 2 and 3 list a subset of it). */
export const DYNAMIC_CONFIG: SpecTable = {
  id: 'string',
  permalink: 'string',
  name: 'string',
  description: 'string',
  idType: 'string',
  lastModifierID: 'string',
  lastModifiedTime: 'number',
  lastModifierName: 'string',
  lastModifierEmail: 'string|null',
  creatorID: 'string|null',
  createdTime: 'number',
  creatorName: 'string',
  creatorEmail: 'string|null',
  targetApps: 'string[]',
  holdoutIDs: 'string[]',
  tags: 'string[]',
  isEnabled: 'boolean',
  rules: 'object[]',
  defaultValue: 'object',
  // The resource table's other fields.
  defaultValueJson5: 'string',
  owner: 'object',
  schema: 'string|null',
  schemaJson5: 'string|null',
  team: 'string|null',
  teamID: 'string|null',
  releasePipelineID: 'string|null',
};

/** The gate object (endpoints 5 and 6). */
export const GATE: SpecTable = {
  id: 'string',
  name: 'string',
  description: 'string',
  isEnabled: 'boolean',
  rules: 'object[]',
  tags: 'string[]',
  type: 'enum:PERMANENT,TEMPORARY',
  typeReason: 'string',
  status: 'string',
  idType: 'string',
  targetApps: 'string[]',
  creatorID: 'string|null',
  creatorEmail: 'string|null',
  team: 'string|null',
  teamID: 'string|null',
  measureMetricLifts: 'boolean',
  store0100Exposures: 'boolean',
  monitoringMetrics: 'object[]',
  reviewSettings: 'object',
  releasePipelineID: 'string|null',
  owner: 'object',
  checksPerHour: 'number',
  version: 'integer',
  holdoutIDs: 'string[]',
  permalink: 'string',
  creatorName: 'string',
  createdTime: 'number',
  lastModifierID: 'string',
  lastModifierName: 'string',
  lastModifierEmail: 'string',
  lastModifiedTime: 'number',
};

/** AI config (endpoint 7): the response data fields, typed by the resource table. */
export const PROMPT: SpecTable = {
  id: 'string',
  description: 'string',
  lastModifierID: 'string',
  lastModifiedTime: 'number',
  lastModifierEmail: 'string',
  lastModifierName: 'string',
  createdTime: 'number',
  creatorName: 'string',
  name: 'string',
  idType: 'string',
  creatorID: 'string|null',
  creatorEmail: 'string|null',
  tags: 'string[]',
  targetApps: 'string[]',
  holdoutIDs: 'string[]',
  team: 'string',
  teamID: 'string',
  version: 'integer',
  displayName: 'string',
  owner: 'object',
};

/** Assignment source (endpoint 8). */
export const ASSIGNMENT_SOURCE: SpecTable = {
  name: 'string',
  description: 'string',
  tags: 'string[]',
  sql: 'string',
  timestampColumn: 'string',
  groupIDColumn: 'string',
  experimentIDColumn: 'string',
  idTypeMapping: 'object[]',
  // The resource table's other fields.
  isVerified: 'boolean',
  groupNameColumn: 'string',
  isReadOnly: 'boolean',
  owner: 'object',
  team: 'string|null',
  teamID: 'string|null',
  scheduledReloadHour: 'number|null',
};

export const ID_TYPE_MAPPING: SpecTable = { statsigUnitID: 'string', column: 'string' };

/** Holdout (endpoint 9). team's type is not given; it is typed like every other kind's team. */
export const HOLDOUT: SpecTable = {
  id: 'string',
  name: 'string',
  description: 'string',
  idType: 'string',
  lastModifierID: 'string',
  lastModifiedTime: 'number',
  lastModifierName: 'string',
  lastModifierEmail: 'string',
  creatorID: 'string|null',
  createdTime: 'number',
  creatorName: 'string',
  creatorEmail: 'string|null',
  targetApps: 'string[]',
  tags: 'string[]',
  team: 'string|null',
  isEnabled: 'boolean',
  isGlobal: 'boolean',
  passPercentage: 'number',
  gateIDs: 'string[]',
  experimentIDs: 'string[]',
  layerIDs: 'string[]',
  targetingGateID: 'string|null',
  permalink: 'string',
  monitoringMetrics: 'object[]',
};

const typed = (type: SpecType, fields: string): Record<string, SpecType> => Object.fromEntries(fields.split(/\s+/).filter(Boolean).map((f) => [f, type]));

/** Experiment version (`GET /experiments/{id}/versions`): the reference types every field, none of them nullable. */
export const EXPERIMENT: SpecTable = {
  ...typed(
    'string',
    `id idType description lastModifierID lastModifierEmail lastModifierName creatorName creatorID creatorEmail hypothesis targetingGateID
     defaultConfidenceInterval status decisionReason layerID healthCheckStatus experimentType permalink name team teamID secondaryIDType
     identifierMappingMode identityResolutionSource controlGroupID launchedGroupID assignmentSourceName assignmentSourceExperimentName
     scheduledReloadType analysisEndTime analyticsType sprtBaselineMode subtype externalExperimentName inlineTargetingRulesJSON`,
  ),
  ...typed(
    'number',
    `lastModifiedTime createdTime startTime endTime decisionTime allocation version duration targetExposures defaultRollupWindow
     defaultChanceToBeatThreshold allocationDuration cohortedAnalysisDuration fixedAnalysisDuration scheduledReloadHour defaultSPRTPowerParam defaultSPRTMDE`,
  ),
  ...typed(
    'boolean',
    `bonferroniCorrection isStale sequentialTesting bonferroniCorrectionPerMetric benjaminiHochbergPerVariant benjaminiHochbergPerMetric
     benjaminiPrimaryMetricsOnly isAnalysisOnly cohortedMetricsMatureAfterEnd cohortWaitUntilEndToInclude turboMode isSidecar`,
  ),
  // targetApps is listed among the strings; like every other kind's it is a list of app names.
  ...typed('string[]', 'tags holdoutIDs primaryMetricTags secondaryMetricTags enabledNonProdEnvironments targetApps'),
  ...typed('integer[]', 'userBuckets scheduledReloadDays'),
  version: 'integer',
  ...typed(
    'object[]',
    `groups primaryMetrics secondaryMetrics otherMetrics links externalEvents bayesianPriors manualQualityScores assignmentSourceFilters
     sprtMDESettings preComputedUserDimensions cureCovariates healthChecks inlineTargetingRules summarySections`,
  ),
  ...typed('object', 'reviewSettings activeReview stratifiedSampling qualityScore owner'),
};

export const EXPERIMENT_GROUP: SpecTable = {
  name: 'string',
  id: 'string',
  description: 'string',
  foreignGroupID: 'string',
  size: 'number',
  parameterValues: 'object',
  disabled: 'boolean',
  highlighted: 'boolean',
};

export const METRIC_REFERENCE: SpecTable = { name: 'string', type: 'string', direction: 'string', hypothesizedValue: 'number' };

/** inlineTargetingRules items. */
export const INLINE_TARGETING_RULE: SpecTable = { ...RULE, returnValue: 'object' };

/** Experiment fields that are left out while not set (before a start, a decision, a review...). */
export const EXPERIMENT_UNSET_FIELDS = [
  'targetingGateID', 'decisionReason', 'layerID', 'secondaryIDType', 'identifierMappingMode', 'identityResolutionSource', 'controlGroupID', 'launchedGroupID',
  'assignmentSourceName', 'assignmentSourceExperimentName', 'scheduledReloadType', 'analysisEndTime', 'analyticsType', 'sprtBaselineMode', 'subtype',
  'externalExperimentName', 'team', 'teamID', 'startTime', 'endTime', 'decisionTime', 'targetExposures', 'defaultRollupWindow', 'defaultChanceToBeatThreshold',
  'allocationDuration', 'cohortedAnalysisDuration', 'fixedAnalysisDuration', 'scheduledReloadHour', 'defaultSPRTPowerParam', 'defaultSPRTMDE', 'owner',
  'stratifiedSampling', 'qualityScore', 'activeReview',
] as const;
