import type { z } from 'zod';
import type { FieldError } from '../errors.js';
import { NON_FINITE_MESSAGE } from '../../schemas/json-value.js';
import { didYouMean } from './did-you-mean.js';
import { fastParser, UNSURE } from './fast-parse.js';

/** `['rules', 0, 'name']` → `rules[0].name`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Known keys of the object schema at a path, for "did you mean" on unknown keys. */
function knownKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let current: unknown = schema;
  for (const part of path) {
    current = unwrap(current);
    const def = (current as { def?: { type?: string; element?: unknown; shape?: Record<string, unknown> } }).def;
    if (def?.type === 'array') current = def.element;
    else if (def?.type === 'object' && def.shape) current = def.shape[String(part)];
    else return [];
  }
  const def = (unwrap(current) as { def?: { type?: string; shape?: Record<string, unknown> } }).def;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

function unwrap(schema: unknown): unknown {
  let current = schema as { def?: { type?: string; innerType?: unknown } } | undefined;
  // nonoptional: a field an entity file must give (a required field of a schema made partial elsewhere).
  while (current?.def && ['optional', 'nonoptional', 'nullable', 'default', 'readonly'].includes(current.def.type ?? '')) {
    current = current.def.innerType as typeof current;
  }
  return current;
}

/** Turns zod issues into the API's `errors[]`: one entry per violated constraint, named by property path. */
export function zodIssuesToFieldErrors(issues: ReadonlyArray<z.core.$ZodIssue>, schema: z.ZodType): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const suggestion = didYouMean(key, known);
        errors.push({
          property: formatPath([...issue.path, key]),
          errorMessage: `is not a known field${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`,
        });
      }
      continue;
    }
    // A union (a JSON value of any type) reports a missing field as "Invalid input", not by type.
    const missing = (issue.code === 'invalid_type' || issue.code === 'invalid_union') && 'input' in issue && issue.input === undefined;
    // z.number() refuses Infinity and NaN as "expected number, received Infinity", which reads as a bug.
    const nonFinite = issue.code === 'invalid_type' && issue.expected === 'number' && 'input' in issue && typeof issue.input === 'number';
    errors.push({
      property: formatPath(issue.path) || '(body)',
      errorMessage: missing ? 'is required' : nonFinite ? NON_FINITE_MESSAGE : issue.message.replace(/^Invalid input: /, ''),
    });
  }
  return errors;
}

/**
 * Parses with zod; on failure returns field errors instead of throwing. Clean input (nearly all of
 * it) takes the parser compiled from the same schema, which answers only with zod's own output.
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): { ok: true; value: T } | { ok: false; errors: FieldError[] } {
  const fast = fastParser(schema)(input);
  if (fast !== UNSURE) return { ok: true, value: fast as T };
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: zodIssuesToFieldErrors(result.error.issues, schema) };
}
