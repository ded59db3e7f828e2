import { ConflictError, NotAllowedError, NotFoundError } from '../errors.js';
import type { JsonObject, RoleRecord, Store, StoreRepos } from '../store/ports.js';
import { jsonEqual } from '../core/json-equal.js';
import { assertCallerUnlimited } from './key-scope.js';
import { BUILTIN_ROLES, SYSTEM_ACTOR, type Actor } from './permissions.js';

export interface AuthDeps {
  store: Store;
  clock: () => number;
}

/**
 * Refuses, naming what is missing, when `permissions` holds one the caller lacks: no key grants (or
 * takes away from another) more than it holds. Absent caller: the shell and the bootstrap.
 */
export function assertCallerHolds(caller: Actor | undefined, permissions: readonly string[], what: string): void {
  if (!caller) return;
  const missing = [...new Set(permissions)].filter((p) => !caller.permissions.has(p));
  if (missing.length > 0) throw new NotAllowedError(`This key's role lacks ${missing.join(', ')}: it may not ${what}.`);
}

/** Roles: the built-in ones, and custom roles no caller may make more powerful than itself. */
export class RoleManagement {
  constructor(protected readonly deps: AuthDeps) {}

  /** Creates the built-in roles on an empty database; never overwrites edited ones. */
  async ensureBuiltinRoles(): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      for (const [name, permissions] of Object.entries(BUILTIN_ROLES)) {
        if (!(await tx.roles.get(name))) await tx.roles.upsert({ name, permissions: [...permissions], builtin: true });
      }
    });
  }

  /**
   * Creates a custom role; 409 when the name exists. Permissions are de-duplicated. A caller (absent:
   * the shell) may give it only permissions its own role holds, and not when its key is limited.
   */
  createRole(name: string, permissions: readonly string[], caller?: Actor): Promise<RoleRecord> {
    assertCallerUnlimited(caller, 'create roles');
    assertCallerHolds(caller, permissions, `create a role with them`);
    return this.deps.store.transaction(async (tx) => {
      await tx.lock?.(`role:${name}`);
      if (await tx.roles.get(name)) throw new ConflictError(`Role ${name} already exists.`);
      const created = { name, permissions: [...new Set(permissions)], builtin: false };
      await tx.roles.upsert(created);
      await this.audit(tx, caller, 'create', 'role', name, { before: null, after: { permissions: created.permissions } });
      return created;
    });
  }

  /**
   * Replaces a custom role's permissions; built-in roles stay as they are. A caller may change only a
   * role whose permissions, before and after, its own role holds, and not when its key is limited.
   */
  updateRole(name: string, permissions: readonly string[], caller?: Actor): Promise<{ before: RoleRecord; after: RoleRecord }> {
    assertCallerUnlimited(caller, 'change roles');
    return this.deps.store.transaction(async (tx) => {
      await tx.lock?.(`role:${name}`);
      const existing = await tx.roles.get(name);
      if (!existing) throw new NotFoundError('Role not found.');
      if (existing.builtin || Object.hasOwn(BUILTIN_ROLES, name)) {
        throw new ConflictError(`Role ${name} is built in and cannot be changed; create a custom role with the permissions you need.`);
      }
      assertCallerHolds(caller, existing.permissions, `change role ${name}, which holds them`);
      assertCallerHolds(caller, permissions, `give them to role ${name}`);
      const updated = { ...existing, permissions: [...new Set(permissions)] };
      await tx.roles.upsert(updated);
      if (!jsonEqual([...existing.permissions].sort(), [...updated.permissions].sort())) {
        await this.audit(tx, caller, 'update', 'role', name, { before: { permissions: existing.permissions }, after: { permissions: updated.permissions } });
      }
      return { before: existing, after: updated };
    });
  }

  async getRole(name: string): Promise<RoleRecord> {
    const role = await this.deps.store.roles.get(name);
    if (!role) throw new NotFoundError('Role not found.');
    return role;
  }

  /** Deletes a custom role that no user holds; built-in roles stay. */
  async deleteRole(name: string, caller?: Actor): Promise<RoleRecord> {
    assertCallerUnlimited(caller, 'delete roles');
    return this.deps.store.transaction(async (tx) => {
      await tx.lock?.(`role:${name}`);
      const existing = await tx.roles.get(name);
      if (!existing) throw new NotFoundError('Role not found.');
      if (existing.builtin) throw new ConflictError(`Role ${name} is built in and cannot be deleted.`);
      assertCallerHolds(caller, existing.permissions, `delete role ${name}, which holds them`);
      const holders = await tx.auth.countUsersWithRole(name);
      if (holders > 0) {
        throw new ConflictError(`Role ${name} is held by ${holders} ${holders === 1 ? 'user' : 'users'}; give them another role first (PATCH /console/v1/keys/{id} { "role": ... }).`);
      }
      await tx.roles.delete(name);
      await this.audit(tx, caller, 'delete', 'role', name, { before: { permissions: existing.permissions }, after: null });
      return existing;
    });
  }

  /** The permissions a role holds (none for an unknown role). */
  protected async rolePermissions(repos: StoreRepos, role: string): Promise<string[]> {
    return (await repos.roles.get(role))?.permissions ?? [];
  }

  /** One audit row, in the transaction of the change it records; never a secret or a hash. */
  protected async audit(tx: StoreRepos, caller: Actor | undefined, action: string, kind: string, entityId: string, details: JsonObject): Promise<void> {
    const actor = caller ?? SYSTEM_ACTOR;
    await tx.audit.append({ time: this.deps.clock(), actorEmail: actor.userEmail, actorKeyId: actor.keyId, action, kind, entityId, version: null, reviewId: null, details });
  }
}
