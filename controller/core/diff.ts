/**
 * Field-level differences between two entities: the one diff of the plan and of the web console's
 * review and version pages, so both describe a change alike. Lists of identified items (rules,
 * variants, groups) are matched by id, else by name, not position, so inserting a rule shows one
 * added rule rather than every later rule changed; a changed order is reported on its own. It
 * imports json-equal only, the one other module the web console may bundle from the server's code.
 */
import { jsonEqual } from './json-equal.js';
import type { JsonObject } from './repo-entity.js';
import { isPlainObject } from './is-plain-object.js';

/** One changed field. `old`/`new` are undefined where the field (or list item) is absent on that side. */
export interface FieldChange {
  /** `rules[name=beta].passPercentage`, `tags`, `rules#order` (the order of a named list). */
  path: string;
  old?: unknown;
  new?: unknown;
}

/** The values of `key` in a list when every item is an object with a unique string `key`. */
export function keysOf(list: readonly unknown[], key: 'id' | 'name'): string[] | undefined {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    if (!isPlainObject(item) || typeof item[key] !== 'string' || seen.has(item[key])) return undefined;
    seen.add(item[key]);
    keys.push(item[key]);
  }
  return keys;
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function diffKeyedLists(path: string, key: 'id' | 'name', old: unknown[], now: unknown[], oldNames: string[], newNames: string[], out: FieldChange[]): void {
  const oldByName = new Map(oldNames.map((n, i) => [n, old[i]]));
  const newSet = new Set(newNames);
  for (const [i, name] of oldNames.entries()) if (!newSet.has(name)) out.push({ path: `${path}[${key}=${name}]`, old: old[i] });
  for (const [i, name] of newNames.entries()) {
    const itemPath = `${path}[${key}=${name}]`;
    if (!oldByName.has(name)) out.push({ path: itemPath, new: now[i] });
    else diffValue(itemPath, oldByName.get(name), now[i], out);
  }
  // Order matters (rules are evaluated in order): report it when kept items moved or a new one was inserted before a kept one.
  const kept = newNames.filter((n) => oldByName.has(n));
  const keptBefore = oldNames.filter((n) => newSet.has(n));
  let lastKept = -1;
  newNames.forEach((n, i) => oldByName.has(n) && (lastKept = i));
  const inserted = newNames.some((n, i) => !oldByName.has(n) && i < lastKept);
  if (inserted || kept.some((n, i) => keptBefore[i] !== n)) out.push({ path: `${path}#order`, old: oldNames, new: newNames });
}

export function diffValue(path: string, old: unknown, now: unknown, out: FieldChange[]): void {
  if (jsonEqual(old, now)) return;
  if (isPlainObject(old) && isPlainObject(now)) {
    const keys = [...Object.keys(now), ...Object.keys(old).filter((k) => !(k in now))];
    for (const key of keys) diffValue(join(path, key), old[key], now[key], out);
    return;
  }
  if (Array.isArray(old) && Array.isArray(now)) {
    // Items the desired side names by id (a file that sets rule ids) match by id, so a rename shows
    // as one changed name; otherwise by name.
    for (const key of ['id', 'name'] as const) {
      const oldKeys = keysOf(old, key);
      const newKeys = keysOf(now, key);
      if (oldKeys && newKeys && now.length > 0) {
        diffKeyedLists(path, key, old, now, oldKeys, newKeys, out);
        return;
      }
    }
    // Unnamed objects (conditions) of two lists of the same length: compared item by item.
    if (old.length === now.length && old.every(isPlainObject) && now.every(isPlainObject)) {
      old.forEach((item, i) => diffValue(`${path}[${i}]`, item, now[i], out));
      return;
    }
  }
  const change: FieldChange = { path };
  if (old !== undefined) change.old = old;
  if (now !== undefined) change.new = now;
  out.push(change);
}

/** Every changed field between two canonical entities, in the desired entity's key order. */
export function diffEntities(live: JsonObject, desired: JsonObject): FieldChange[] {
  const out: FieldChange[] = [];
  diffValue('', live, desired, out);
  return out;
}
