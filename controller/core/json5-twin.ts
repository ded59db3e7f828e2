import JSON5 from 'json5';
import type { FieldError } from '../errors.js';
import { jsonEqual } from './json-equal.js';

export interface TwinResult {
  /** The JSON value the pair stands for, when it could be decided. */
  value?: unknown;
  errors: FieldError[];
}

/**
 * Checks a value and its JSON5 twin (`defaultValue`/`defaultValueJson5`, ...): the JSON5 text must
 * parse, and when both are given they must be the same JSON. Either one alone is enough.
 */
export function checkJson5Twin(plain: unknown, json5: unknown, plainPath: string, json5Path: string): TwinResult {
  if (json5 === undefined || json5 === null) return { value: plain, errors: [] };
  if (typeof json5 !== 'string') return { errors: [{ property: json5Path, errorMessage: 'must be a string of JSON5 text' }] };
  let parsed: unknown;
  try {
    parsed = JSON5.parse(json5);
  } catch (error) {
    return { errors: [{ property: json5Path, errorMessage: `is not valid JSON5: ${(error as Error).message}` }] };
  }
  if (plain !== undefined && plain !== null && !jsonEqual(plain, parsed)) {
    return { errors: [{ property: json5Path, errorMessage: `must parse to the same JSON as ${plainPath}` }] };
  }
  return { value: parsed, errors: [] };
}
