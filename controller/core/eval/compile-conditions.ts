import type { JsonObject } from '../repo-entity.js';
import type { SpecCondition } from './config-spec-types.js';
import { SUPPORTED_OPERATORS } from './operators.js';
import { gateSpecName, segmentSpecName } from './spec-names.js';
import { isPlainObject } from '../is-plain-object.js';

/**
 * The console's condition vocabulary translated to the one the Statsig server SDKs evaluate, as
 * Statsig's own server compiles it: user attributes become `user_field` (or `ip_based` / `ua_based`
 * where the SDK derives the value from the IP or the user agent when the user lacks it), gates and
 * segments become `pass_gate` / `fail_gate` on the compiled gate.
 */
const USER_FIELDS: Readonly<Record<string, { type: string; field: string }>> = {
  user_id: { type: 'user_field', field: 'userID' },
  email: { type: 'user_field', field: 'email' },
  ip_address: { type: 'user_field', field: 'ip' },
  app_version: { type: 'user_field', field: 'appVersion' },
  locale: { type: 'user_field', field: 'locale' },
  device_model: { type: 'user_field', field: 'device_model' },
  country: { type: 'ip_based', field: 'country' },
  browser_name: { type: 'ua_based', field: 'browser_name' },
  browser_version: { type: 'ua_based', field: 'browser_version' },
  os_name: { type: 'ua_based', field: 'os_name' },
  os_version: { type: 'ua_based', field: 'os_version' },
};

/**
 * Operators `statsig-node` evaluates (Evaluator._evalCondition); any other makes it report the rule
 * unsupported. The engine evaluates exactly these, so the list lives with it.
 */
export const SDK_OPERATORS: ReadonlySet<string> = SUPPORTED_OPERATORS;

/** Operators that compare the value with each item of a list: a single target is a list of one. */
const LIST_OPERATORS: ReadonlySet<string> = new Set([
  'any', 'none', 'any_case_sensitive', 'none_case_sensitive',
  'str_starts_with_any', 'str_ends_with_any', 'str_contains_any', 'str_contains_none',
  'array_contains_any', 'array_contains_none', 'array_contains_all', 'not_array_contains_all',
]);

/**
 * The prefix of a condition type the SDK must not evaluate: the SDK answers a rule holding one as
 * unsupported (its `default` branch), which is what flagops wants for a condition it cannot
 * translate faithfully, never a guess. The console's own type follows the prefix.
 */
export const UNSUPPORTED_PREFIX = 'unsupported:';

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]);

/** A list operator takes a list; the others take one value (the first of a list of one). */
function targetFor(operator: string | null, value: unknown): unknown {
  if (operator !== null && LIST_OPERATORS.has(operator)) return asList(value);
  if (Array.isArray(value) && value.length === 1) return value[0];
  return value ?? null;
}

const condition = (c: Partial<SpecCondition> & Pick<SpecCondition, 'type' | 'idType'>): SpecCondition => ({
  targetValue: null,
  operator: null,
  field: null,
  additionalValues: {},
  ...c,
});

function unsupported(source: JsonObject, idType: string): SpecCondition {
  return condition({
    type: `${UNSUPPORTED_PREFIX}${String(source['type'])}`,
    targetValue: source['targetValue'] ?? null,
    operator: typeof source['operator'] === 'string' ? source['operator'] : null,
    field: typeof source['field'] === 'string' ? source['field'] : null,
    idType,
  });
}

/** pass_gate / fail_gate on one compiled gate, multi_pass_gate / multi_fail_gate (any of them) on several. */
function gateCondition(passes: boolean, names: string[], idType: string): SpecCondition {
  if (names.length === 1) return condition({ type: passes ? 'pass_gate' : 'fail_gate', targetValue: names[0], idType });
  return condition({ type: passes ? 'multi_pass_gate' : 'multi_fail_gate', targetValue: names, idType });
}

/**
 * One console condition in the SDK's terms. `idType` is the entity's unit type (a `unit_id`
 * condition without `customID` reads it). A condition flagops can't translate faithfully (an
 * unknown type, an operator the SDK lacks, no operator where one is needed, an empty gate list)
 * comes out with an unsupported type.
 */
export function compileCondition(source: JsonObject, idType: string): SpecCondition {
  const type = typeof source['type'] === 'string' ? source['type'] : '';
  const rawOperator = typeof source['operator'] === 'string' && source['operator'] !== '' ? source['operator'].toLowerCase() : null;
  const target = source['targetValue'];
  const customID = typeof source['customID'] === 'string' && source['customID'] !== '' ? source['customID'] : null;

  if (type === 'public') return condition({ type: 'public', idType });

  const refs = { passes_gate: gateSpecName, fails_gate: gateSpecName, passes_segment: segmentSpecName, fails_segment: segmentSpecName } as const;
  if (type in refs) {
    const names = asList(target).filter((v): v is string => typeof v === 'string' && v !== '');
    if (names.length === 0) return unsupported(source, idType);
    const toName = refs[type as keyof typeof refs];
    return gateCondition(type.startsWith('passes_'), names.map(toName), idType);
  }

  // Every other type compares a value with an operator the SDK must know.
  if (rawOperator === null || !SDK_OPERATORS.has(rawOperator)) return unsupported(source, idType);
  const operator = rawOperator;
  const targetValue = targetFor(operator, target);

  const userField = USER_FIELDS[type];
  if (userField !== undefined) return condition({ type: userField.type, field: userField.field, operator, targetValue, idType });
  switch (type) {
    case 'custom_field': {
      const field = typeof source['field'] === 'string' && source['field'] !== '' ? source['field'] : null;
      if (field === null) return unsupported(source, idType);
      return condition({ type: 'user_field', field, operator, targetValue, idType });
    }
    case 'unit_id':
      return condition({ type: 'unit_id', operator, targetValue, idType: customID ?? idType });
    case 'environment_tier':
      return condition({ type: 'environment_field', field: 'tier', operator, targetValue, idType });
    case 'time':
      return condition({ type: 'current_time', operator, targetValue, idType });
    case 'target_app':
      return condition({ type: 'target_app', operator, targetValue, idType });
    default:
      return unsupported(source, idType);
  }
}

/** Conditions of a console rule, in order. */
export function compileConditions(conditions: unknown, idType: string): SpecCondition[] {
  return asList(conditions)
    .filter(isPlainObject)
    .map((c) => compileCondition(c, idType));
}
