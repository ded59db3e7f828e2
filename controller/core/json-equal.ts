/** Deep equality of JSON values; object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Keys holding undefined count as absent. Counted, not filtered into new arrays: this runs on every
  // entity of a plan.
  let defined = 0;
  for (const key of Object.keys(ao)) {
    const value = ao[key];
    if (value === undefined) continue;
    defined++;
    if (!Object.hasOwn(bo, key) || !jsonEqual(value, bo[key])) return false;
  }
  for (const key of Object.keys(bo)) if (bo[key] !== undefined) defined--;
  return defined === 0;
}
