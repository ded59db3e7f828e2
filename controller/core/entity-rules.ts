import type { FieldError } from '../errors.js';
import { dynamicConfigRuleErrors } from './dynamic-config-rules.js';
import { duplicateNames } from './rule-names.js';
import { segmentRuleErrors } from './segment-rules.js';

type Json = Record<string, unknown>;

const rulesOf = (entity: Json, key = 'rules'): Json[] => (Array.isArray(entity[key]) ? (entity[key] as Json[]) : []);

/**
 * The pure, lookup-free rules each kind enforces beyond its zod schema: the very functions the
 * console's KindDefs call, so a file that validates here is accepted by the console. Kinds without an
 * entry get the rule every kind with named lists shares: names unique within `rules`.
 */
export const ENTITY_RULES: Readonly<Record<string, (entity: Json) => FieldError[]>> = {
  gate: (gate) => duplicateNames(rulesOf(gate), 'rules'),
  segment: segmentRuleErrors,
  dynamic_config: dynamicConfigRuleErrors,
};

export function entityRuleErrors(kind: string, entity: Json): FieldError[] {
  const rule = ENTITY_RULES[kind];
  return rule ? rule(entity) : duplicateNames(rulesOf(entity), 'rules');
}
