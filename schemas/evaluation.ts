import { z } from 'zod';

/**
 * The console's evaluation endpoint (`POST /console/v1/evaluate`): a flag and a user in, the value
 * and why out. The web console's "try it" and `flagops eval --console` call it.
 */

const Text = (what: string) => z.string().max(10000, 'must be at most 10000 characters long').describe(what);

export const EvalUserSchema = z
  .strictObject({
    userID: Text('The unit id most entities bucket on.').optional(),
    email: Text('E-mail address.').optional(),
    ip: Text('IP address (country conditions read its country when `country` is absent).').optional(),
    userAgent: Text('User agent (browser and OS conditions read it).').optional(),
    country: Text('Two-letter country code.').optional(),
    locale: Text('Locale, e.g. en_US.').optional(),
    appVersion: Text('Application version, e.g. 2.5.1.').optional(),
    custom: z.record(z.string(), z.unknown()).optional().describe('Custom fields, by name (custom_field conditions).'),
    customIDs: z.record(z.string(), z.string()).optional().describe('Custom unit ids by id type, e.g. {"companyID": "acme"}.'),
  })
  .describe('The user, in the Statsig SDK\'s shape.');

export const EvaluateRequestSchema = z.strictObject({
  flag: z
    .string()
    .min(1, 'must not be empty')
    .max(300, 'must be at most 300 characters long')
    .describe('The entity id, or KIND/ID (gates/ID, dynamic_configs/ID, experiments/ID, layers/ID) where kinds share the id.'),
  user: EvalUserSchema,
  environment: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters long').nullable().optional().describe('The environment to evaluate in; absent: none (rules limited to environments do not apply).'),
});

const ConditionTrailSchema = z.object({
  type: z.string(),
  operator: z.string().nullable(),
  field: z.string().nullable(),
  targetValue: z.unknown(),
  value: z.unknown().optional().describe("The user's value the condition compared."),
  passed: z.boolean(),
  unsupported: z.string().optional().describe('Why the engine cannot evaluate this condition.'),
  gates: z.array(z.object({ name: z.string(), value: z.boolean(), ruleID: z.string() })).optional().describe('Gates and segments the condition checked, with their answers.'),
});

export const RuleTrailSchema = z.object({
  ruleID: z.string(),
  ruleName: z.string(),
  groupName: z.string().nullable(),
  outcome: z.enum(['matched', 'percentage_failed', 'conditions_failed', 'delegated', 'unsupported']),
  passPercentage: z.number(),
  bucket: z.number().int().optional().describe("The unit's bucket (0–9999), compared with passPercentage × 100."),
  conditions: z.array(ConditionTrailSchema),
});

export const EvaluationResultSchema = z.object({
  flag: z.string().describe('The flag key evaluated.'),
  kind: z.enum(['gate', 'dynamic_config', 'experiment', 'layer']),
  id: z.string(),
  environment: z.string().nullable(),
  value: z.unknown().describe("A gate's boolean; a config's, experiment group's or layer's parameters."),
  reason: z.enum(['rule', 'default', 'disabled', 'unsupported']),
  ruleID: z.string(),
  ruleName: z.string().nullable(),
  groupName: z.string().nullable(),
  experiment: z.string().nullable().describe('For a layer: the experiment the unit is allocated to.'),
  trail: z.array(RuleTrailSchema).describe('Every rule evaluated, in order, up to the deciding one.'),
  experimentTrail: z.array(RuleTrailSchema).nullable().describe("For a layer: the allocated experiment's rules."),
  unsupported: z.object({ ruleID: z.string(), ruleName: z.string(), reason: z.string() }).nullable(),
});

export type EvaluateRequest = z.infer<typeof EvaluateRequestSchema>;
export type EvaluationResult = z.infer<typeof EvaluationResultSchema>;
