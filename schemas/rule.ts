import { z } from 'zod';
import { AutomatedRolloutSchema, ConditionSchema, JsonObjectSchema, PercentageSchema, responseShape } from './common.js';

const RuleNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters long')
  .describe('Rule name, unique within the entity.');

const ruleBase = {
  id: z.string().min(1, 'must not be empty').optional().describe('Rule id; generated when missing.'),
  baseID: z.string().optional().describe('Id of the rule this one derives from.'),
  name: RuleNameSchema,
  passPercentage: PercentageSchema.describe('Percentage of matching units that pass, 0 to 100.'),
  conditions: z.array(ConditionSchema).describe('All conditions must hold for the rule to match.'),
  environments: z.array(z.string().min(1, 'must not be empty')).nullable().optional().describe('Environments the rule applies to; null means all.'),
};

/**
 * Response-only rollout fields every rule carries (spec: "in responses a rule additionally carries").
 * The embedded console schedules no automated rollouts, so both lists are empty; files and request
 * bodies may not set them.
 */
export const RuleRolloutShape = {
  completedAutomatedRollouts: z.array(AutomatedRolloutSchema).describe('Automated rollout steps already applied.'),
  pendingAutomatedRollouts: z.array(AutomatedRolloutSchema).describe('Automated rollout steps still scheduled.'),
} as const;

/** A condition as responses show it: an operator, field or customID that is not set is left out, never null. */
const ConditionResponseSchema = z.strictObject(responseShape(ConditionSchema.shape)).describe('A targeting condition.').meta({ id: 'ConditionResponse' });

/**
 * What every rule of a response carries beyond its request fields: its ids (always set), the
 * rollout lists, and no null where the reference API types none (environments left out means all).
 */
export const RuleResponseShape = {
  ...responseShape(ruleBase),
  id: z.string().describe('Rule id.'),
  baseID: z.string().describe('Id of the rule this one derives from (its own id when new).'),
  conditions: z.array(ConditionResponseSchema).describe('All conditions must hold for the rule to match.'),
  ...RuleRolloutShape,
} as const;

export const GateRuleSchema = z.strictObject(ruleBase).describe('A gate or segment rule.').meta({ id: 'GateRule' });

export const VariantSchema = z
  .strictObject({
    id: z.string().min(1, 'must not be empty').optional().describe('Variant id; generated when missing.'),
    name: RuleNameSchema.describe('Variant name, unique within the rule.'),
    passPercentage: PercentageSchema,
    returnValue: JsonObjectSchema.optional().describe('Value returned for this variant.'),
    returnValueJson5: z.string().optional().describe('JSON5 form of returnValue; comments allowed.'),
  })
  .describe('A variant of a dynamic-config rule.')
  .meta({ id: 'Variant' });

export const DynamicConfigRuleSchema = z
  .strictObject({
    ...ruleBase,
    returnValue: JsonObjectSchema.optional().describe('JSON object returned when the rule passes.'),
    returnValueJson5: z.string().optional().describe('JSON5 form of returnValue; comments allowed; must parse to the same JSON.'),
    variants: z.array(VariantSchema).optional().describe('Variants splitting the passing units.'),
  })
  .describe('A dynamic-config rule.')
  .meta({ id: 'DynamicConfigRule' });

export type GateRule = z.infer<typeof GateRuleSchema>;
export type DynamicConfigRule = z.infer<typeof DynamicConfigRuleSchema>;
export type Variant = z.infer<typeof VariantSchema>;
