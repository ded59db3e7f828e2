import { z } from 'zod';
import {
  ActiveReviewShape,
  ComputedResponseShape,
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  MonitoringMetricSchema,
  NullableStringSchema,
  OwnerSchema,
  responseShape,
  ReviewSettingsSchema,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';
import { GateRuleSchema, RuleResponseShape } from './rule.js';

export const GATE_TYPES = ['PERMANENT', 'TEMPORARY'] as const;

/** Most ids one override list holds (the reference's limit). */
export const MAX_GATE_OVERRIDE_IDS = 2000;

const overrideIds = (description: string) =>
  z
    .array(z.string().min(1, 'must not be empty'))
    .max(MAX_GATE_OVERRIDE_IDS, `must hold at most ${MAX_GATE_OVERRIDE_IDS} ids`)
    .describe(description);

export const GateEnvironmentOverrideSchema = z
  .strictObject({
    environment: z.string().min(1, 'must not be empty').nullable().optional().describe('Environment the ids are overridden in; left out (or null): every environment.'),
    unitID: z.string().min(1, 'must not be empty').nullable().optional().describe("Unit ID type of the ids (userID, or a custom ID type); left out (or null): the gate's idType."),
    passingIDs: z.array(z.string().min(1, 'must not be empty')).default([]).describe('Ids that always pass the gate there.'),
    failingIDs: z.array(z.string().min(1, 'must not be empty')).default([]).describe('Ids that always fail the gate there.'),
  })
  .describe('Ids overridden in one environment (or for one unit ID type).')
  .meta({ id: 'GateEnvironmentOverride' });

/**
 * The ids a gate passes or fails whatever its rules say (the reference's OverrideDto). Checked
 * before the rules; an id may not be both passing and failing.
 */
export const GateOverridesSchema = z
  .strictObject({
    passingUserIDs: overrideIds('User ids that always pass.').default([]),
    failingUserIDs: overrideIds('User ids that always fail.').default([]),
    passingCustomIDs: overrideIds('Custom ids that always pass.').default([]),
    failingCustomIDs: overrideIds('Custom ids that always fail.').default([]),
    environmentOverrides: z.array(GateEnvironmentOverrideSchema).default([]).describe('Ids overridden per environment and unit ID type; one entry per pair.'),
  })
  .describe('Ids that pass or fail the gate whatever its rules say; lists left out are empty.')
  .meta({ id: 'GateOverrides' });

/** Body of POST, PATCH and DELETE /gates/{id}/overrides: the lists to replace, add to or remove from. */
export const GateOverridesChangeSchema = z
  .strictObject({
    passingUserIDs: overrideIds('User ids that always pass.'),
    failingUserIDs: overrideIds('User ids that always fail.'),
    passingCustomIDs: overrideIds('Custom ids that always pass.'),
    failingCustomIDs: overrideIds('Custom ids that always fail.'),
    environmentOverrides: z.array(GateEnvironmentOverrideSchema).describe('Entries per environment and unit ID type.'),
  })
  .partial()
  .meta({ id: 'GateOverridesChange', description: 'POST replaces the lists it names, PATCH adds their ids, DELETE removes them; lists left out stay as they are.' });

/** A gate without overrides. */
export const NO_GATE_OVERRIDES = { passingUserIDs: [], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [] };

/** Writable fields of a gate (the body of PATCH /gates/{id}). */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  isEnabled: z.boolean().describe('Whether the gate is evaluated; disabled gates fail every check.'),
  rules: z.array(GateRuleSchema).describe('Rules, evaluated in order.'),
  tags: TagsSchema,
  type: z.enum(GATE_TYPES).describe('PERMANENT or TEMPORARY.'),
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type the gate is evaluated on.'),
  targetApps: TargetAppsSchema,
  ...CreatorShape,
  owner: OwnerSchema.nullable(),
  ...TeamShape,
  measureMetricLifts: z.boolean().describe('Whether metric lifts are measured.'),
  monitoringMetrics: z.array(MonitoringMetricSchema).describe('Metrics monitored for this gate.'),
  reviewSettings: ReviewSettingsSchema,
  releasePipelineID: NullableStringSchema.describe('Release pipeline id.'),
  overrides: GateOverridesSchema,
};

export const GateWritableSchema = z.strictObject(fields);
export type GateWritable = z.infer<typeof GateWritableSchema>;

/** Values a gate takes for fields a create or full update leaves out. */
export const GATE_DEFAULTS: Omit<GateWritable, 'name'> = {
  description: '',
  isEnabled: true,
  rules: [],
  tags: [],
  type: 'PERMANENT',
  idType: 'userID',
  targetApps: [],
  ...CREATOR_DEFAULTS,
  owner: null,
  ...TEAM_DEFAULTS,
  measureMetricLifts: false,
  monitoringMetrics: [],
  reviewSettings: { requiredReview: false, allowedReviewers: [] },
  releasePipelineID: null,
  overrides: NO_GATE_OVERRIDES,
};

export const GateCreateSchema = z
  .strictObject({ ...fields, id: EntityIdSchema.describe('Gate id; derived from name when missing.'), isTemplate: z.boolean().describe('Create as a template.') })
  .partial()
  .required({ name: true })
  .meta({ id: 'GateCreate', description: 'Body of POST /gates.' });

export const GateUpdateSchema = GateWritableSchema.partial()
  .required({ isEnabled: true, description: true, rules: true })
  .meta({ id: 'GateFullUpdate', description: 'Body of POST /gates/{id}: fields left out take their defaults.' });

export const GatePatchSchema = GateWritableSchema.partial().meta({
  id: 'GatePartialUpdate',
  description: 'Body of PATCH /gates/{id}: only the supplied fields change.',
});

export const GATE_STATUSES = ['In Progress', 'Launched', 'Disabled', 'Archived'] as const;

export const GateSchema = z
  .strictObject({
    id: EntityIdSchema,
    ...responseShape(fields, ['creatorID', 'creatorEmail', 'team', 'teamID', 'releasePipelineID']),
    rules: z.array(GateRuleSchema.extend(RuleResponseShape)),
    status: z.enum(GATE_STATUSES).describe('In Progress, Launched, Disabled or Archived.'),
    typeReason: z.string().describe('Why the gate has its type (NONE when set by hand).'),
    checksPerHour: z.number().describe('Evaluations per hour; the embedded console has no SDK traffic, so 0.'),
    store0100Exposures: z.boolean().describe('Whether 0% and 100% exposures are stored.'),
    isTemplate: z.boolean().describe('Whether this gate is a template (set on create only).'),
    ...ActiveReviewShape,
    ...ComputedResponseShape,
  })
  .meta({ id: 'Gate', description: 'A feature gate as the console returns it.' });

export type Gate = z.infer<typeof GateSchema>;
