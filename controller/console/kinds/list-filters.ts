import type { JsonObject } from '../../store/ports.js';

/** `?tags=a,b` matches entities carrying any of the tags. */
export function hasTag(entity: JsonObject, value: string): boolean {
  const wanted = value.split(',').map((t) => t.trim()).filter(Boolean);
  const tags = Array.isArray(entity['tags']) ? (entity['tags'] as unknown[]) : [];
  return wanted.some((t) => tags.includes(t));
}
