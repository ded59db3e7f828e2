import type { JsonObject } from '../../store/ports.js';

/** The last `?tags=` value and its tags: a filtered list tests every entity of a kind against one value. */
let lastValue: string | undefined;
let lastWanted: string[] = [];

/** `?tags=a,b` matches entities carrying any of the tags. */
export function hasTag(entity: JsonObject, value: string): boolean {
  if (value !== lastValue) {
    lastWanted = value.split(',').map((t) => t.trim()).filter(Boolean);
    lastValue = value;
  }
  const tags = entity['tags'];
  if (!Array.isArray(tags) || tags.length === 0) return false;
  for (const t of lastWanted) if (tags.includes(t)) return true;
  return false;
}
