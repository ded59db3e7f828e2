import { createHash, randomBytes } from 'node:crypto';
import type { KeyType } from '../../schemas/key.js';
import { ConflictError, InputError, NotFoundError, type FieldError } from '../errors.js';
import type { JsonObject, KeyRecord, StoreRepos } from '../store/ports.js';
import { jsonEqual } from '../core/json-equal.js';
import { foldEmail, sameEmail } from '../core/same-email.js';
import { assertCallerCoversKey } from './key-scope.js';
import { READ_ONLY_SCOPE, type Actor } from './permissions.js';
import { assertCallerHolds, RoleManagement } from './role-management.js';

/** Secret prefixes by key type, as the reference console has them: an SDK key is told apart at a glance. */
const KEY_PREFIXES: Readonly<Record<KeyType, string>> = { CONSOLE: 'console-', SERVER: 'secret-', CLIENT: 'client-' };

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function newSecret(type: KeyType = 'CONSOLE'): string {
  return `${KEY_PREFIXES[type]}${randomBytes(24).toString('base64url')}`;
}

/** A key as the API shows it: never the hash, never the secret. */
export interface KeyView {
  id: string;
  type: KeyType;
  description: string;
  userEmail: string;
  /** The user's role; null for SDK keys, which act as no user. */
  role: string | null;
  scopes: string[];
  environments: string[];
  primaryTargetApp: string | null;
  secondaryTargetApps: string[];
  isActive: boolean;
  status: 'active' | 'deactivated';
  createdTime: number;
  lastRotatedTime: number | null;
}

export interface NewKey {
  description: string;
  /** CONSOLE when absent. */
  type?: KeyType;
  /** Required for CONSOLE keys; an SDK key's owner, the caller when absent. */
  userEmail?: string;
  /** Required for CONSOLE keys, refused for SDK keys. */
  role?: string;
  scopes?: string[];
  environments?: string[];
  targetAppID?: string;
  secondaryTargetAppIDs?: string[];
}

export interface KeyPatch {
  description?: string;
  role?: string;
  scopes?: string[];
  environments?: string[];
  targetAppID?: string | null;
  secondaryTargetAppIDs?: string[] | null;
}

/** Lists that are sets (scopes, environments) keep each item once, as roles keep their permissions: a repeat adds nothing. */
const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** Target apps as stored: the secondaries without duplicates or the primary. */
function targetAppsOf(primary: string | null, secondary: readonly string[]): { primaryTargetApp: string | null; secondaryTargetApps: string[] } {
  return { primaryTargetApp: primary, secondaryTargetApps: unique(secondary).filter((app) => app !== primary) };
}

/** What only CONSOLE keys have, and secondary apps without a primary one. */
function keyShapeErrors(type: KeyType, fields: { role?: string; scopes?: readonly string[]; primaryTargetApp: string | null; secondaryTargetApps: readonly string[] }): FieldError[] {
  const errors: FieldError[] = [];
  if (type !== 'CONSOLE') {
    if (fields.role !== undefined) errors.push({ property: 'role', errorMessage: `only CONSOLE keys have a role; a ${type} key acts as no user` });
    if ((fields.scopes ?? []).length > 0) errors.push({ property: 'scopes', errorMessage: `only CONSOLE keys take scopes; a ${type} key never calls the Console API` });
  }
  if (fields.primaryTargetApp === null && fields.secondaryTargetApps.length > 0) {
    errors.push({ property: 'targetAppID', errorMessage: 'is required when secondaryTargetAppIDs lists apps' });
  }
  return errors;
}

/** A key as its audit rows show it: what the API shows (never the secret or its hash). */
function auditedKey(key: KeyView): JsonObject {
  return { ...key } as unknown as JsonObject;
}

/** API keys and their users. Keys are stored as sha256 hashes, never their secrets. */
export class KeyManagement extends RoleManagement {
  /** What a key may do: its user's role, or read only under omni_read_only; SDK keys call no Console API. */
  private async keyPermissions(repos: StoreRepos, key: Pick<KeyRecord, 'type' | 'scopes' | 'userEmail'>, role?: string): Promise<string[]> {
    if (key.type !== 'CONSOLE') return [];
    if (key.scopes.includes(READ_ONLY_SCOPE)) return ['read'];
    return this.rolePermissions(repos, role ?? (await repos.auth.getUser(key.userEmail))?.role ?? 'read_only');
  }

  private async assertRole(tx: StoreRepos, role: string): Promise<void> {
    // Held to the end: a role deleted meanwhile would leave the user holding no role.
    await tx.lock?.(`role:${role}`);
    if (!(await tx.roles.get(role))) throw new InputError('Unknown role.', [{ property: 'role', errorMessage: `unknown role '${role}'` }]);
  }

  /**
   * Inserts a key, its user too for a new CONSOLE key's user. `caller` (absent for the shell and the
   * bootstrap) owns SDK keys created without userEmail, and may create only keys within its own
   * environments and target apps.
   */
  protected async insertKeyIn(tx: StoreRepos, input: NewKey, secret: string, caller?: Actor): Promise<KeyRecord> {
    const { clock } = this.deps;
    const type = input.type ?? 'CONSOLE';
    const apps = targetAppsOf(input.targetAppID ?? null, input.secondaryTargetAppIDs ?? []);
    const errors = keyShapeErrors(type, { role: input.role, scopes: input.scopes, ...apps });
    const given = input.userEmail ?? (type === 'CONSOLE' ? undefined : caller?.userEmail);
    const userEmail = given === undefined ? undefined : foldEmail(given);
    if (userEmail === undefined) errors.push({ property: 'userEmail', errorMessage: type === 'CONSOLE' ? 'is required for CONSOLE keys' : 'is required: no caller to own the key' });
    if (type === 'CONSOLE' && input.role === undefined) errors.push({ property: 'role', errorMessage: 'is required for CONSOLE keys' });
    if (errors.length > 0 || userEmail === undefined) throw new InputError('Invalid key.', errors);
    const key: KeyRecord = {
      id: `key_${randomBytes(8).toString('hex')}`,
      userEmail,
      description: input.description,
      hash: hashKey(secret),
      scopes: unique(input.scopes ?? []),
      active: true,
      createdTime: clock(),
      lastRotatedTime: null,
      type,
      environments: unique(input.environments ?? []),
      ...apps,
    };
    assertCallerCoversKey(caller, key, 'create');
    // Two keys for one new user on two replicas would both create the user, each with its own role.
    await tx.lock?.(`user:${userEmail}`);
    const user = await tx.auth.getUser(userEmail);
    if (input.role === undefined) {
      if (!user) throw new InputError('Invalid key.', [{ property: 'userEmail', errorMessage: `unknown user '${userEmail}'; a ${type} key belongs to an existing user` }]);
    } else {
      await this.assertRole(tx, input.role);
      if (user && user.role !== input.role) {
        throw new ConflictError(`User ${userEmail} already has role '${user.role}'; change it with PATCH /console/v1/keys/{id} { "role": ... }.`);
      }
      if (!user) await tx.auth.upsertUser({ email: userEmail, role: input.role, createdTime: clock() });
    }
    assertCallerHolds(caller, await this.keyPermissions(tx, key, input.role ?? user?.role), `create a key holding them`);
    await tx.auth.insertKey(key);
    return key;
  }

  async createKey(input: NewKey, caller?: Actor): Promise<{ key: KeyView; secret: string }> {
    const secret = newSecret(input.type);
    return this.deps.store.transaction(async (tx) => {
      const record = await this.insertKeyIn(tx, input, secret, caller);
      const key = await this.view(record, tx);
      await this.audit(tx, caller, 'create', 'key', key.id, { before: null, after: auditedKey(key) });
      return { key, secret };
    });
  }

  async view(key: KeyRecord, repos: StoreRepos = this.deps.store, userRole?: string): Promise<KeyView> {
    const role = key.type === 'CONSOLE' ? (userRole ?? (await repos.auth.getUser(key.userEmail))?.role ?? 'read_only') : null;
    return {
      id: key.id,
      type: key.type,
      description: key.description,
      userEmail: key.userEmail,
      role,
      scopes: key.scopes,
      environments: key.environments,
      primaryTargetApp: key.primaryTargetApp,
      secondaryTargetApps: key.secondaryTargetApps,
      isActive: key.active,
      status: key.active ? 'active' : 'deactivated',
      createdTime: key.createdTime,
      lastRotatedTime: key.lastRotatedTime,
    };
  }

  async listKeys(): Promise<KeyView[]> {
    const keys = await this.deps.store.auth.listKeys();
    return Promise.all(keys.map((k) => this.view(k)));
  }

  async getKey(id: string): Promise<KeyView> {
    return this.view(await this.requireKey(this.deps.store, id));
  }

  /** The key with that id, when `caller` (absent: unrestricted) may manage it. */
  private async requireKey(repos: StoreRepos, id: string, caller?: Actor, what = 'change'): Promise<KeyRecord> {
    // In a transaction, the key is held until it ends: a deactivation or rotation on one replica and
    // an edit of the same key on another would otherwise each write back what it read, and undo the other.
    await repos.lock?.(`key:${id}`);
    const key = await repos.auth.getKey(id);
    if (!key) throw new NotFoundError('Key not found.');
    assertCallerCoversKey(caller, key, what);
    return key;
  }

  updateKey(id: string, patch: KeyPatch, caller?: Actor): Promise<{ before: KeyView; after: KeyView }> {
    return this.deps.store.transaction(async (tx) => {
      const key = await this.requireKey(tx, id, caller);
      assertCallerHolds(caller, await this.keyPermissions(tx, key), `change key ${key.id}, which holds them`);
      const apps = targetAppsOf(
        patch.targetAppID === undefined ? key.primaryTargetApp : patch.targetAppID,
        patch.secondaryTargetAppIDs === undefined ? key.secondaryTargetApps : (patch.secondaryTargetAppIDs ?? []),
      );
      const errors = keyShapeErrors(key.type, { role: patch.role, scopes: patch.scopes, ...apps });
      if (errors.length > 0) throw new InputError('Invalid key.', errors);
      const updated: KeyRecord = {
        ...key,
        description: patch.description ?? key.description,
        scopes: patch.scopes === undefined ? key.scopes : unique(patch.scopes),
        environments: patch.environments === undefined ? key.environments : unique(patch.environments),
        ...apps,
      };
      assertCallerCoversKey(caller, updated, 'change');
      const user = await tx.auth.getUser(key.userEmail);
      const roleBefore = user?.role ?? 'read_only';
      if (patch.role !== undefined && patch.role !== roleBefore) {
        await tx.lock?.(`user:${key.userEmail}`);
        await this.assertRole(tx, patch.role);
        // The role is the user's: every key of the user changes with it.
        assertCallerHolds(caller, await this.rolePermissions(tx, roleBefore), `change the role of ${key.userEmail}, whose role '${roleBefore}' holds them`);
        assertCallerHolds(caller, await this.rolePermissions(tx, patch.role), `give ${key.userEmail} role '${patch.role}'`);
        if ((caller?.environments ?? []).length > 0 || (caller?.targetApps ?? []).length > 0) {
          for (const other of await tx.auth.listKeys()) if (sameEmail(other.userEmail, key.userEmail)) assertCallerCoversKey(caller, other, `change the role of the user of`);
        }
        await tx.auth.upsertUser({ email: key.userEmail, role: patch.role, createdTime: user?.createdTime ?? this.deps.clock() });
        await this.audit(tx, caller, 'update', 'user', key.userEmail, { before: { role: roleBefore }, after: { role: patch.role }, key: key.id });
      }
      assertCallerHolds(caller, await this.keyPermissions(tx, updated, patch.role ?? roleBefore), `give key ${key.id} them`);
      await tx.auth.updateKey(updated);
      const views = { before: await this.view(key, tx, roleBefore), after: await this.view(updated, tx) };
      // A change that changes nothing is no change to audit.
      const audited = { before: auditedKey(views.before), after: auditedKey(views.after) };
      if (!jsonEqual(audited.before, audited.after)) await this.audit(tx, caller, 'update', 'key', key.id, audited);
      return views;
    });
  }

  rotateKey(id: string, caller?: Actor): Promise<{ key: KeyView; secret: string }> {
    return this.deps.store.transaction(async (tx) => {
      const current = await this.requireKey(tx, id, caller, 'rotate');
      // Rotating hands out the new secret: of a key that may do more than the caller, that is escalation.
      assertCallerHolds(caller, await this.keyPermissions(tx, current), `rotate key ${id}, which holds them`);
      const secret = newSecret(current.type);
      const key = { ...current, hash: hashKey(secret), lastRotatedTime: this.deps.clock() };
      await tx.auth.updateKey(key);
      const view = await this.view(key, tx);
      await this.audit(tx, caller, 'rotate', 'key', id, { before: auditedKey(await this.view(current, tx)), after: auditedKey(view) });
      return { key: view, secret };
    });
  }

  deactivateKey(id: string, caller?: Actor): Promise<KeyView> {
    return this.deps.store.transaction(async (tx) => {
      const current = await this.requireKey(tx, id, caller, 'deactivate');
      assertCallerHolds(caller, await this.keyPermissions(tx, current), `deactivate key ${id}, which holds them`);
      const key = { ...current, active: false };
      await tx.auth.updateKey(key);
      const view = await this.view(key, tx);
      if (current.active) await this.audit(tx, caller, 'deactivate', 'key', id, { before: auditedKey(await this.view(current, tx)), after: auditedKey(view) });
      return view;
    });
  }

  async deleteKey(id: string, caller?: Actor): Promise<KeyView> {
    return this.deps.store.transaction(async (tx) => {
      const key = await this.requireKey(tx, id, caller, 'delete');
      assertCallerHolds(caller, await this.keyPermissions(tx, key), `delete key ${id}, which holds them`);
      const view = await this.view(key, tx);
      await tx.auth.deleteKey(id);
      await this.audit(tx, caller, 'delete', 'key', id, { before: auditedKey(view), after: null });
      return view;
    });
  }
}
