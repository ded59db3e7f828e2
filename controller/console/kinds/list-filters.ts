import type { EntityCondition, JsonObject } from '../../store/ports.js';

/** A list filter: the predicate, and the same test as a condition a store can run in its database. */
export interface ListFilter {
  (entity: JsonObject, value: string): boolean;
  condition?: (value: string) => EntityCondition;
}

/** `?field=value` matches entities whose top-level `field` is that string. */
export function equals(field: string): ListFilter {
  return Object.assign((entity: JsonObject, value: string) => entity[field] === value, { condition: (value: string): EntityCondition => ({ field, equals: value }) });
}

const tagsOf = (value: string): string[] => value.split(',').map((t) => t.trim()).filter(Boolean);

/** The last `?tags=` value and its tags: a filtered list tests every entity of a kind against one value. */
let lastValue: string | undefined;
let lastWanted: string[] = [];

/** `?tags=a,b` matches entities carrying any of the tags. */
export const hasTag: ListFilter = Object.assign(matchesTag, { condition: (value: string): EntityCondition => ({ field: 'tags', hasAny: tagsOf(value) }) });

function matchesTag(entity: JsonObject, value: string): boolean {
  if (value !== lastValue) {
    lastWanted = tagsOf(value);
    lastValue = value;
  }
  const tags = entity['tags'];
  if (!Array.isArray(tags) || tags.length === 0) return false;
  for (const t of lastWanted) if (tags.includes(t)) return true;
  return false;
}
