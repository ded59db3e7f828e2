import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import JSON5 from 'json5';
import type { FieldError } from '../errors.js';
import { checkJson5Twin, nonFiniteErrors } from './json5-twin.js';
import { linearRegExp, UnsupportedPatternError } from './linear-pattern.js';
import { duplicateNames } from './rule-names.js';

type Json = Record<string, unknown>;

// The schema is the user's: its `pattern`s and `patternProperties` run on a linear-time engine
// (RE2), so no pattern/value pair can stall the console or `flagops validate` (linear-pattern.ts).
// strict stays off: strictSchema would also test patternProperties against property names with
// ajv's own `new RegExp`.
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: linearRegExp } });
const compiled = new Map<string, ValidateFunction | Error>();

/** How a value the config's own JSON Schema refuses is reported (the API and the files say it alike). */
export const SCHEMA_MISMATCH = "does not match the config's schema";

/** A schema whose pattern the linear-time engine refuses; the message is the whole field error. */
class PatternError extends Error {}

function compile(schemaText: string): ValidateFunction | Error {
  let hit = compiled.get(schemaText);
  if (hit === undefined) {
    let schema: unknown;
    try {
      schema = JSON5.parse(schemaText);
      hit = ajv.compile(schema as object);
    } catch (error) {
      if (error instanceof UnsupportedPatternError) {
        const pointer = patternPointer(schema, error.pattern);
        hit = new PatternError(`has an unsupported pattern${pointer === undefined ? '' : ` at ${pointer}`}: ${error.message}`);
      } else {
        hit = error instanceof Error ? error : new Error(String(error));
      }
    } finally {
      // ajv keeps every schema it compiles, by object and by `$id`: two configs whose schemas share
      // an `$id` would refuse the second until a restart, and the instance would grow with every
      // schema. The compiled function holds what it needs; `compiled` is the only cache.
      if (schema !== null && typeof schema === 'object') ajv.removeSchema(schema as object);
    }
    // Bounded so a client cycling schemas can't grow memory without limit.
    if (compiled.size > 500) compiled.clear();
    compiled.set(schemaText, hit);
  }
  return hit;
}

/**
 * JSON Pointer of the first `pattern` keyword or `patternProperties` key in the schema whose text
 * is `pattern`, to name where an unsupported pattern sits.
 */
function patternPointer(schema: unknown, pattern: string, at = ''): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const step = (key: string): string => `${at}/${escape(key)}`;
  if (!Array.isArray(schema)) {
    const object = schema as Json;
    if (object['pattern'] === pattern) return step('pattern');
    const props = object['patternProperties'];
    if (props !== null && typeof props === 'object' && Object.hasOwn(props, pattern)) return `${step('patternProperties')}/${escape(pattern)}`;
  }
  for (const [key, value] of Object.entries(schema)) {
    const found = patternPointer(value, pattern, step(key));
    if (found !== undefined) return found;
  }
  return undefined;
}

function describeAjv(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}

/**
 * Rules of docs/design.md ("Entities and endpoints") for a dynamic config that a zod schema can't express: JSON5 twins agree, the
 * `schema` is valid JSON Schema 2020-12, and the default value and every rule's and variant's return
 * value satisfy it. Pure: used by the console and by `flagops validate` alike.
 */
export function dynamicConfigRuleErrors(config: Json): FieldError[] {
  const errors: FieldError[] = [];
  const schemaTwin = checkJson5Twin(parseSchemaText(config['schema'], 'schema', errors), config['schemaJson5'], 'schema', 'schemaJson5');
  errors.push(...schemaTwin.errors);
  const defaultTwin = checkJson5Twin(config['defaultValue'], config['defaultValueJson5'], 'defaultValue', 'defaultValueJson5');
  errors.push(...defaultTwin.errors);

  const values: { path: string; value: unknown }[] = [];
  if (defaultTwin.value !== undefined && defaultTwin.errors.length === 0) values.push({ path: 'defaultValue', value: defaultTwin.value });
  const rules = Array.isArray(config['rules']) ? (config['rules'] as Json[]) : [];
  errors.push(...duplicateNames(rules, 'rules'), ...duplicateNames(rules, 'rules', 'id'));
  rules.forEach((rule, i) => {
    const twin = checkJson5Twin(rule['returnValue'], rule['returnValueJson5'], `rules[${i}].returnValue`, `rules[${i}].returnValueJson5`);
    errors.push(...twin.errors);
    if (twin.value !== undefined && twin.errors.length === 0) values.push({ path: `rules[${i}].returnValue`, value: twin.value });
    const variants = Array.isArray(rule['variants']) ? (rule['variants'] as Json[]) : [];
    errors.push(...duplicateNames(variants, `rules[${i}].variants`), ...duplicateNames(variants, `rules[${i}].variants`, 'id'));
    variants.forEach((variant, j) => {
      const path = `rules[${i}].variants[${j}]`;
      const vt = checkJson5Twin(variant['returnValue'], variant['returnValueJson5'], `${path}.returnValue`, `${path}.returnValueJson5`);
      errors.push(...vt.errors);
      if (vt.value !== undefined && vt.errors.length === 0) values.push({ path: `${path}.returnValue`, value: vt.value });
    });
  });

  const schemaText = typeof config['schema'] === 'string' ? config['schema'] : typeof config['schemaJson5'] === 'string' ? config['schemaJson5'] : null;
  if (schemaText !== null && schemaTwin.errors.length === 0 && !errors.some((e) => e.property === 'schema')) {
    const validate = compile(schemaText);
    if (validate instanceof PatternError) {
      errors.push({ property: config['schema'] != null ? 'schema' : 'schemaJson5', errorMessage: validate.message });
    } else if (validate instanceof Error) {
      errors.push({ property: config['schema'] != null ? 'schema' : 'schemaJson5', errorMessage: `is not a valid JSON Schema 2020-12: ${validate.message}` });
    } else {
      for (const { path, value } of values) {
        if (!validate(value)) {
          const ruleName = ruleNameOf(rules, path);
          errors.push({ property: path, errorMessage: `${SCHEMA_MISMATCH}${ruleName}: ${describeAjv(validate.errors)}` });
        }
      }
    }
  }
  return errors;
}

function parseSchemaText(text: unknown, path: string, errors: FieldError[]): unknown {
  if (typeof text !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    errors.push({ property: path, errorMessage: `is not valid JSON: ${(error as Error).message}` });
    return undefined;
  }
  const nonFinite = nonFiniteErrors(parsed, path);
  errors.push(...nonFinite);
  return nonFinite.length > 0 ? undefined : parsed;
}

function ruleNameOf(rules: Json[], path: string): string {
  const match = /^rules\[(\d+)\]/.exec(path);
  if (!match) return '';
  const rule = rules[Number(match[1])];
  return rule && typeof rule['name'] === 'string' ? ` (rule '${rule['name']}')` : '';
}

const TOP_LEVEL_TWINS = [
  ['defaultValue', 'defaultValueJson5'],
  ['schema', 'schemaJson5'],
] as const;

/**
 * A write that supplies one twin of a top-level pair replaces the pair: the other twin, whether a
 * default or the stored value, is cleared so it is derived again (plain from JSON5) or dropped
 * (stale JSON5 text), instead of being checked against the new value.
 */
export function withSuppliedTwins(config: Json, supplied: Json | undefined): Json {
  if (!supplied) return config;
  const out = { ...config };
  for (const [plain, json5] of TOP_LEVEL_TWINS) {
    if (typeof supplied[json5] === 'string' && supplied[plain] === undefined) out[plain] = null;
    else if (supplied[plain] !== undefined && supplied[json5] === undefined) out[json5] = null;
  }
  return out;
}

/**
 * Fills the plain twin from the JSON5 one so stored entities always carry the JSON value. JSON5
 * that does not parse is left for `dynamicConfigRuleErrors` to report with its property path.
 */
export function withDerivedJson(config: Json): Json {
  const fill = (target: Json, plainKey: string, json5Key: string, stringify: boolean): Json => {
    const json5 = target[json5Key];
    if (typeof json5 === 'string' && (target[plainKey] === undefined || target[plainKey] === null)) {
      let parsed: unknown;
      try {
        parsed = JSON5.parse(json5);
      } catch {
        return target;
      }
      return { ...target, [plainKey]: stringify ? JSON.stringify(parsed) : parsed };
    }
    return target;
  };
  let out = fill(config, 'defaultValue', 'defaultValueJson5', false);
  out = fill(out, 'schema', 'schemaJson5', true);
  if (Array.isArray(out['rules'])) {
    out = {
      ...out,
      rules: (out['rules'] as Json[]).map((rule) => {
        const r = fill(rule, 'returnValue', 'returnValueJson5', false);
        return Array.isArray(r['variants']) ? { ...r, variants: (r['variants'] as Json[]).map((v) => fill(v, 'returnValue', 'returnValueJson5', false)) } : r;
      }),
    };
  }
  return out;
}
