import type { FieldError } from '../errors.js';

/** Names must be unique within a list (rules of an entity, variants of a rule, groups of an experiment). */
export function duplicateNames(items: ReadonlyArray<Record<string, unknown>>, path: string, key = 'name'): FieldError[] {
  const seen = new Map<unknown, number>();
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const name = item[key];
    if (name === undefined) return;
    const first = seen.get(name);
    if (first !== undefined) errors.push({ property: `${path}[${i}].${key}`, errorMessage: `duplicates ${path}[${first}].${key} '${String(name)}'; ${key}s must be unique` });
    else seen.set(name, i);
  });
  return errors;
}
