import type { FieldError } from '../errors.js';
import { duplicateNames } from './rule-names.js';

type Json = Record<string, unknown>;

/** Rules of a segment beyond its zod schema: unique rule names, rules only when rule_based, ids only when id_list. */
export function segmentRuleErrors(segment: Json): FieldError[] {
  const rules = Array.isArray(segment['rules']) ? (segment['rules'] as Json[]) : [];
  const ids = Array.isArray(segment['ids']) ? (segment['ids'] as unknown[]) : [];
  const errors = [...duplicateNames(rules, 'rules'), ...duplicateNames(rules, 'rules', 'id')];
  if (segment['type'] === 'id_list' && rules.length > 0) errors.push({ property: 'rules', errorMessage: 'must be empty for an id_list segment' });
  if (segment['type'] === 'rule_based' && ids.length > 0) errors.push({ property: 'ids', errorMessage: 'must be empty for a rule_based segment' });
  return errors;
}
