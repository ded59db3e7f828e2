import type { FieldError } from '../errors.js';
import { duplicateNames } from './rule-names.js';

type Json = Record<string, unknown>;

/** Rules of a gate beyond its zod schema: rule names and rule ids unique. Pure: the console and `flagops validate` share it. */
export function gateRuleErrors(gate: Json): FieldError[] {
  const rules = Array.isArray(gate['rules']) ? (gate['rules'] as Json[]) : [];
  return [...duplicateNames(rules, 'rules'), ...duplicateNames(rules, 'rules', 'id')];
}
