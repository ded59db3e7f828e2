import type { RuleRequestSchemas } from '../../../schemas/rule-requests.js';
import { ConflictError, InputError, NotFoundError, type FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { labelInSentence, type ActionDef, type ViewDef } from './kind-def.js';

/** What the rules sub-resource needs to know of a kind with rules (gates, dynamic configs). */
export interface RuleKind {
  /** The kind's label, as in "Gate not found.". */
  label: string;
  schemas: RuleRequestSchemas;
  /** The kind's own rule checks beyond zod (unique names and ids, return values against the schema). */
  validate: (entity: JsonObject) => FieldError[];
}

/**
 * Plain value and JSON5 text of the same value: a rule change that supplies one replaces the pair,
 * so the stored other twin is derived again or dropped instead of contradicting the new value.
 */
const TWINS = [['returnValue', 'returnValueJson5']] as const;

const rulesOf = (entity: JsonObject): JsonObject[] => (Array.isArray(entity['rules']) ? (entity['rules'] as JsonObject[]) : []);

function merged(rule: JsonObject, change: JsonObject): JsonObject {
  const out: JsonObject = { ...rule, ...change };
  for (const [plain, json5] of TWINS) {
    if (change[plain] !== undefined && change[json5] === undefined) delete out[json5];
    else if (change[json5] !== undefined && change[plain] === undefined) delete out[plain];
  }
  return out;
}

/**
 * A rule of the request that collides with a rule it leaves alone conflicts with the entity's
 * current state (409); collisions among the request's own rules are invalid input, which the
 * kind's validation reports.
 */
function assertNoConflict(kind: RuleKind, entity: JsonObject, rules: readonly JsonObject[], touched: ReadonlySet<number>): void {
  const owner = `${kind.label} ${String(entity['id'])}`;
  rules.forEach((rule, t) => {
    if (!touched.has(t)) return;
    rules.forEach((other, u) => {
      if (touched.has(u)) return;
      if (other['name'] === rule['name']) throw new ConflictError(`${owner} already has a rule named '${String(rule['name'])}' (id ${String(other['id'])}).`);
      if (rule['id'] !== undefined && other['id'] === rule['id']) throw new ConflictError(`${owner} already has a rule with id '${String(rule['id'])}'.`);
    });
  });
}

/**
 * Runs the kind's rule checks on the entity after the change and names each error by the request
 * property it came from: `rules[k]` of the entity becomes `rules[j]` of the body, or the body itself
 * for a one-rule write. Throws when any error remains.
 */
function assertValid(kind: RuleKind, entity: JsonObject, toBody: ReadonlyMap<number, string>): void {
  const rename = (text: string): string =>
    text.replace(/rules\[(\d+)\](\.)?/g, (whole, index: string, dot: string | undefined) => {
      const prefix = toBody.get(Number(index));
      if (prefix === undefined) return whole;
      return prefix === '' ? '' : `${prefix}${dot ?? ''}`;
    });
  const errors = kind.validate(entity).map((e) => ({ property: rename(e.property) || '(body)', errorMessage: rename(e.errorMessage) }));
  if (errors.length > 0) throw new InputError(`Invalid ${labelInSentence(kind.label)} rule.`, errors);
}

function indexOfRule(kind: RuleKind, entity: JsonObject, ruleID: string): number {
  const index = rulesOf(entity).findIndex((r) => r['id'] === ruleID);
  if (index < 0) throw new NotFoundError(`Rule ${ruleID} not found in ${labelInSentence(kind.label)} ${String(entity['id'])}.`);
  return index;
}

/**
 * The entity with changes merged into the rules at the given indexes, checked for clashes with the
 * rules left alone and by the kind's rules, errors named by `property` (the body path of each change).
 */
function withRuleChanges(kind: RuleKind, entity: JsonObject, changes: ReadonlyMap<number, { change: JsonObject; property: string }>): JsonObject {
  const rules = [...rulesOf(entity)];
  for (const [k, { change }] of changes) rules[k] = merged(rules[k] ?? {}, change);
  assertNoConflict(kind, entity, rules, new Set(changes.keys()));
  const after = { ...entity, rules };
  assertValid(kind, after, new Map([...changes].map(([k, { property }]) => [k, property])));
  return after;
}

/**
 * The rules sub-resource of a kind: `GET|POST|PATCH /{kind}/{id}/rules` and
 * `PATCH|DELETE /{kind}/{id}/rules/{ruleID}`. Every write is an entity write like a PATCH of `rules`
 * (version, audit, review gate, If-Match); new rules get their ids when the kind prepares the entity.
 */
export function ruleSubresource(kind: RuleKind): { actions: Record<string, ActionDef>; views: Record<string, ViewDef> } {
  const name = labelInSentence(kind.label);
  const updated = `${kind.label} updated successfully.`;
  return {
    actions: {
      add_rules: {
        method: 'POST',
        path: 'rules',
        summary: `Add rules to a ${name}`,
        done: 'updated',
        message: `${kind.label} rules added successfully.`,
        body: kind.schemas.add,
        apply: (entity, body) => {
          const existing = rulesOf(entity);
          const added = (body as { rules: JsonObject[] }).rules;
          const rules = [...existing, ...added];
          const n = existing.length;
          assertNoConflict(kind, entity, rules, new Set(added.map((_, i) => n + i)));
          const after = { ...entity, rules };
          assertValid(kind, after, new Map(added.map((_, i) => [n + i, `rules[${i}]`])));
          return after;
        },
      },
      update_rules: {
        method: 'PATCH',
        path: 'rules',
        summary: `Update rules of a ${name}, named by id`,
        done: 'updated',
        message: updated,
        body: kind.schemas.updateMany,
        apply: (entity, body) => {
          const changes = (body as { rules: (JsonObject & { id: string })[] }).rules;
          const byIndex = new Map<number, { change: JsonObject; property: string }>();
          changes.forEach((change, j) => {
            const k = indexOfRule(kind, entity, change.id);
            if (byIndex.has(k)) throw new InputError(`Invalid ${name} rule.`, [{ property: `rules[${j}].id`, errorMessage: `names rule '${change.id}' a second time` }]);
            byIndex.set(k, { change, property: `rules[${j}]` });
          });
          return withRuleChanges(kind, entity, byIndex);
        },
      },
      update_rule: {
        method: 'PATCH',
        path: 'rules/:ruleID',
        summary: `Update one rule of a ${name}`,
        done: 'updated',
        message: updated,
        body: kind.schemas.updateOne,
        apply: (entity, body, _lookup, params) => {
          const ruleID = params['ruleID'] ?? '';
          const k = indexOfRule(kind, entity, ruleID);
          const change = body as JsonObject;
          if (change['id'] !== undefined && change['id'] !== ruleID) {
            throw new InputError(`Invalid ${name} rule.`, [{ property: 'id', errorMessage: `must equal the rule id in the path (${ruleID}) or be left out` }]);
          }
          return withRuleChanges(kind, entity, new Map([[k, { change, property: '' }]]));
        },
      },
      delete_rule: {
        method: 'DELETE',
        path: 'rules/:ruleID',
        summary: `Delete one rule of a ${name}`,
        done: 'updated',
        message: updated,
        apply: (entity, _body, _lookup, params) => {
          const k = indexOfRule(kind, entity, params['ruleID'] ?? '');
          return { ...entity, rules: rulesOf(entity).filter((_, i) => i !== k) };
        },
      },
    },
    views: {
      rules: {
        path: 'rules',
        summary: `Read the rules of a ${name}`,
        message: `${kind.label} rules read successfully.`,
        schema: kind.schemas.read,
        // The reference pages a one-item list of `{ rules }` (GateRulesDto, DynamicConfigRulesDto).
        list: true,
        read: (response) => [{ rules: rulesOf(response) }],
      },
    },
  };
}
