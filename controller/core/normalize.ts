/**
 * Puts the desired state (a file) and the live state (a console read) into one canonical form, so
 * that an entity nobody changed compares equal: defaults filled, server fields dropped, values their
 * JSON5 twins carry left to the twin, rule ids the file doesn't set ignored, keys in schema order.
 */
import { ARCHIVED_FIELD, entityFileKeys, entityFileSchema, isArchivedLive } from '../../schemas/entity-file.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { jsonEqual } from './json-equal.js';
import type { JsonObject } from './repo-entity.js';
import { isPlainObject } from './is-plain-object.js';

/** Writable fields the console stamps from the calling key when a create leaves them out. */
export const STAMPED_WHEN_UNSET = ['creatorID', 'creatorEmail'] as const;
/** Fields of list items (rules, variants, groups) the console generates when a request leaves them out. */
export const GENERATED_ITEM_FIELDS = ['id', 'baseID'] as const;
/**
 * Fields of list items a file may leave out and the console answers empty (`{}`): a group's
 * parameterValues. Empty, such a field reads as not set, so a file without it equals the console's read.
 */
export const EMPTY_AS_UNSET_ITEM_FIELDS: readonly string[] = ['parameterValues'];
const isEmptyObject = (v: unknown): boolean => isPlainObject(v) && Object.keys(v).length === 0;

const JSON5_SUFFIX = 'Json5';

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
  if (shape.type === 'object' && isPlainObject(value)) {
    const out: JsonObject = {};
    for (const field of shape.fields) {
      const v = value[field.key];
      if (v === undefined || (nested && v === null) || typeof value[field.twin] === 'string') continue;
      if (nested && EMPTY_AS_UNSET_ITEM_FIELDS.includes(field.key) && isEmptyObject(v)) continue;
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

/** A key whose `value[key]` is undefined exactly when no own property holds a value: no object inherits it. */
const plainKey = (key: string): boolean => !(key in Object.prototype);

const pickers = new WeakMap<Shape, (value: unknown) => unknown>();
const keep = (value: unknown): unknown => value;

/**
 * pick(shape, value, true) as a function compiled for one shape: its field names are literals in
 * the generated code, so each read is a named property load with its own inline cache instead of
 * one keyed load shared by every field of every kind (the canonical forms are a fifth of a plan).
 */
function pickerOf(shape: Shape): (value: unknown) => unknown {
  let picker = pickers.get(shape);
  if (picker !== undefined) return picker;
  if (shape.type === 'value') picker = keep;
  else if (shape.type === 'array') {
    let element: ((value: unknown) => unknown) | undefined;
    picker = (value) => {
      if (!Array.isArray(value)) return value;
      element ??= pickerOf(shape.element());
      const out = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) out[i] = element(value[i]);
      return out;
    };
  } else {
    const fields = shape.fields;
    // Children are compiled on first use: shapes may be recursive.
    const children: ((value: unknown) => unknown)[] = [];
    const child = (i: number): ((value: unknown) => unknown) => (children[i] ??= pickerOf((fields[i] as (typeof fields)[number]).shape()));
    const lines = fields.map((f, i) => {
      const key = JSON.stringify(f.key);
      const emptyAsUnset = EMPTY_AS_UNSET_ITEM_FIELDS.includes(f.key) ? ' && !isEmptyObject(v)' : '';
      return `v = value[${key}]; if (v !== undefined && v !== null${emptyAsUnset} && typeof value[${JSON.stringify(f.twin)}] !== 'string') out[${key}] = (c[${i}] ?? child(${i}))(v);`;
    });
    // Schema keys enter the code only as JSON string literals.
    const make = new Function('c', 'child', 'isPlainObject', 'isEmptyObject', `return function pickObject(value) { if (!isPlainObject(value)) return value; const out = {}; let v; ${lines.join(' ')} return out; };`) as (
      c: typeof children,
      child: (i: number) => (value: unknown) => unknown,
      isPlainObject: (v: unknown) => v is JsonObject,
      isEmptyObject: (v: unknown) => boolean,
    ) => (value: unknown) => unknown;
    picker = make(children, child, isPlainObject, isEmptyObject);
  }
  pickers.set(shape, picker);
  return picker;
}

const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);

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

type Canonical = (value: JsonObject, desired: JsonObject | null | undefined) => JsonObject;

const canonicals = new Map<string, Canonical>();

/**
 * normalizeEntity in one pass: a field is the entity's own value, else the kind's default (as if the
 * value were laid over the defaults), with neither merged copy nor second object built. `desired`,
 * when given, drops the creator stamp wherever it leaves the stamp unset (normalizeLive). Compiled
 * once per kind, with the field names as literals (see pickerOf).
 */
export function canonical(entry: EntitySchemaEntry, value: JsonObject, desired: JsonObject | null | undefined): JsonObject {
  let compiled = canonicals.get(entry.kind);
  if (compiled === undefined) canonicals.set(entry.kind, (compiled = compileCanonical(entry)));
  return compiled(value, desired);
}

function compileCanonical(entry: EntitySchemaEntry): Canonical {
  const fields = topFieldsOf(entry);
  // A key objects inherit (`constructor`) would read as set: such a kind keeps the interpreted form.
  if (!fields.every((f) => plainKey(f.key) && plainKey(f.twin))) return (value, desired) => canonicalReference(entry, value, desired);
  const pickers = fields.map((f) => pickerOf(f.shape()));
  const lines = fields.map((f, i) => {
    const key = JSON.stringify(f.key);
    const twin = JSON.stringify(f.twin);
    // An own key holding undefined is not absent: it hides the default (Object.hasOwn, not `??`).
    const stamped = f.stamped ? ` && raw !== null && !(desired !== undefined && desired?.[${key}] === undefined)` : '';
    const set = f.keepEmpty ? `out[${key}] = v;` : `if (!isEmpty(v)) out[${key}] = v;`;
    return `raw = value[${key}]; if (raw === undefined && !hasOwn(value, ${key})) raw = defaults[${key}];
      if (raw !== undefined) { twin = value[${twin}]; if (twin === undefined && !hasOwn(value, ${twin})) twin = defaults[${twin}];
        if (typeof twin !== 'string'${stamped}) { v = p[${i}](raw); ${set} } }`;
  });
  // Defaults are shared, not cloned: canonical forms are read, never mutated in place. Schema keys
  // enter the code only as JSON string literals.
  const make = new Function('p', 'defaults', 'hasOwn', 'isEmpty', `return function canonical(value, desired) { const out = {}; let raw, twin, v; ${lines.join('\n')} return out; };`) as (
    p: typeof pickers,
    defaults: JsonObject,
    hasOwn: (o: object, key: PropertyKey) => boolean,
    isEmpty: (v: unknown) => boolean,
  ) => Canonical;
  return make(pickers, entry.defaults, Object.hasOwn, isEmpty);
}

/** The interpreted form of canonical(): the reference the compiled one is tested against. */
export function canonicalReference(entry: EntitySchemaEntry, value: JsonObject, desired: JsonObject | null | undefined): JsonObject {
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

export function itemKey(item: unknown): string | undefined {
  return isPlainObject(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
}

/**
 * Drops generated ids from `live` list items wherever the matching desired item (by name) doesn't
 * set them. Walks lists and their items only (rules, variants, groups): object-valued fields are JSON
 * values or settings, where the console generates nothing. Copies only what changes: an item that
 * loses nothing, and a list none of whose items changes, are returned as they are (a plan aligns
 * every live entity, and most items — conditions, their values, tags — have nothing to drop).
 */
function alignItems(live: JsonObject, desired: unknown, drop?: readonly string[]): JsonObject {
  let dropped = false;
  let aligned: Map<string, unknown[]> | undefined;
  for (const key in live) {
    if (drop !== undefined && drop.includes(key)) {
      dropped = true;
      continue;
    }
    const v = live[key];
    if (!Array.isArray(v)) continue;
    const list = alignList(v, isPlainObject(desired) ? desired[key] : undefined);
    if (list !== v) (aligned ??= new Map()).set(key, list);
  }
  if (!dropped && aligned === undefined) return live;
  const out: JsonObject = {};
  for (const key in live) {
    if (drop !== undefined && drop.includes(key)) continue;
    out[key] = aligned?.get(key) ?? live[key];
  }
  return out;
}

/** Which generated item fields a live item loses: those its desired counterpart doesn't set. */
export function generatedToDrop(counterpart: unknown): readonly string[] {
  if (!isPlainObject(counterpart)) return GENERATED_ITEM_FIELDS;
  const keepId = counterpart['id'] !== undefined;
  const keepBase = counterpart['baseID'] !== undefined;
  return keepId ? (keepBase ? [] : ['baseID']) : keepBase ? ['id'] : GENERATED_ITEM_FIELDS;
}

function alignList(live: unknown[], desired: unknown): unknown[] {
  let byName: Map<string, unknown> | undefined;
  let out: unknown[] | undefined;
  for (let i = 0; i < live.length; i++) {
    const item = live[i];
    if (!isPlainObject(item)) continue;
    const name = itemKey(item);
    if (name !== undefined && byName === undefined) {
      byName = new Map();
      if (Array.isArray(desired)) for (const d of desired) if (itemKey(d) !== undefined) byName.set(itemKey(d) as string, d);
    }
    const counterpart = name !== undefined ? byName?.get(name) : Array.isArray(desired) ? desired[i] : undefined;
    // The console names what it generates ids for (rules, variants, groups); in an unnamed item (an
    // experiment override's gate `id`) the id is the client's own. Built without the generated fields
    // rather than deleted after: objects stay in fast mode.
    const aligned = alignItems(item, counterpart, name === undefined ? undefined : generatedToDrop(counterpart));
    if (aligned !== item) (out ??= live.slice())[i] = aligned;
  }
  return out ?? live;
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
