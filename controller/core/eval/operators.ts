/**
 * The Statsig SDK's condition operators, with the SDK's exact coercions (loose `==` for `eq`,
 * `Number()` for numbers, lower-cased strings for the case-insensitive ones, dates as ISO strings or
 * unix seconds/milliseconds). `evaluate-spec.ts` finds the value; this decides the comparison.
 */

/** What an operator returns when it is not one the SDK knows: the rule is then unsupported. */
export const UNSUPPORTED_OPERATOR = Symbol('unsupported operator');

/** The operators the engine evaluates (lower-case, as the SDK compares them). */
export const SUPPORTED_OPERATORS: ReadonlySet<string> = new Set([
  'gt', 'gte', 'lt', 'lte',
  'version_gt', 'version_gte', 'version_lt', 'version_lte', 'version_eq', 'version_neq',
  'any', 'none', 'any_case_sensitive', 'none_case_sensitive',
  'str_starts_with_any', 'str_ends_with_any', 'str_contains_any', 'str_contains_none', 'str_matches',
  'eq', 'neq', 'before', 'after', 'on',
  'in_segment_list', 'not_in_segment_list',
  'array_contains_any', 'array_contains_none', 'array_contains_all', 'not_array_contains_all',
]);

/** A condition's operator and target, prepared once per spec (sets and patterns built ahead). */
export interface PreparedOperator {
  op: string | undefined;
  target: unknown;
  /** As the SDK builds it: only for an array target and the exact-case operator names. */
  targetSet: Set<string> | null;
  /** `str_matches`: the compiled pattern, or null when the pattern does not compile (never matches). */
  pattern: RegExp | null;
  /** An array target's items as the case-insensitive operators compare them: text, lower-cased, nulls left out. */
  lowerTargets: readonly string[] | null;
}

export function prepareOperator(operator: string | null | undefined, target: unknown): PreparedOperator {
  let targetSet: Set<string> | null = null;
  if ((operator === 'any' || operator === 'none') && Array.isArray(target)) {
    targetSet = new Set();
    for (const v of target) {
      targetSet.add(String(v));
      targetSet.add(String(v).toLowerCase());
    }
  }
  if ((operator === 'any_case_sensitive' || operator === 'none_case_sensitive') && Array.isArray(target)) {
    targetSet = new Set(target.map((v) => String(v)));
  }
  const op = operator?.toLowerCase();
  let pattern: RegExp | null = null;
  if (op === 'str_matches') {
    try {
      pattern = new RegExp(target as string);
    } catch {
      pattern = null;
    }
  }
  const lowerTargets = Array.isArray(target) ? target.filter((t) => t != null).map((t) => String(t).toLowerCase()) : null;
  return { op, target, targetSet, pattern, lowerTargets };
}

/** Whether `op` is an `in_segment_list`-style operator, whose target is an id list's name. */
export function isIdListOperator(op: string | undefined): boolean {
  return op === 'in_segment_list' || op === 'not_in_segment_list';
}

function numberCompare(a: unknown, b: unknown, fn: (x: number, y: number) => boolean): boolean {
  if (a == null || b == null) return false;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  return fn(x, y);
}

/** -1, 0 or 1 comparing dotted versions without their `-suffix`; null when either is not a version. */
export function versionCompare(first: unknown, second: unknown): number | null {
  if (typeof first !== 'string' || typeof second !== 'string') return null;
  const v1 = stripExtension(first);
  const v2 = stripExtension(second);
  if (v1.length === 0 || v2.length === 0) return null;
  const p1 = v1.split('.');
  const p2 = v2.split('.');
  const n = Math.max(p1.length, p2.length);
  for (let i = 0; i < n; i++) {
    const n1 = Number(p1[i] ?? '0');
    const n2 = Number(p2[i] ?? '0');
    if (Number.isNaN(n1) || Number.isNaN(n2)) return null;
    if (n1 < n2) return -1;
    if (n1 > n2) return 1;
  }
  return 0;
}

function stripExtension(version: string): string {
  const hyphen = version.indexOf('-');
  return hyphen >= 0 ? version.slice(0, hyphen) : version;
}

function versionHelper(a: unknown, b: unknown, fn: (c: number) => boolean): boolean {
  const c = versionCompare(a, b);
  return c === null ? false : fn(c);
}

function anyString(value: unknown, p: PreparedOperator, ignoreCase: boolean, fn: (a: string, b: string) => boolean): boolean {
  if (!Array.isArray(p.target) || p.lowerTargets === null) return false;
  if (value == null) return false;
  if (ignoreCase) {
    const a = String(value).toLowerCase();
    for (const b of p.lowerTargets) if (fn(a, b)) return true;
    return false;
  }
  const a = String(value);
  for (const t of p.target) {
    if (t == null) continue;
    if (fn(a, String(t))) return true;
  }
  return false;
}

// One function each, not a closure made at every comparison.
const equals = (a: string, b: string): boolean => a === b;
const startsWith = (a: string, b: string): boolean => a.startsWith(b);
const endsWith = (a: string, b: string): boolean => a.endsWith(b);
const contains = (a: string, b: string): boolean => a.includes(b);

function timeInMs(time: unknown): number {
  let n = Number(time);
  if (Number.isNaN(n)) return Number.NaN;
  // Unix seconds, as the SDK reads them.
  if (n < 10000000000) n *= 1000;
  return n;
}

function toDate(v: unknown): Date {
  if (typeof v === 'string') {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? new Date(timeInMs(v)) : d;
  }
  return new Date(timeInMs(v));
}

function dateCompare(a: unknown, b: unknown, fn: (x: Date, y: Date) => boolean): boolean {
  if (a == null || b == null) return false;
  try {
    const x = toDate(a);
    const y = toDate(b);
    return !Number.isNaN(x.getTime()) && !Number.isNaN(y.getTime()) && fn(x, y);
  } catch {
    return false;
  }
}

function sameDay(x: Date, y: Date): boolean {
  // The SDK compares calendar days in the process's local time zone.
  x.setHours(0, 0, 0, 0);
  y.setHours(0, 0, 0, 0);
  return x.getTime() === y.getTime();
}

function arrayHas(value: unknown[], target: unknown[], all: boolean): boolean {
  const set = new Set<unknown>(value);
  for (const t of target) {
    const hit = set.has(t) || set.has(parseInt(t as string));
    if (all && !hit) return false;
    if (!all && hit) return true;
  }
  return all;
}

/**
 * Applies a prepared operator to the user's value. `inIdList` answers id-list membership for the
 * `*_segment_list` operators (false when the list is unknown, as in the SDK).
 */
export function applyOperator(
  p: PreparedOperator,
  value: unknown,
  inIdList: (listName: string, unitID: string) => boolean,
): boolean | typeof UNSUPPORTED_OPERATOR {
  const target = p.target;
  switch (p.op) {
    case 'gt': return numberCompare(value, target, (a, b) => a > b);
    case 'gte': return numberCompare(value, target, (a, b) => a >= b);
    case 'lt': return numberCompare(value, target, (a, b) => a < b);
    case 'lte': return numberCompare(value, target, (a, b) => a <= b);
    case 'version_gt': return versionHelper(value, target, (c) => c > 0);
    case 'version_gte': return versionHelper(value, target, (c) => c >= 0);
    case 'version_lt': return versionHelper(value, target, (c) => c < 0);
    case 'version_lte': return versionHelper(value, target, (c) => c <= 0);
    case 'version_eq': return versionHelper(value, target, (c) => c === 0);
    case 'version_neq': return versionHelper(value, target, (c) => c !== 0);
    case 'any':
      if (p.targetSet) return p.targetSet.has(String(value)) || p.targetSet.has(String(value).toLowerCase());
      return anyString(value, p, true, equals);
    case 'none':
      if (p.targetSet) return !p.targetSet.has(String(value)) && !p.targetSet.has(String(value).toLowerCase());
      return !anyString(value, p, true, equals);
    case 'any_case_sensitive':
      if (p.targetSet) return p.targetSet.has(String(value));
      return anyString(value, p, false, equals);
    case 'none_case_sensitive':
      if (p.targetSet) return !p.targetSet.has(String(value));
      return !anyString(value, p, false, equals);
    case 'str_starts_with_any': return anyString(value, p, true, startsWith);
    case 'str_ends_with_any': return anyString(value, p, true, endsWith);
    case 'str_contains_any': return anyString(value, p, true, contains);
    case 'str_contains_none': return !anyString(value, p, true, contains);
    case 'str_matches': {
      const s = String(value);
      // The SDK's guard against pathological inputs.
      if (s.length >= 1000 || p.pattern === null) return false;
      return p.pattern.test(s);
    }
    // The SDK compares loosely on purpose ("5" equals 5).
    case 'eq': return value == target;
    case 'neq': return value != target;
    case 'before': return dateCompare(value, target, (a, b) => a < b);
    case 'after': return dateCompare(value, target, (a, b) => a > b);
    case 'on': return dateCompare(value, target, sameDay);
    case 'in_segment_list':
    case 'not_in_segment_list': {
      const inList = typeof value === 'string' && inIdList(String(target), value);
      return p.op === 'in_segment_list' ? inList : !inList;
    }
    case 'array_contains_any':
      if (!Array.isArray(target) || !Array.isArray(value)) return false;
      return arrayHas(value, target, false);
    case 'array_contains_none':
      if (!Array.isArray(target) || !Array.isArray(value)) return false;
      return !arrayHas(value, target, false);
    case 'array_contains_all':
      if (!Array.isArray(target) || !Array.isArray(value)) return false;
      return arrayHas(value, target, true);
    case 'not_array_contains_all':
      if (!Array.isArray(target) || !Array.isArray(value)) return false;
      return !arrayHas(value, target, true);
    default:
      return UNSUPPORTED_OPERATOR;
  }
}
