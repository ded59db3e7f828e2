import type { z } from 'zod';
import type { JsonObject } from '../../store/ports.js';

interface Def {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  options?: unknown[];
}

/** What a response field needs: leave a null out, fill an empty list or object, or walk into it. */
interface Field {
  key: string;
  /** The schema has no null here: a stored null (a request's "clear this") is left out. */
  dropNull: boolean;
  /** The schema requires a list or an object here that older records lack: filled empty. */
  fill?: () => unknown;
  shape: Shape;
}

/** Only fields with something to do are kept, so a read walks little more than it must change. */
type Shape = { type: 'object'; fields: Field[] } | { type: 'array'; element: Shape } | { type: 'value' };

const VALUE: Shape = { type: 'value' };
const WRAPPERS = ['optional', 'nullable', 'default', 'readonly', 'nonoptional', 'prefault', 'catch'];
const shapes = new WeakMap<object, Shape>();

const defOf = (schema: unknown): Def | undefined => (schema as { def?: Def } | undefined)?.def;

function acceptsNull(schema: unknown): boolean {
  const def = defOf(schema);
  if (def === undefined) return true;
  if (def.type === 'nullable' || def.type === 'null' || def.type === 'unknown' || def.type === 'any') return true;
  if (def.type === 'union') return (def.options ?? []).some(acceptsNull);
  return WRAPPERS.includes(def.type ?? '') ? acceptsNull(def.innerType) : false;
}

function unwrapped(schema: unknown): { def: Def | undefined; optional: boolean } {
  let def = defOf(schema);
  let optional = false;
  while (def && WRAPPERS.includes(def.type ?? '')) {
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    def = defOf(def.innerType);
  }
  return { def, optional };
}

function shapeOf(schema: unknown): Shape {
  if (typeof schema !== 'object' || schema === null) return VALUE;
  let shape = shapes.get(schema);
  if (shape !== undefined) return shape;
  const { def } = unwrapped(schema);
  if (def?.type === 'object' && def.shape) {
    const fields: Field[] = [];
    for (const [key, child] of Object.entries(def.shape)) {
      const inner = unwrapped(child);
      const field: Field = { key, dropNull: !acceptsNull(child), shape: shapeOf(child) };
      if (!inner.optional && inner.def?.type === 'array') field.fill = () => [];
      else if (!inner.optional && inner.def?.type === 'record') field.fill = () => ({});
      if (field.dropNull || field.fill || field.shape !== VALUE) fields.push(field);
    }
    shape = fields.length === 0 ? VALUE : { type: 'object', fields };
  } else if (def?.type === 'array') {
    const element = shapeOf(def.element);
    shape = element === VALUE ? VALUE : { type: 'array', element };
  } else shape = VALUE;
  shapes.set(schema, shape);
  return shape;
}

function conform(shape: Shape, value: unknown, owned = false): unknown {
  if (shape.type === 'array') {
    if (!Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = conform(shape.element, item);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (shape.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const source = value as JsonObject;
  let changes: Record<string, unknown> | undefined;
  let drop: string[] | undefined;
  for (const field of shape.fields) {
    const v = source[field.key];
    if (v === null) {
      if (field.dropNull) (drop ??= []).push(field.key);
    } else if (v === undefined) {
      if (field.fill) (changes ??= {})[field.key] = field.fill();
    } else if (field.shape !== VALUE) {
      const next = conform(field.shape, v);
      if (next !== v) (changes ??= {})[field.key] = next;
    }
  }
  if (changes === undefined && drop === undefined) return value;
  if (owned) {
    // The caller's own fresh copy: changed where it stands, keys in the same order as a copy's.
    if (drop !== undefined) for (const key of drop) delete source[key];
    if (changes !== undefined) Object.assign(source, changes);
    return source;
  }
  // Built key by key rather than copied and deleted from: a delete makes V8 slow the object down.
  const out: JsonObject = {};
  for (const key in source) if (drop === undefined || !drop.includes(key)) out[key] = source[key] as JsonObject[string];
  if (changes !== undefined) Object.assign(out, changes);
  return out;
}

/**
 * A response in the shape its schema declares: a null where the schema (after the reference API) types no null
 * is left out — the field is simply not set — and a list or object the schema requires but the
 * stored record lacks (a rule's rollouts, a group's parameterValues) is there, empty. Copies only
 * what changes, so frozen cached records stay untouched.
 */
export function conformToSchema<T>(schema: z.ZodType, value: T): T {
  return conform(shapeOf(schema), value) as T;
}

/**
 * conformToSchema for an object the caller has just built and owns, such as a merged copy: its own
 * top-level fields are changed in place (nested values are still copied where they change), which
 * spares a second copy of every field. Returns that same object.
 */
export function conformOwnCopy(schema: z.ZodType, value: JsonObject): JsonObject {
  return conform(shapeOf(schema), value, true) as JsonObject;
}
