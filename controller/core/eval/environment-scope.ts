import type { SpecCondition } from './config-spec-types.js';

/**
 * Which environment compiled specs are for. A key limited to one environment fixes it: rules of
 * other environments are left out and the rest carry no environment condition. Otherwise the
 * evaluating side names it (the SDK's `environment: { tier }` option): rules limited to
 * environments get an `environment_field` condition on `tier`, as Statsig compiles them, narrowed
 * to the key's environments when it lists several. A unit evaluated without an environment then
 * gets no rule limited to environments.
 */
export type EnvironmentScope = { fixed: string } | { fixed: null; allowed: readonly string[] | null };

/** The scope of an SDK key with these environments. */
export function environmentScope(keyEnvironments: readonly string[]): EnvironmentScope {
  if (keyEnvironments.length === 1) return { fixed: keyEnvironments[0] as string };
  return { fixed: null, allowed: keyEnvironments.length === 0 ? null : keyEnvironments };
}

/**
 * What a rule (or override) limited to `environments` becomes in a scope: left out (`undefined`),
 * or kept with the conditions to add (none when it applies throughout the scope).
 */
export function environmentConditions(environments: unknown, scope: EnvironmentScope, idType: string): SpecCondition[] | undefined {
  // null, absent or empty: every environment (as the console reads a rule's `environments`).
  const listed = Array.isArray(environments) ? environments.filter((e): e is string => typeof e === 'string') : [];
  const limited = listed.length === 0 ? null : listed;
  if (scope.fixed !== null) return limited === null || limited.includes(scope.fixed) ? [] : undefined;
  if (limited === null) return [];
  const targets = scope.allowed === null ? limited : limited.filter((e) => scope.allowed?.includes(e));
  if (targets.length === 0) return undefined;
  return [tierCondition('any', targets, idType)];
}

export function tierCondition(operator: string, targets: string[], idType: string): SpecCondition {
  return { type: 'environment_field', field: 'tier', operator, targetValue: targets, additionalValues: {}, idType };
}
