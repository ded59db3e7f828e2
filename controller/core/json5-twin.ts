import type { FieldError } from '../errors.js';
import { jsonTreeProblem } from '../../schemas/json-tree-problem.js';
import { formatJsonPath, NON_FINITE_MESSAGE, nonFiniteNumberPaths } from '../../schemas/json-value.js';
import { parseJson5 } from './fast-json5.js';
import { duplicateJson5Key } from './json5-duplicate-key.js';
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
    parsed = parseJson5(json5);
  } catch (error) {
    return { errors: [{ property: json5Path, errorMessage: `is not valid JSON5: ${(error as Error).message}` }] };
  }
  // Placed inside the block as json5's own errors are: "at line:column" of the text.
  const duplicate = duplicateJson5Key(json5);
  if (duplicate) return { errors: [{ property: json5Path, errorMessage: `has the key ${JSON.stringify(duplicate.key)} twice (keys are unique, as in YAML) at ${duplicate.line}:${duplicate.column}` }] };
  // As in a body or a YAML file: a key JavaScript takes for a prototype is refused, whichever form carries it.
  const prototypeKey = jsonTreeProblem(parsed, Number.MAX_SAFE_INTEGER);
  if (prototypeKey?.kind === 'prototype-key') {
    const where = prototypeKey.path === prototypeKey.key ? '' : ` at ${prototypeKey.path}`;
    return { errors: [{ property: json5Path, errorMessage: `has the key "${prototypeKey.key}"${where}, which is refused: JavaScript would take it for an object prototype` }] };
  }
  const nonFinite = nonFiniteErrors(parsed, json5Path);
  if (nonFinite.length > 0) return { errors: nonFinite };
  if (plain !== undefined && plain !== null && !jsonEqual(plain, parsed)) {
    return { errors: [{ property: json5Path, errorMessage: `must parse to the same JSON as ${plainPath}` }] };
  }
  return { value: parsed, errors: [] };
}

/**
 * JSON5 (and JSON text with `1e309`) can spell Infinity and NaN, which JSON cannot hold: one error per
 * such number, on the text's property, naming where in the value it sits.
 */
export function nonFiniteErrors(parsed: unknown, property: string): FieldError[] {
  return nonFiniteNumberPaths(parsed).map((path) => ({
    property,
    errorMessage: `${path.length === 0 ? 'the value' : formatJsonPath(path)} ${NON_FINITE_MESSAGE}`,
  }));
}
