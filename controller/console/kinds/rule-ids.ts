import type { JsonObject } from '../../store/ports.js';
import { ruleIdFromName } from '../../core/rule-id.js';
import { randomBase64url } from '../random-token.js';

export function newRuleId(): string {
  return randomBase64url(12);
}

/**
 * Gives every rule (and variant) an id. A rule without an id keeps the id of the previous rule with
 * the same name, so a client that never sends ids (a YAML file) doesn't churn them on every update;
 * a new one gets the id its name derives (what evaluation from files uses too), else a random one.
 */
export function withRuleIds(rules: unknown, previousRules: unknown, nested?: string): JsonObject[] {
  if (!Array.isArray(rules)) return [];
  const previous = Array.isArray(previousRules) ? (previousRules as JsonObject[]) : [];
  // An id a rule states explicitly, or one already handed out, is not inherited by another rule:
  // duplicate ids are then only the client's own.
  const taken = new Set((rules as JsonObject[]).map((r) => r['id']).filter((id) => typeof id === 'string'));
  return (rules as JsonObject[]).map((rule) => {
    const match = previous.find((p) => (rule['id'] !== undefined ? p['id'] === rule['id'] : p['name'] === rule['name']));
    const claimed = rule['id'] === undefined && typeof match?.['id'] === 'string' && taken.has(match['id']);
    const before = claimed ? undefined : match;
    const derived = typeof rule['name'] === 'string' ? ruleIdFromName(rule['name']) : undefined;
    const id = typeof rule['id'] === 'string' ? rule['id'] : typeof before?.['id'] === 'string' ? before['id'] : derived !== undefined && !taken.has(derived) ? derived : newRuleId();
    taken.add(id);
    const out: JsonObject = { ...rule, id, baseID: rule['baseID'] ?? before?.['baseID'] ?? id };
    if (nested !== undefined && Array.isArray(rule[nested])) out[nested] = withRuleIds(rule[nested], before?.[nested]).map(({ baseID: _b, ...v }) => v);
    return out;
  });
}
