/**
 * Overrides of gates, experiments and layers: stored, writable fields of the entity (so files, plan,
 * export and reviews carry them like any field), plus the reference's sub-resource
 * `/{kind}/{id}/overrides`: GET reads them, POST replaces the lists its body names, PATCH adds to
 * them, DELETE removes from them. Every write is an entity write (version, audit, review gate).
 */
import type { z } from 'zod';
import { isPlainObject } from '../../core/is-plain-object.js';
import { compact, idsOf, keyOf, listOf, readOverrides, writeOverrides, type OverrideList, type OverrideLists } from '../../core/override-rules.js';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { labelInSentence, type ActionDef, type EntityLookup, type ViewDef } from './kind-def.js';

export interface OverridesDef extends OverrideLists {
  /** "Gate": messages read "Gate Overrides updated successfully." (the reference's wording). */
  label: string;
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

const union = (current: string[], added: string[]): string[] => [...new Set([...current, ...added])];

function addTo(list: OverrideList, current: unknown[], added: unknown[]): unknown[] {
  if (list.key === undefined) return union(idsOf(current), idsOf(added));
  const key = list.key;
  const out = current.filter(isPlainObject).map((e) => ({ ...e }));
  for (const raw of added.filter(isPlainObject)) {
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
  let out = current.filter(isPlainObject);
  for (const entry of removed.filter(isPlainObject)) {
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
  const given = isPlainObject(body) ? body : {};
  const current = readOverrides(def, entity);
  const lists: JsonObject = {};
  for (const list of def.lists) {
    if (given[list.field] !== undefined) lists[list.field] = op(list, listOf(current[list.field]), listOf(given[list.field])) as JsonObject[];
  }
  return writeOverrides(def, entity, lists);
}

/** Errors of entries naming a gate or segment (`type` and the id in `idField`) that does not exist. */
export function gateOrSegmentErrors(entries: unknown, path: string, idField: string, lookup: EntityLookup): FieldError[] {
  const errors: FieldError[] = [];
  listOf(entries).forEach((entry, i) => {
    if (!isPlainObject(entry)) return;
    const kind = entry['type'] === 'segment' ? 'segment' : 'gate';
    const id = entry[idField];
    if (typeof id === 'string' && lookup.get(kind, id) === undefined) errors.push({ property: `${path}[${i}].${idField}`, errorMessage: `names no existing ${kind} ('${id}')` });
  });
  return errors;
}

/** Entities whose overrides name (kind, id), as `experiment e1 (overrides)`. */
export function overrideReferrersOf(kind: 'gate' | 'segment', id: string, lookup: EntityLookup): string[] {
  const found: string[] = [];
  const names = (entries: unknown, idField: string): boolean => listOf(entries).some((e) => isPlainObject(e) && (e['type'] ?? 'gate') === kind && e[idField] === id);
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
  const name = labelInSentence(def.label);
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
