import type { FieldError } from '../errors.js';
import { duplicateNames } from './rule-names.js';

type Json = Record<string, unknown>;

/** Rules of an assignment source beyond its zod schema: each unit id type mapped once. Pure. */
export function assignmentSourceRuleErrors(source: Json): FieldError[] {
  const mapping = Array.isArray(source['idTypeMapping']) ? (source['idTypeMapping'] as Json[]) : [];
  return duplicateNames(mapping, 'idTypeMapping', 'statsigUnitID');
}
