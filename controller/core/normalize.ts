/**
 * Puts the desired state (a file) and the live state (a console read) into one canonical form, so
 * that an entity nobody changed compares equal: defaults filled, server fields dropped, values their
 * JSON5 twins carry left to the twin, rule ids the file doesn't set ignored, keys in schema order.
 */
import { entityFileKeys, entityFileSchema } from '../../schemas/entity-file.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { jsonEqual } from './json-equal.js';
import type { JsonObject } from './repo-entity.js';

/** Writable fields the console stamps from the calling key when a create leaves them out. */
export const STAMPED_WHEN_UNSET = ['creatorID', 'creatorEmail'] as const;
/** Fields of list items (rules, variants, groups) the console generates when a request leaves them out. */
export const GENERATED_ITEM_FIELDS = ['id', 'baseID'] as const;

const JSON5_SUFFIX = 'Json5';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface SchemaDef {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
}

function unwrap(schema: unknown): SchemaDef | undefined {
  let def = (schema as { def?: SchemaDef } | undefined)?.def;
  while (def && ['optional', 'nullable', 'default', 'readonly', 'nonoptional', 'prefault', 'catch'].includes(def.type ?? '')) {
    def = (def.innerType as { def?: SchemaDef } | undefined)?.def;
  }
  return def;
}

/**
 * Keeps what the schema declares, in its key order: response-only fields (rollouts, counts) go, and
 * inside declared objects a null stands for "not set". JSON values (records, unknown) are kept as they are.
 */
function pick(schema: unknown, value: unknown, nested: boolean): unknown {
  const def = unwrap(schema);
  if (def?.type === 'object' && def.shape && isObject(value)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(def.shape)) {
      const v = value[key];
      if (v === undefined || (nested && v === null)) continue;
      out[key] = pick(child, v, true);
    }
    return out;
  }
  if (def?.type === 'array' && Array.isArray(value)) return value.map((item) => pick(def.element, item, true));
  return value;
}

/**
 * Applies `fn` to an entity and to every object reachable from it through lists (rules, their
 * variants, groups): where JSON5 twins live. Object-valued fields (JSON values) are not entered.
 */
function mapContainers(value: unknown, fn: (object: JsonObject) => JsonObject): unknown {
  if (Array.isArray(value)) return value.map((item) => mapContainers(item, fn));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) out[key] = Array.isArray(v) ? mapContainers(v, fn) : v;
  return fn(out);
}

/**
 * Drops a value wherever its JSON5 twin carries it (`defaultValue` beside `defaultValueJson5`): the
 * console derives the plain value from the JSON5 text, so the text is what a file and a read share.
 */
export function withoutDerivedTwins(value: unknown): unknown {
  return mapContainers(value, (object) => {
    const kept: JsonObject = {};
    for (const [key, v] of Object.entries(object)) if (typeof object[`${key}${JSON5_SUFFIX}`] !== 'string') kept[key] = v;
    return kept;
  });
}

const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * The canonical form of an entity, from a file's fields or a console read alike: defaults filled,
 * values their JSON5 twins carry left to the twin, only the fields a file may set (in schema order),
 * optional fields without a default dropped when empty, and the creator stamp dropped when not set.
 */
export function normalizeEntity(entry: EntitySchemaEntry, value: JsonObject): JsonObject {
  // Defaults are shared, not cloned: canonical forms are read, never mutated in place.
  const filled = withoutDerivedTwins(Object.assign({}, entry.defaults, value)) as JsonObject;
  const picked = pick(entityFileSchema(entry), filled, false) as JsonObject;
  const out: JsonObject = {};
  for (const key of entityFileKeys(entry)) {
    if (!(key in picked)) continue;
    const v = picked[key];
    if (!(key in entry.defaults) && key !== entry.idField && key !== 'name' && isEmpty(v)) continue;
    if ((STAMPED_WHEN_UNSET as readonly string[]).includes(key) && v === null) continue;
    out[key] = v;
  }
  return out;
}

function itemKey(item: unknown): string | undefined {
  return isObject(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
}

/** Drops generated ids from `live` list items wherever the matching desired item (by name) doesn't set them. */
function alignItems(live: unknown, desired: unknown): unknown {
  if (Array.isArray(live)) {
    const byName = new Map<string, unknown>();
    if (Array.isArray(desired)) for (const d of desired) if (itemKey(d) !== undefined) byName.set(itemKey(d) as string, d);
    return live.map((item, i) => {
      if (!isObject(item)) return item;
      const name = itemKey(item);
      const counterpart = name !== undefined ? byName.get(name) : Array.isArray(desired) ? desired[i] : undefined;
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(item)) {
        if ((GENERATED_ITEM_FIELDS as readonly string[]).includes(key) && !(isObject(counterpart) && counterpart[key] !== undefined)) continue;
        out[key] = alignItems(v, isObject(counterpart) ? counterpart[key] : undefined);
      }
      return out;
    });
  }
  if (isObject(live)) {
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(live)) out[key] = alignItems(v, isObject(desired) ? desired[key] : undefined);
    return out;
  }
  return live;
}

/**
 * A live entity compared with what a file declares: the canonical form, minus what the console
 * fills in on its own where the file is silent (creator stamp, rule and variant ids).
 */
export function normalizeLive(entry: EntitySchemaEntry, live: JsonObject, desired?: JsonObject): JsonObject {
  const out = normalizeEntity(entry, live);
  for (const key of STAMPED_WHEN_UNSET) if (desired?.[key] === undefined) delete out[key];
  return alignItems(out, desired) as JsonObject;
}

/**
 * What `flagops export` writes for a live entity: its canonical form without defaults, generated ids
 * or creator stamp, and a JSON value left out where its JSON5 twin (with comments) carries it.
 */
export function exportable(entry: EntitySchemaEntry, live: JsonObject): JsonObject {
  const out = normalizeLive(entry, live);
  for (const [key, v] of Object.entries(out)) {
    if (key !== entry.idField && key in entry.defaults && jsonEqual(v, entry.defaults[key])) delete out[key];
  }
  return out;
}
