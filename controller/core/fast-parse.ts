/**
 * A fast path in front of zod for input that is clean, derived from the zod schema itself: a parser
 * compiled once per schema from its definition, that answers only when it is sure — the value is
 * valid and the answer is exactly zod's output (same values, same key order) — and otherwise says
 * so, and the caller runs zod, which stays the one source of every error message. Any construct it
 * does not know (a transform, a refinement other than the JSON values' finiteness, a default to fill
 * in, a key to strip, a union whose options overlap) makes it give way to zod.
 *
 * It reads zod's internal definitions, which zod does not promise to keep: package.json pins zod to
 * one exact version, and reconcile/fast-parse-zod-internals.test.ts asserts every shape read here.
 * Its gain is in docs/internals-fast-paths.md.
 */
import { z } from 'zod';
import { NON_FINITE_CHECKS, nonFiniteNumberPaths } from '../../schemas/json-value.js';
import { isPlainObject } from './is-plain-object.js';
import { UNSURE } from './unsure.js';

export { UNSURE } from './unsure.js';

type Parser = (value: unknown) => unknown;

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  options?: Schema[];
  keyType?: Schema;
  valueType?: Schema;
  entries?: Record<string, unknown>;
  values?: unknown[];
  coerce?: boolean;
  check?: string;
  format?: string;
}

interface CheckDef {
  check: string;
  when?: unknown;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

type Schema = { _zod: { def: Def } } | z.ZodType;

const defOf = (schema: Schema): Def => (schema as { _zod: { def: Def } })._zod.def;

/** zod's own condition on length checks ("the value has a length"): already true once the type is checked. */
const HAS_LENGTH = (defOf(z.string().min(1)).checks?.[0]?._zod.def.when ?? null) as unknown;

const never: Parser = () => UNSURE;

/** A check of a string, number or array, or undefined when zod must run it. */
function checkOf(check: { _zod: { def: CheckDef } }): ((value: never) => boolean) | undefined {
  if (NON_FINITE_CHECKS.has(check)) return (value: unknown) => nonFiniteNumberPaths(value).length === 0;
  const def = check._zod.def;
  if (def.when !== undefined && def.when !== HAS_LENGTH) return undefined;
  const { minimum, maximum, length, value: bound, pattern } = def;
  switch (def.check) {
    case 'min_length':
      return minimum === undefined ? undefined : (v: string | unknown[]) => v.length >= minimum;
    case 'max_length':
      return maximum === undefined ? undefined : (v: string | unknown[]) => v.length <= maximum;
    case 'length_equals':
      return length === undefined ? undefined : (v: string | unknown[]) => v.length === length;
    case 'greater_than':
      return typeof bound !== 'number' ? undefined : def.inclusive ? (v: number) => v >= bound : (v: number) => v > bound;
    case 'less_than':
      return typeof bound !== 'number' ? undefined : def.inclusive ? (v: number) => v <= bound : (v: number) => v < bound;
    case 'number_format':
      return def.format === 'safeint' ? (v: number) => Number.isSafeInteger(v) : undefined;
    case 'string_format':
      if (def.format !== 'regex' || !(pattern instanceof RegExp)) return undefined;
      return (v: string) => {
        pattern.lastIndex = 0;
        return pattern.test(v);
      };
    default:
      return undefined;
  }
}

/** All of a schema's checks as one, or undefined when any of them is zod's to run. */
function checksOf(def: Def): ((value: never) => boolean) | null | undefined {
  const checks = (def.checks ?? []).map(checkOf);
  if (checks.some((c) => c === undefined)) return undefined;
  if (checks.length === 0) return null;
  return (value: never) => {
    for (const check of checks) if (!(check as (v: never) => boolean)(value)) return false;
    return true;
  };
}

/** The JavaScript types a schema can accept, for telling a union's options apart (undefined: any). */
function baseTypes(schema: Schema): Set<string> | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return new Set([def.type]);
    case 'array':
      return new Set(['array']);
    case 'object':
    case 'record':
      return new Set(['object']);
    case 'null':
      return new Set(['null']);
    case 'nullable': {
      const inner = def.innerType && baseTypes(def.innerType);
      return inner && new Set([...inner, 'null']);
    }
    default:
      return undefined;
  }
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

const parsers = new WeakMap<object, Parser>();

/** The fast parser of a schema: zod's output for a valid value it is sure of, else UNSURE. */
export function fastParser(schema: Schema): Parser {
  let parser = parsers.get(schema);
  if (parser === undefined) {
    // Set before compiling: a recursive schema meets itself and calls through the map.
    parsers.set(schema, (value) => (parsers.get(schema) as Parser)(value));
    parser = compile(defOf(schema));
    parsers.set(schema, parser);
  }
  return parser;
}

function compile(def: Def): Parser {
  // A schema that is itself a check (z.email(), z.url(), z.int()) checks what only zod knows,
  // except the safe integer of z.int().
  const selfCheck = def.check !== undefined || def.format !== undefined;
  if (def.coerce || (selfCheck && !(def.type === 'number' && def.check === 'number_format' && def.format === 'safeint'))) return never;
  const whole = selfCheck ? (v: number): boolean => Number.isSafeInteger(v) : (): boolean => true;
  const checks = checksOf(def);
  if (checks === undefined) return never;
  const passes = checks ?? ((): boolean => true);
  switch (def.type) {
    case 'string':
      return (v) => (typeof v === 'string' && passes(v as never) ? v : UNSURE);
    case 'number':
      return (v) => (typeof v === 'number' && Number.isFinite(v) && whole(v) && passes(v as never) ? v : UNSURE);
    case 'boolean':
      return (v) => (typeof v === 'boolean' && passes(v as never) ? v : UNSURE);
    case 'null':
      return (v) => (v === null ? v : UNSURE);
    case 'unknown':
    case 'any':
      return (v) => (passes(v as never) ? v : UNSURE);
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      // A numeric (TypeScript) enum maps names back to numbers: which of those zod takes is its business.
      if ([...values].some((v) => typeof v !== 'string')) return never;
      return (v) => (values.has(v) ? v : UNSURE);
    }
    case 'literal': {
      const values = new Set(def.values ?? []);
      return (v) => (values.has(v) ? v : UNSURE);
    }
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default': {
      if (!def.innerType || checks !== null) return never;
      const inner = fastParser(def.innerType);
      if (def.type === 'nullable') return (v) => (v === null ? v : inner(v));
      // Undefined here (absent keys are the object's business): a default to fill in, a required
      // value missing, an optional wrapping a default: zod decides.
      return (v) => (v === undefined ? UNSURE : inner(v));
    }
    case 'array': {
      if (!def.element) return never;
      const element = fastParser(def.element);
      return (v) => {
        if (!Array.isArray(v) || !passes(v as never)) return UNSURE;
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          const item = element(v[i]);
          if (item === UNSURE) return UNSURE;
          out[i] = item;
        }
        return out;
      };
    }
    case 'record': {
      if (!def.keyType || !def.valueType || defOf(def.keyType).type !== 'string') return never;
      const key = fastParser(def.keyType);
      const value = fastParser(def.valueType);
      return (v) => {
        if (!isPlainObject(v) || !passes(v as never)) return UNSURE;
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) {
          // `__proto__` as a key of the output would set its prototype: zod's business.
          if (k === '__proto__' || key(k) === UNSURE) return UNSURE;
          const item = value(v[k]);
          if (item === UNSURE) return UNSURE;
          out[k] = item;
        }
        return out;
      };
    }
    case 'object':
      return compileObject(def, passes);
    case 'union': {
      // Only options that accept disjoint JavaScript types: then the one option that can take a
      // value is the one zod's union answers with.
      const options = def.options ?? [];
      const types = options.map(baseTypes);
      const seen = new Set<string>();
      for (const set of types) {
        if (set === undefined) return never;
        for (const t of set) {
          if (seen.has(t)) return never;
          seen.add(t);
        }
      }
      const byType = new Map<string, Parser>();
      options.forEach((option, i) => {
        for (const t of types[i] as Set<string>) byType.set(t, fastParser(option));
      });
      return (v) => {
        const option = byType.get(typeOf(v));
        if (option === undefined || !passes(v as never)) return UNSURE;
        return option(v);
      };
    }
    default:
      return never;
  }
}

/**
 * A strict object (unknown keys are errors) or a plain one (zod strips them: the fast path gives
 * way). The answer has the shape's keys in the shape's order, as zod builds it; an absent key is
 * left out where zod leaves it out (a field optional in and out); anything else absent — a default,
 * a required field — is zod's to fill in or report.
 */
function compileObject(def: Def, passes: (value: never) => boolean): Parser {
  const shape = def.shape ?? {};
  const strict = def.catchall !== undefined && defOf(def.catchall).type === 'never';
  if (def.catchall !== undefined && !strict) return never;
  // zod asks `key in input`: a key objects inherit would be present for it and absent here.
  if (Object.keys(shape).some((key) => key in Object.prototype || key === '__proto__')) return never;
  const fields = Object.entries(shape).map(([key, schema]) => {
    const internals = (schema as { _zod: { optin?: string; optout?: string } })._zod;
    return { key, parse: fastParser(schema), omittable: internals.optin === 'optional' && internals.optout === 'optional' };
  });
  // Compiled with the field names as literals (see normalize.ts pickerOf): each read is a named
  // property load with an inline cache of its own, instead of one keyed load shared by every field
  // of every schema (1.75 times faster than a loop over the fields: docs/internals-fast-paths.md).
  // Keys enter the code only as JSON string literals.
  const lines = fields.map((field, i) => {
    const key = JSON.stringify(field.key);
    // Absent where zod adds nothing, or zod's to decide (an own undefined included).
    const absent = field.omittable ? `if (hasOwn(v, ${key})) return UNSURE;` : 'return UNSURE;';
    return `value = v[${key}]; if (value === undefined) { ${absent} } else { present++; parsed = p[${i}](value); if (parsed === UNSURE) return UNSURE; out[${key}] = parsed; }`;
  });
  const make = new Function(
    'p',
    'passes',
    'isPlainObject',
    'hasOwn',
    'UNSURE',
    `return function parseObject(v) {
      if (!isPlainObject(v) || !passes(v)) return UNSURE;
      let present = 0, value, parsed;
      const out = {};
      ${lines.join('\n')}
      // Any other own key is one the schema does not know.
      for (const key in v) if (hasOwn(v, key)) present--;
      return present === 0 ? out : UNSURE;
    };`,
  ) as (p: Parser[], passes: (value: never) => boolean, isObject: typeof isPlainObject, hasOwn: (o: object, key: PropertyKey) => boolean, unsure: typeof UNSURE) => Parser;
  return make(
    fields.map((f) => f.parse),
    passes,
    isPlainObject,
    Object.hasOwn,
    UNSURE,
  );
}
