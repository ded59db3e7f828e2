import { z } from 'zod';
import { DynamicConfigSchema } from './dynamic-config.js';
import { GateSchema } from './gate.js';
import { DynamicConfigRuleSchema, GateRuleSchema } from './rule.js';

/** Bodies and the read shape of `/{kind}/{id}/rules` (reference: MultiRuleDto, MultiRuleUpdateDto, RuleUpdateDto, GateRulesDto). */
export interface RuleRequestSchemas {
  /** POST .../rules: rules appended after the existing ones. */
  add: z.ZodType;
  /** PATCH .../rules: existing rules, named by id, changed in place. */
  updateMany: z.ZodType;
  /** PATCH .../rules/{ruleID}: one rule changed in place. */
  updateOne: z.ZodType;
  /** One item of GET .../rules: `{ rules }` as the entity's read returns them. */
  read: z.ZodType;
}

/**
 * The rule sub-resource's schemas, built from the kind's own rule schema so a rule accepted here is
 * exactly one a full update would accept. `id` names the kind in OpenAPI component names; `path` is
 * its API path for descriptions.
 */
function ruleRequestSchemas(rule: typeof GateRuleSchema | typeof DynamicConfigRuleSchema, rules: z.ZodType, id: string, path: string): RuleRequestSchemas {
  const partial = rule.partial();
  return {
    add: z
      .strictObject({ rules: z.array(rule).min(1, 'must name at least one rule').describe('Rules to append, in order; ids are generated when missing.') })
      .meta({ id: `${id}RulesAdd`, description: `Body of POST /${path}/{id}/rules: the rules are added after the existing ones.` }),
    updateMany: z
      .strictObject({
        rules: z
          .array(partial.required({ id: true }))
          .min(1, 'must name at least one rule')
          .describe('Existing rules by id, each with the fields to change; rules left out stay as they are.'),
      })
      .meta({ id: `${id}RulesUpdate`, description: `Body of PATCH /${path}/{id}/rules: changes the named rules in place; adds and deletes nothing.` }),
    updateOne: partial.meta({ id: `${id}RuleUpdate`, description: `Body of PATCH /${path}/{id}/rules/{ruleID}: only the supplied fields of the rule change.` }),
    read: z.strictObject({ rules }).meta({ id: `${id}Rules`, description: 'The rules, in evaluation order, as the entity read shows them.' }),
  };
}

export const GateRuleRequests = ruleRequestSchemas(GateRuleSchema, GateSchema.shape.rules, 'Gate', 'gates');
export const DynamicConfigRuleRequests = ruleRequestSchemas(DynamicConfigRuleSchema, DynamicConfigSchema.shape.rules, 'DynamicConfig', 'dynamic_configs');
