import type { JsonObject } from '../repo-entity.js';
import { compileCondition, UNSUPPORTED_PREFIX } from './compile-conditions.js';
import { isPlainObject } from '../is-plain-object.js';

/**
 * Conditions the evaluation engine cannot evaluate, by property path: the console stores them (the
 * condition vocabulary is open), but every evaluation that reaches their rule reports it
 * unsupported instead of guessing. `flagops validate` warns about each.
 */
const RULE_LISTS: Readonly<Record<string, readonly string[]>> = {
  gate: ['rules'],
  segment: ['rules'],
  dynamic_config: ['rules'],
  experiment: ['inlineTargetingRules'],
};

export interface UnevaluableCondition {
  property: string;
  message: string;
}

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

export function unevaluableConditions(kind: string, entity: JsonObject): UnevaluableCondition[] {
  const out: UnevaluableCondition[] = [];
  const idType = typeof entity['idType'] === 'string' ? entity['idType'] : 'userID';
  for (const list of RULE_LISTS[kind] ?? []) {
    const rules = Array.isArray(entity[list]) ? (entity[list] as unknown[]) : [];
    rules.forEach((rule, i) => {
      if (typeof rule !== 'object' || rule === null) return;
      const conditions = (rule as JsonObject)['conditions'];
      if (!Array.isArray(conditions)) return;
      conditions.forEach((c, j) => {
        if (!objects([c]).length) return;
        const compiled = compileCondition(c as JsonObject, idType);
        if (!compiled.type.startsWith(UNSUPPORTED_PREFIX)) return;
        const source = c as JsonObject;
        const operator = typeof source['operator'] === 'string' ? ` with operator '${source['operator']}'` : '';
        out.push({
          property: `${list}[${i}].conditions[${j}].type`,
          message: `the evaluation engine cannot evaluate a '${String(source['type'])}' condition${operator}: the console stores it, but evaluations report this rule unsupported (OFREP answers an error, the Statsig SDKs false or {})`,
        });
      });
    });
  }
  return out;
}
