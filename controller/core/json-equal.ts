/** Deep equality of JSON values; object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Keys holding undefined count as absent. Counted, not listed into new arrays, and walked with
  // for-in over own keys: this runs on every entity of a plan.
  let defined = 0;
  for (const key in ao) {
    if (!Object.hasOwn(ao, key)) continue;
    const value = ao[key];
    if (value === undefined) continue;
    defined++;
    if (!Object.hasOwn(bo, key) || !jsonEqual(value, bo[key])) return false;
  }
  for (const key in bo) if (Object.hasOwn(bo, key) && bo[key] !== undefined) defined--;
  return defined === 0;
}
