/**
 * Field-level differences between two states of an entity, for people to read. The page imports
 * nothing from the server's code, so it has its own: objects compare key by key, lists of items that
 * carry a unique name (or id) compare item by item (rules, variants, groups), anything else as a whole.
 */
export interface FieldChange {
  /** `description`, `rules[name=ramp].passPercentage`, `rules#order`. */
  path: string;
  /** Absent where the field or item does not exist on that side. */
  old?: unknown;
  new?: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values; object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = (o: Json): string[] => Object.keys(o).filter((k) => o[k] !== undefined);
  const ak = keys(a);
  return ak.length === keys(b).length && ak.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** The items' values of `key` when every item is an object with a unique string there. */
function keysOf(list: readonly unknown[], key: string): string[] | undefined {
  const out: string[] = [];
  for (const item of list) {
    const value = isObject(item) ? item[key] : undefined;
    if (typeof value !== 'string' || out.includes(value)) return undefined;
    out.push(value);
  }
  return out;
}

function diffValue(path: string, before: unknown, after: unknown, out: FieldChange[]): void {
  if (jsonEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) diffValue(path ? `${path}.${key}` : key, before[key], after[key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length > 0) {
    // Names first: rules, variants and groups have unique names, and people know them by name.
    for (const key of ['name', 'id']) {
      const oldKeys = keysOf(before, key);
      const newKeys = keysOf(after, key);
      if (!oldKeys || !newKeys) continue;
      for (const [i, k] of oldKeys.entries()) if (!newKeys.includes(k)) out.push({ path: `${path}[${key}=${k}]`, old: before[i] });
      for (const [i, k] of newKeys.entries()) {
        const at = oldKeys.indexOf(k);
        if (at < 0) out.push({ path: `${path}[${key}=${k}]`, new: after[i] });
        else diffValue(`${path}[${key}=${k}]`, before[at], after[i], out);
      }
      // Rules are evaluated in order: a move is a change of its own.
      const kept = newKeys.filter((k) => oldKeys.includes(k));
      if (kept.some((k, i) => oldKeys.filter((o) => newKeys.includes(o))[i] !== k)) out.push({ path: `${path}#order`, old: oldKeys, new: newKeys });
      return;
    }
  }
  const change: FieldChange = { path };
  if (before !== undefined) change.old = before;
  if (after !== undefined) change.new = after;
  out.push(change);
}

/** Every changed field from `before` to `after`. */
export function fieldChanges(before: Json, after: Json): FieldChange[] {
  const out: FieldChange[] = [];
  diffValue('', before, after, out);
  return out;
}
