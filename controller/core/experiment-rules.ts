import type { FieldError } from '../errors.js';
import { duplicateNames } from './rule-names.js';
import { isPlainObject } from './is-plain-object.js';

type Json = Record<string, unknown>;

const listOf = (entity: Json, key: string): Json[] => (Array.isArray(entity[key]) ? (entity[key] as Json[]) : []);

/** Paths that /console/v1/experiments/... uses for other routes, so no experiment may take them as id. */
export const RESERVED_EXPERIMENT_IDS = ['assignment_sources', 'assignment_source'] as const;

/**
 * Rules of an experiment that a zod schema can't express and that need no other entity: group
 * names and ids unique, group sizes summing to 100, the control group naming a group, inline
 * targeting rule names unique. Pure: the console's experiment kind and file validation share it.
 */
export function experimentRuleErrors(experiment: Json): FieldError[] {
  const groups = listOf(experiment, 'groups');
  const errors = [...duplicateNames(groups, 'groups'), ...duplicateNames(groups, 'groups', 'id'), ...duplicateNames(listOf(experiment, 'inlineTargetingRules'), 'inlineTargetingRules')];
  const total = groups.reduce((sum, g) => sum + (typeof g['size'] === 'number' ? g['size'] : 0), 0);
  // Sizes like 33.3 + 33.3 + 33.4 must pass despite binary floating point.
  if (Math.abs(total - 100) > 1e-9) {
    errors.push({ property: 'groups', errorMessage: groups.length === 0 ? 'must have at least one group; group sizes must sum to 100' : `group sizes must sum to 100 (they sum to ${Number(total.toFixed(6))})` });
  }
  const control = experiment['controlGroupID'];
  if (typeof control === 'string' && groups.length > 0 && groups.every((g) => g['id'] !== undefined) && !groups.some((g) => g['id'] === control)) {
    errors.push({ property: 'controlGroupID', errorMessage: `must be the id of one of the groups (${groups.map((g) => String(g['id'])).join(', ')})` });
  }
  const id = experiment['id'];
  if (typeof id === 'string' && (RESERVED_EXPERIMENT_IDS as readonly string[]).includes(id)) {
    errors.push({ property: 'id', errorMessage: `'${id}' is reserved by the assignment source routes` });
  }
  return errors;
}

const LAYER_VALUE_TYPES: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: isPlainObject,
  array: (v) => Array.isArray(v),
};

/** A layer's parameter names are unique and each default value has the parameter's type. Pure. */
export function layerRuleErrors(layer: Json): FieldError[] {
  const parameters = listOf(layer, 'parameters');
  const errors = duplicateNames(parameters, 'parameters');
  parameters.forEach((p, i) => {
    const matches = LAYER_VALUE_TYPES[String(p['type'])];
    if (matches && !matches(p['defaultValue'])) errors.push({ property: `parameters[${i}].defaultValue`, errorMessage: `must be of type ${String(p['type'])}` });
  });
  return errors;
}

/** Whether a value has a layer parameter's type. */
export function matchesLayerType(type: unknown, value: unknown): boolean {
  return LAYER_VALUE_TYPES[String(type)]?.(value) ?? false;
}

/** A list of ids names each entity once. Pure. */
export function duplicateIds(entity: Json, key: string): FieldError[] {
  const values = Array.isArray(entity[key]) ? (entity[key] as unknown[]) : [];
  const errors: FieldError[] = [];
  values.forEach((v, i) => {
    const first = values.indexOf(v);
    if (first !== i) errors.push({ property: `${key}[${i}]`, errorMessage: `duplicates ${key}[${first}] '${String(v)}'` });
  });
  return errors;
}
