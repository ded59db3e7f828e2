/**
 * The override lists of gates, experiments and layers as data, and their rules that need no other
 * entity. Pure: the console's kinds (controller/console/kinds/override-endpoints.ts) and file
 * validation (entity-rules.ts) share them, so a file that validates is accepted by the console.
 */
import type { FieldError } from '../errors.js';
import type { JsonObject } from './repo-entity.js';
import { isPlainObject } from './is-plain-object.js';

/** One list of a kind's overrides. */
export interface OverrideList {
  field: string;
  /** Lists of entries: the fields that identify an entry. Absent: a list of ids. */
  key?: readonly string[];
  /**
   * Id lists inside each entry: an add joins the ids to the entry with the same key, a remove takes
   * them out. Absent: an add replaces the entry with the same key, a remove drops it.
   */
  idFields?: readonly string[];
  /** A list of ids whose ids may not also be in this other list (passing and failing). */
  exclusiveWith?: string;
  /**
   * Entry lists with id fields: entries agreeing on these fields share their ids, which are then in
   * at most one entry and id field (a unit is forced into one group, passes or fails).
   */
  exclusiveScope?: readonly string[];
}

/** Where a kind keeps its override lists. */
export interface OverrideLists {
  lists: readonly OverrideList[];
  /** The entity field that holds the lists (gates), or none: the lists are fields of the entity. */
  container?: string;
}

/** A gate's overrides live under its `overrides` field, in the reference's OverrideDto shape. */
export const GATE_OVERRIDES: OverrideLists = {
  container: 'overrides',
  lists: [
    { field: 'passingUserIDs' },
    { field: 'failingUserIDs', exclusiveWith: 'passingUserIDs' },
    { field: 'passingCustomIDs' },
    { field: 'failingCustomIDs', exclusiveWith: 'passingCustomIDs' },
    { field: 'environmentOverrides', key: ['environment', 'unitID'], idFields: ['passingIDs', 'failingIDs'], exclusiveScope: ['environment', 'unitID'] },
  ],
};

/** The reference's ExperimentOverridesDto, as two fields of the experiment. */
export const EXPERIMENT_OVERRIDES: OverrideLists = {
  lists: [
    { field: 'overrides', key: ['type', 'id', 'environment'] },
    { field: 'userIDOverrides', key: ['groupID', 'environment', 'unitType'], idFields: ['ids'], exclusiveScope: ['environment', 'unitType'] },
  ],
};

/** The reference's LayerOverridesDto, as two fields of the layer. */
export const LAYER_OVERRIDES: OverrideLists = {
  lists: [
    { field: 'conditionalOverrides', key: ['type', 'name'] },
    { field: 'idOverrides', key: ['experimentName', 'groupName', 'idType', 'environment'], idFields: ['ids'], exclusiveScope: ['idType', 'environment'] },
  ],
};

export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const idsOf = (v: unknown): string[] => listOf(v).filter((x): x is string => typeof x === 'string');
/** An entry's identity: the values of the key fields, null and absent alike. */
export const keyOf = (entry: JsonObject, fields: readonly string[]): string => JSON.stringify(fields.map((f) => entry[f] ?? null));

/** An entry without the optional fields a request set to null ("not set"), so null and absent store alike. */
export function compact(entry: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entry)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** The overrides of an entity (stored data, a read response or a file), every list present. */
export function readOverrides(def: OverrideLists, entity: JsonObject): JsonObject {
  const holder = def.container === undefined ? entity : entity[def.container];
  const source = isPlainObject(holder) ? holder : {};
  const out: JsonObject = {};
  for (const list of def.lists) out[list.field] = listOf(source[list.field]);
  return out;
}

/** The entity with the given lists replaced. */
export function writeOverrides(def: OverrideLists, entity: JsonObject, lists: JsonObject): JsonObject {
  if (def.container === undefined) return { ...entity, ...lists };
  return { ...entity, [def.container]: { ...readOverrides(def, entity), ...lists } };
}

/** The entity with its override entries in stored form (no nulls). */
export function normalizeOverrides(def: OverrideLists, entity: JsonObject): JsonObject {
  const current = readOverrides(def, entity);
  const lists: JsonObject = {};
  for (const list of def.lists) {
    const value = listOf(current[list.field]);
    lists[list.field] = list.key === undefined ? value : value.map((e) => (isPlainObject(e) ? compact(e) : e));
  }
  return writeOverrides(def, entity, lists);
}

/**
 * Errors of the override lists themselves, named by property path: an id listed twice, two entries
 * with the same key, an id both passing and failing or in two groups. References to other entities
 * are checked where they are known (the console's kinds, cross-references.ts).
 */
export function overrideListErrors(def: OverrideLists, entity: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const current = readOverrides(def, entity);
  const prefix = def.container === undefined ? '' : `${def.container}.`;
  for (const list of def.lists) {
    const path = `${prefix}${list.field}`;
    const value = listOf(current[list.field]);
    if (list.key === undefined) {
      const seen = new Set<string>();
      const other = list.exclusiveWith === undefined ? new Set<string>() : new Set(idsOf(current[list.exclusiveWith]));
      value.forEach((id, i) => {
        if (typeof id !== 'string') return;
        if (seen.has(id)) errors.push({ property: `${path}[${i}]`, errorMessage: `'${id}' is listed twice` });
        else if (other.has(id)) errors.push({ property: `${path}[${i}]`, errorMessage: `'${id}' is also in ${prefix}${String(list.exclusiveWith)}: an id either passes or fails` });
        seen.add(id);
      });
      continue;
    }
    const keys = new Map<string, number>();
    /** scope → id → where it first appeared. */
    const claimed = new Map<string, Map<string, string>>();
    value.forEach((raw, i) => {
      if (!isPlainObject(raw)) return;
      const k = keyOf(raw, list.key ?? []);
      const first = keys.get(k);
      if (first !== undefined) errors.push({ property: `${path}[${i}]`, errorMessage: `repeats ${path}[${first}] (${(list.key ?? []).join(', ')}); merge the two` });
      else keys.set(k, i);
      const scope = list.exclusiveScope === undefined ? undefined : keyOf(raw, list.exclusiveScope);
      for (const field of list.idFields ?? []) {
        const inEntry = new Set<string>();
        idsOf(raw[field]).forEach((id, j) => {
          const property = `${path}[${i}].${field}[${j}]`;
          if (inEntry.has(id)) return void errors.push({ property, errorMessage: `'${id}' is listed twice` });
          inEntry.add(id);
          if (scope === undefined) return;
          let ids = claimed.get(scope);
          if (ids === undefined) claimed.set(scope, (ids = new Map()));
          const where = ids.get(id);
          if (where !== undefined) errors.push({ property, errorMessage: `'${id}' is already in ${where}: an id is overridden at most once` });
          else ids.set(id, `${path}[${i}].${field}`);
        });
      }
    });
  }
  return errors;
}

export const gateOverrideErrors = (gate: JsonObject): FieldError[] => overrideListErrors(GATE_OVERRIDES, gate);
export const layerOverrideErrors = (layer: JsonObject): FieldError[] => overrideListErrors(LAYER_OVERRIDES, layer);

/** An experiment's overrides: the lists' rules, and each group they force units into is one of its groups (by id or name). */
export function experimentOverrideErrors(experiment: JsonObject): FieldError[] {
  const errors = overrideListErrors(EXPERIMENT_OVERRIDES, experiment);
  const groups = listOf(experiment['groups']).filter(isPlainObject);
  const known = new Set(groups.flatMap((g) => [g['id'], g['name']]).filter((v) => typeof v === 'string'));
  const names = groups.map((g) => String(g['name'])).join(', ');
  for (const field of ['overrides', 'userIDOverrides']) {
    listOf(experiment[field]).forEach((entry, i) => {
      const group = isPlainObject(entry) ? entry['groupID'] : undefined;
      if (typeof group === 'string' && !known.has(group)) errors.push({ property: `${field}[${i}].groupID`, errorMessage: `names no group of the experiment ('${group}'); groups: ${names}` });
    });
  }
  return errors;
}
