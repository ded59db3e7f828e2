import { PERMISSIONS, type Permission } from '../../schemas/role.js';

export { PERMISSIONS, type Permission };

export const BUILTIN_ROLES: Readonly<Record<string, readonly Permission[]>> = {
  admin: PERMISSIONS,
  member: ['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews'],
  read_only: ['read'],
  // The pre-commit webhook's receiver (the bridge): it decides validations and needs nothing else.
  // Kept apart from member so the people whose change it is cannot decide their own validation.
  webhook_receiver: ['read', 'validate_changes'],
};

/** Scope that makes any key read-only, whatever its user's role. */
export const READ_ONLY_SCOPE = 'omni_read_only';

/** Who is calling: resolved from the SERVICE-API-KEY header on every request. */
export interface Actor {
  userEmail: string;
  keyId: string | null;
  role: string;
  permissions: ReadonlySet<string>;
  /** The only environments whose rules this key may change; absent or empty: every environment. */
  environments?: readonly string[];
  /** The key may change only entities that target one of these apps; absent or empty: any entity. */
  targetApps?: readonly string[];
}

/** The console itself, for writes no user made (timeouts, migrations). */
export const SYSTEM_ACTOR: Actor = { userEmail: 'system@flagops', keyId: null, role: 'admin', permissions: new Set(PERMISSIONS) };
