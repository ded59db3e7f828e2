import type { z } from 'zod';
import { ZOD_WRAPPERS as WRAPPERS, zodDefOf as defOf } from './zod-def.js';

/** Whether a schema lets a client write any JSON there (a JSON object, list or value of its own). */
function holdsFreeJson(schema: unknown, seen: Set<unknown>): boolean {
  const def = defOf(schema);
  if (def === undefined || seen.has(schema)) return false;
  seen.add(schema);
  if (def.type === 'unknown' || def.type === 'any') return true;
  if (WRAPPERS.has(def.type ?? '')) return holdsFreeJson(def.innerType, seen);
  if (def.type === 'pipe') return holdsFreeJson(def.in, seen);
  if (def.type === 'record') return holdsFreeJson(def.valueType, seen);
  if (def.type === 'array') return holdsFreeJson(def.element, seen);
  if (def.type === 'union') return (def.options ?? []).some((option) => holdsFreeJson(option, seen));
  return false;
}

/**
 * Field names that hold a client's own JSON (return values, default values, parameter values,
 * metadata) wherever they appear in the given schemas, and never anything else: what is inside them
 * is data, not configuration, so a `conditions` or `environments` key there means nothing to flagops.
 * A name that is free JSON in one place and structured in another is left out.
 */
export function freeJsonFields(schemas: readonly z.ZodType[]): ReadonlySet<string> {
  const free = new Set<string>();
  const structured = new Set<string>();
  const visited = new Set<unknown>();
  const visit = (schema: unknown): void => {
    const def = defOf(schema);
    if (def === undefined || visited.has(schema)) return;
    visited.add(schema);
    if (def.type === 'object' && def.shape) {
      for (const [key, child] of Object.entries(def.shape)) {
        (holdsFreeJson(child, new Set()) ? free : structured).add(key);
        visit(child);
      }
    }
    for (const child of [def.innerType, def.element, def.valueType, def.in, def.out, ...(def.options ?? [])]) visit(child);
  };
  for (const schema of schemas) visit(schema);
  for (const key of structured) free.delete(key);
  return free;
}
