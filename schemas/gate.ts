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

/** Writable fields of a gate (spec endpoint 5 body). */
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
