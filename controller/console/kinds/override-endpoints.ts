/**
 * Overrides of gates, experiments and layers: stored, writable fields of the entity (so files, plan,
 * export and reviews carry them like any field), plus the reference's sub-resource
 * `/{kind}/{id}/overrides`: GET reads them, POST replaces the lists its body names, PATCH adds to
 * them, DELETE removes from them. Every write is an entity write (version, audit, review gate).
 */
import type { z } from 'zod';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import type { ActionDef, EntityLookup, ViewDef } from './kind-def.js';

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

export interface OverridesDef {
  /** "Gate": messages read "Gate Overrides updated successfully." (the reference's wording). */
  label: string;
  lists: readonly OverrideList[];
  /** The entity field that holds the lists (gates), or none: the lists are fields of the entity. */
  container?: string;
  schemas: {
    /** Data of every response: all lists. */
    data: z.ZodType;
    /** Body of POST. */
    replace: z.ZodType;
    /** Body of PATCH and DELETE. */
    change: z.ZodType;
  };
}

type Entry = JsonObject;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const idsOf = (v: unknown): string[] => listOf(v).filter((x): x is string => typeof x === 'string');
const keyOf = (entry: Entry, fields: readonly string[]): string => JSON.stringify(fields.map((f) => entry[f] ?? null));

/** An entry without the optional fields a request set to null ("not set"), so null and absent store alike. */
function compact(entry: Entry): Entry {
  const out: Entry = {};
  for (const [k, v] of Object.entries(entry)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** The overrides of an entity (stored data or a read response), every list present. */
export function readOverrides(def: OverridesDef, entity: JsonObject): JsonObject {
  const holder = def.container === undefined ? entity : entity[def.container];
  const source = isObject(holder) ? holder : {};
  const out: JsonObject = {};
  for (const list of def.lists) out[list.field] = listOf(source[list.field]) as JsonObject[];
  return out;
}

function writeOverrides(def: OverridesDef, entity: JsonObject, lists: JsonObject): JsonObject {
  if (def.container === undefined) return { ...entity, ...lists };
  return { ...entity, [def.container]: { ...readOverrides(def, entity), ...lists } };
}

/** The entity with its override entries in stored form (no nulls). Pure; for the kind's `prepare`. */
export function normalizeOverrides(def: OverridesDef, entity: JsonObject): JsonObject {
  const current = readOverrides(def, entity);
  const lists: JsonObject = {};
  for (const list of def.lists) {
    const value = listOf(current[list.field]);
    lists[list.field] = (list.key === undefined ? value : value.map((e) => (isObject(e) ? compact(e) : e))) as JsonObject[];
  }
  return writeOverrides(def, entity, lists);
}

const union = (current: string[], added: string[]): string[] => [...new Set([...current, ...added])];

function addTo(list: OverrideList, current: unknown[], added: unknown[]): unknown[] {
  if (list.key === undefined) return union(idsOf(current), idsOf(added));
  const key = list.key;
  const out = current.filter(isObject).map((e) => ({ ...e }));
  for (const raw of added.filter(isObject)) {
    const entry = compact(raw);
    const at = out.findIndex((e) => keyOf(e, key) === keyOf(entry, key));
    if (at < 0) out.push(entry);
    else if (list.idFields === undefined) out[at] = entry;
    else {
      const merged: Entry = { ...out[at], ...entry };
      for (const f of list.idFields) merged[f] = union(idsOf(out[at]?.[f]), idsOf(entry[f]));
      out[at] = merged;
    }
  }
  return out;
}

function removeFrom(list: OverrideList, current: unknown[], removed: unknown[]): unknown[] {
  if (list.key === undefined) {
    const gone = new Set(idsOf(removed));
    return idsOf(current).filter((id) => !gone.has(id));
  }
  const key = list.key;
  let out = current.filter(isObject);
  for (const entry of removed.filter(isObject)) {
    const k = keyOf(entry, key);
    const idFields = list.idFields ?? [];
    // An entry naming no ids (or a list of entries without ids) removes the whole entry.
    if (idFields.every((f) => idsOf(entry[f]).length === 0)) {
      out = out.filter((e) => keyOf(e, key) !== k);
      continue;
    }
    out = out.flatMap((e) => {
      if (keyOf(e, key) !== k) return [e];
      const trimmed: Entry = { ...e };
      for (const f of idFields) {
        const gone = new Set(idsOf(entry[f]));
        trimmed[f] = idsOf(e[f]).filter((id) => !gone.has(id));
      }
      return idFields.every((f) => idsOf(trimmed[f]).length === 0) ? [] : [trimmed];
    });
  }
  return out;
}

function changed(def: OverridesDef, entity: JsonObject, body: unknown, op: (list: OverrideList, current: unknown[], given: unknown[]) => unknown[]): JsonObject {
  const given = isObject(body) ? body : {};
  const current = readOverrides(def, entity);
  const lists: JsonObject = {};
  for (const list of def.lists) {
    if (given[list.field] !== undefined) lists[list.field] = op(list, listOf(current[list.field]), listOf(given[list.field])) as JsonObject[];
  }
  return writeOverrides(def, entity, lists);
}

/**
 * Errors of the override lists themselves, named by property path: an id listed twice, two entries
 * with the same key, an id both passing and failing or in two groups. References to other entities
 * are the kind's to check.
 */
export function overrideListErrors(def: OverridesDef, entity: JsonObject): FieldError[] {
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
      if (!isObject(raw)) return;
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

/** Errors of entries naming a gate or segment (`type` and the id in `idField`) that does not exist. */
export function gateOrSegmentErrors(entries: unknown, path: string, idField: string, lookup: EntityLookup): FieldError[] {
  const errors: FieldError[] = [];
  listOf(entries).forEach((entry, i) => {
    if (!isObject(entry)) return;
    const kind = entry['type'] === 'segment' ? 'segment' : 'gate';
    const id = entry[idField];
    if (typeof id === 'string' && lookup.get(kind, id) === undefined) errors.push({ property: `${path}[${i}].${idField}`, errorMessage: `names no existing ${kind} ('${id}')` });
  });
  return errors;
}

/** Entities whose overrides name (kind, id), as `experiment e1 (overrides)`. */
export function overrideReferrersOf(kind: 'gate' | 'segment', id: string, lookup: EntityLookup): string[] {
  const found: string[] = [];
  const names = (entries: unknown, idField: string): boolean => listOf(entries).some((e) => isObject(e) && (e['type'] ?? 'gate') === kind && e[idField] === id);
  for (const record of lookup.list('experiment')) if (names(record.data['overrides'], 'id')) found.push(`experiment ${record.id} (overrides)`);
  for (const record of lookup.list('layer')) if (names(record.data['conditionalOverrides'], 'name')) found.push(`layer ${record.id} (conditionalOverrides)`);
  return found;
}

/** A deleteBlocker: a gate or segment an override names can't be deleted, so no override dangles. */
export function refusedWhileOverridden(kind: 'gate' | 'segment', label: string): (id: string, lookup: EntityLookup) => string | undefined {
  return (id, lookup) => {
    const referrers = overrideReferrersOf(kind, id, lookup);
    return referrers.length === 0 ? undefined : `${label} ${id} is used by ${referrers.join(', ')}; remove those overrides first.`;
  };
}

/** The `overrides` actions and view of a kind, for its KindDef. */
export function overrideEndpoints(def: OverridesDef): { actions: Record<string, ActionDef>; views: Record<string, ViewDef> } {
  const name = def.label.toLowerCase();
  const respond = { schema: def.schemas.data, view: (response: JsonObject) => readOverrides(def, response) };
  return {
    actions: {
      update_overrides: {
        method: 'POST',
        path: 'overrides',
        summary: `Update ${name} overrides: replace the lists the body names`,
        done: 'overrides updated',
        message: `${def.label} Overrides updated successfully.`,
        body: def.schemas.replace,
        respond,
        apply: (entity, body) => changed(def, entity, body, (_list, _current, given) => given),
      },
      add_overrides: {
        method: 'PATCH',
        path: 'overrides',
        summary: `Add ${name} overrides`,
        done: 'overrides added',
        message: `${def.label} Overrides updated successfully.`,
        body: def.schemas.change,
        respond,
        apply: (entity, body) => changed(def, entity, body, addTo),
      },
      remove_overrides: {
        method: 'DELETE',
        path: 'overrides',
        summary: `Delete ${name} overrides: remove the ids and entries the body names`,
        done: 'overrides deleted',
        message: `${def.label} Overrides deleted successfully.`,
        body: def.schemas.change,
        respond,
        apply: (entity, body) => changed(def, entity, body, removeFrom),
      },
    },
    views: {
      overrides: {
        path: 'overrides',
        summary: `Read ${name} overrides`,
        message: `${def.label} Overrides read successfully.`,
        schema: def.schemas.data,
        read: (response) => readOverrides(def, response),
      },
    },
  };
}
