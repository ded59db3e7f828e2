/**
 * The user an evaluation is for, in the Statsig SDK's shape (every surface maps its input to it:
 * OFREP's context, `flagops eval --user`, the console's "try it"). Field lookups follow the SDK's
 * order exactly, so a condition sees the same value in flagops as in `statsig-node`.
 */
export interface EvalUser {
  userID?: string | number | null;
  email?: unknown;
  ip?: unknown;
  userAgent?: unknown;
  country?: unknown;
  locale?: unknown;
  appVersion?: unknown;
  custom?: Record<string, unknown> | null;
  privateAttributes?: Record<string, unknown> | null;
  customIDs?: Record<string, unknown> | null;
  statsigEnvironment?: Record<string, unknown> | null;
}

function caseInsensitive(object: Record<string, unknown> | null | undefined, key: string): unknown {
  if (object == null) return undefined;
  const lower = key.toLowerCase();
  for (const k of Object.keys(object)) {
    if (k.toLowerCase() === lower) return object[k];
  }
  return undefined;
}

/** The unit an entity or rule buckets on: `userID`, or the custom id named by `idType` (case-insensitive). */
export function unitIDOf(user: EvalUser, idType: unknown): unknown {
  if (typeof idType === 'string' && idType !== 'userID' && idType.toLowerCase() !== 'userid') {
    const direct = user.customIDs?.[idType];
    if (direct !== undefined) return direct;
    return caseInsensitive(user.customIDs, idType);
  }
  return user.userID;
}

/** A user field: top-level, then `custom`, then `privateAttributes`, each as given then lower-cased. */
export function userField(user: EvalUser, field: string | null): unknown {
  if (field == null) return null;
  const top = user as Record<string, unknown>;
  const direct = top[field];
  if (direct != null) return direct;
  const lower = field.toLowerCase();
  return top[lower] ?? user.custom?.[field] ?? user.custom?.[lower]
    ?? user.privateAttributes?.[field] ?? user.privateAttributes?.[lower];
}

/** A field of an environment (the user's `statsigEnvironment`, or the evaluation's `{ tier }`), case-insensitive. */
export function environmentField(environment: Record<string, unknown> | null | undefined, field: string | null): unknown {
  if (field == null) return null;
  return caseInsensitive(environment, field);
}
