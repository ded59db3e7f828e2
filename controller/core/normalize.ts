/**
 * Puts the desired state (a file) and the live state (a console read) into one canonical form, so
 * that an entity nobody changed compares equal: defaults filled, server fields dropped, values their
 * JSON5 twins carry left to the twin, rule ids the file doesn't set ignored, keys in schema order.
 */
import { ARCHIVED_FIELD, entityFileKeys, entityFileSchema, isArchivedLive } from '../../schemas/entity-file.js';
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

/** A zod schema reduced to what normalising needs, compiled once per schema. */
type Shape =
  | { type: 'object'; fields: { key: string; twin: string; shape: () => Shape }[] }
  | { type: 'array'; element: () => Shape }
  | { type: 'value' };

const VALUE: Shape = { type: 'value' };
const shapes = new WeakMap<object, Shape>();

function shapeOf(schema: unknown): Shape {
  if (typeof schema !== 'object' || schema === null) return VALUE;
  let shape = shapes.get(schema);
  if (shape !== undefined) return shape;
  let def = (schema as { def?: SchemaDef }).def;
  while (def && ['optional', 'nullable', 'default', 'readonly', 'nonoptional', 'prefault', 'catch'].includes(def.type ?? '')) {
    def = (def.innerType as { def?: SchemaDef } | undefined)?.def;
  }
  const lazy = (child: unknown): (() => Shape) => {
    let memo: Shape | undefined;
    return () => (memo ??= shapeOf(child));
  };
  if (def?.type === 'object' && def.shape) {
    shape = { type: 'object', fields: Object.entries(def.shape).map(([key, child]) => ({ key, twin: `${key}${JSON5_SUFFIX}`, shape: lazy(child) })) };
  } else if (def?.type === 'array') shape = { type: 'array', element: lazy(def.element) };
  else shape = VALUE;
  shapes.set(schema, shape);
  return shape;
}

/**
 * Keeps what the schema declares, in its key order: response-only fields (rollouts, counts) go;
 * inside declared objects a null stands for "not set"; a value whose JSON5 twin is given is left to
 * the twin (the console derives the value from the text, so the text is what a file and a read
 * share). JSON values (records, unknown) are kept as they are.
 */
function pick(shape: Shape, value: unknown, nested: boolean): unknown {
  if (shape.type === 'object' && isObject(value)) {
    const out: JsonObject = {};
    for (const field of shape.fields) {
      const v = value[field.key];
      if (v === undefined || (nested && v === null) || typeof value[field.twin] === 'string') continue;
      out[field.key] = pick(field.shape(), v, true);
    }
    return out;
  }
  if (shape.type === 'array' && Array.isArray(value)) {
    const element = shape.element();
    return value.map((item) => pick(element, item, true));
  }
  return value;
}

const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/** One top-level field of a kind's canonical form, compiled once per kind. */
interface TopField {
  key: string;
  twin: string;
  shape: () => Shape;
  /** Kept even when empty: fields with a default, the id and the name. */
  keepEmpty: boolean;
  stamped: boolean;
}

const topFields = new Map<string, TopField[]>();

/** The fields a file may set, in file-key order, with what pick's object branch would do with each. */
function topFieldsOf(entry: EntitySchemaEntry): TopField[] {
  let fields = topFields.get(entry.kind);
  if (fields === undefined) {
    const shape = shapeOf(entityFileSchema(entry));
    const byKey = new Map(shape.type === 'object' ? shape.fields.map((f) => [f.key, f]) : []);
    fields = [];
    for (const key of fileKeysOf(entry)) {
      const field = byKey.get(key);
      if (!field) continue;
      fields.push({
        key,
        twin: field.twin,
        shape: field.shape,
        keepEmpty: key in entry.defaults || key === entry.idField || key === 'name',
        stamped: (STAMPED_WHEN_UNSET as readonly string[]).includes(key),
      });
    }
    topFields.set(entry.kind, fields);
  }
  return fields;
}

/**
 * The canonical form of an entity, from a file's fields or a console read alike: defaults filled,
 * values their JSON5 twins carry left to the twin, only the fields a file may set (in schema order),
 * optional fields without a default dropped when empty, and the creator stamp dropped when not set.
 */
export function normalizeEntity(entry: EntitySchemaEntry, value: JsonObject): JsonObject {
  return canonical(entry, value, undefined);
}

/**
 * normalizeEntity in one pass: a field is the entity's own value, else the kind's default (as if the
 * value were laid over the defaults), with neither merged copy nor second object built. `desired`,
 * when given, drops the creator stamp wherever it leaves the stamp unset (normalizeLive).
 */
function canonical(entry: EntitySchemaEntry, value: JsonObject, desired: JsonObject | null | undefined): JsonObject {
  // Defaults are shared, not cloned: canonical forms are read, never mutated in place.
  const defaults = entry.defaults;
  const out: JsonObject = {};
  for (const field of topFieldsOf(entry)) {
    const raw = Object.hasOwn(value, field.key) ? value[field.key] : defaults[field.key];
    if (raw === undefined) continue;
    const twin = Object.hasOwn(value, field.twin) ? value[field.twin] : defaults[field.twin];
    if (typeof twin === 'string') continue;
    if (field.stamped && (raw === null || (desired !== undefined && desired?.[field.key] === undefined))) continue;
    const v = pick(field.shape(), raw, true);
    if (!field.keepEmpty && isEmpty(v)) continue;
    out[field.key] = v;
  }
  return out;
}

const fileKeys = new Map<string, string[]>();

function fileKeysOf(entry: EntitySchemaEntry): string[] {
  let keys = fileKeys.get(entry.kind);
  if (keys === undefined) fileKeys.set(entry.kind, (keys = entityFileKeys(entry)));
  return keys;
}

function itemKey(item: unknown): string | undefined {
  return isObject(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
}

/**
 * Drops generated ids from `live` list items wherever the matching desired item (by name) doesn't
 * set them. Walks lists and their items only (rules, variants, groups): object-valued fields are JSON
 * values or settings, where the console generates nothing.
 */
function alignItems(live: JsonObject, desired: unknown, drop?: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key in live) {
    if (drop !== undefined && drop.includes(key)) continue;
    const v = live[key];
    out[key] = Array.isArray(v) ? alignList(v, isObject(desired) ? desired[key] : undefined) : v;
  }
  return out;
}

/** Which generated item fields a live item loses: those its desired counterpart doesn't set. */
function generatedToDrop(counterpart: unknown): readonly string[] {
  if (!isObject(counterpart)) return GENERATED_ITEM_FIELDS;
  const keepId = counterpart['id'] !== undefined;
  const keepBase = counterpart['baseID'] !== undefined;
  return keepId ? (keepBase ? [] : ['baseID']) : keepBase ? ['id'] : GENERATED_ITEM_FIELDS;
}

function alignList(live: unknown[], desired: unknown): unknown[] {
  const byName = new Map<string, unknown>();
  if (Array.isArray(desired)) for (const d of desired) if (itemKey(d) !== undefined) byName.set(itemKey(d) as string, d);
  return live.map((item, i) => {
    if (!isObject(item)) return item;
    const name = itemKey(item);
    const counterpart = name !== undefined ? byName.get(name) : Array.isArray(desired) ? desired[i] : undefined;
    // The console names what it generates ids for (rules, variants, groups); in an unnamed item (an
    // experiment override's gate `id`) the id is the client's own. Built without the generated fields
    // rather than deleted after: objects stay in fast mode.
    return alignItems(item, counterpart, name === undefined ? undefined : generatedToDrop(counterpart));
  });
}

/**
 * A live entity compared with what a file declares: the canonical form, minus what the console
 * fills in on its own where the file is silent (creator stamp, rule and variant ids).
 */
export function normalizeLive(entry: EntitySchemaEntry, live: JsonObject, desired?: JsonObject): JsonObject {
  const out = canonical(entry, live, desired ?? null);
  // A read shows the archived state as its status; a file says `archived: true`.
  if (isArchivedLive(entry, live)) out[ARCHIVED_FIELD] = true;
  // Only list-valued fields change: the canonical form is this call's own, so they are replaced in place.
  for (const key in out) {
    const v = out[key];
    if (Array.isArray(v)) out[key] = alignList(v, desired?.[key]);
  }
  return out;
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
