import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import { PERMISSIONS, RoleCreateSchema, type Permission, type RoleSchema } from '../../../schemas/role.js';
import { ApiError, zodProblems } from '../api.js';
import { AdminNav } from '../components/admin-nav.js';
import { ErrorBox } from '../components/error-box.js';
import { humanize } from '../format.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

type Role = z.infer<typeof RoleSchema>;

function PermissionBoxes({ idPrefix, legend, value, onChange, disabled }: { idPrefix: string; legend: string; value: readonly string[]; onChange: (next: Permission[]) => void; disabled?: boolean }) {
  return (
    <fieldset class="permissions" disabled={disabled}>
      <legend>{legend}</legend>
      {PERMISSIONS.map((p) => (
        <label key={p} class="checkbox" for={`${idPrefix}-${p}`}>
          <input
            id={`${idPrefix}-${p}`}
            type="checkbox"
            checked={value.includes(p)}
            onChange={(e) => {
              const on = (e.currentTarget as HTMLInputElement).checked;
              onChange(PERMISSIONS.filter((x) => (x === p ? on : value.includes(x))));
            }}
          />{' '}
          {humanize(p)}
        </label>
      ))}
    </fieldset>
  );
}

function RoleRow({ role, onSaved }: { role: Role; onSaved: () => void }) {
  const { api } = useSession();
  const [permissions, setPermissions] = useState<string[]>(role.permissions);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  // The row stays (keyed by name) so its notice outlives the reload a save makes; the boxes follow
  // what the console then holds.
  const stored = role.permissions.join();
  useEffect(() => setPermissions(role.permissions), [stored]);
  const changed = permissions.join() !== role.permissions.join();
  const save = async (): Promise<void> => {
    setError(undefined);
    try {
      const r = await api.request<Role>('PATCH', `roles/${encodeURIComponent(role.name)}`, { permissions });
      setNotice(r.message);
      onSaved();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <li class="card">
      <h3>
        {role.name} {role.builtin && <span class="badge">built-in</span>}
      </h3>
      <PermissionBoxes idPrefix={`role-${role.name}`} legend={`Permissions of ${role.name}`} value={permissions} onChange={setPermissions} disabled={role.builtin} />
      {!role.builtin && (
        <button type="button" disabled={!changed} onClick={save}>
          Save {role.name}
        </button>
      )}
      <p role="status" class="muted">
        {notice}
      </p>
      <ErrorBox error={error} title="Not saved" />
    </li>
  );
}

export function AdminRolesPage() {
  const { api, can } = useSession();
  const roles = useAsync((signal) => (can('manage_roles') ? api.get<Role[]>('roles', { signal }).then((r) => r.data) : Promise.resolve([])), [api]);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>(['read']);
  const [error, setError] = useState<unknown>();
  if (!can('manage_roles')) {
    return (
      <>
        <h1>Roles</h1>
        <AdminNav current="/admin/roles" />
        <p>Your key may not manage roles.</p>
      </>
    );
  }
  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    const body = { name: name.trim(), permissions };
    const checked = RoleCreateSchema.safeParse(body);
    if (!checked.success) {
      setError(new ApiError(0, 'The role is not valid.', zodProblems(checked.error)));
      return;
    }
    try {
      await api.request<Role>('POST', 'roles', body);
      setName('');
      roles.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <h1>Roles</h1>
      <AdminNav current="/admin/roles" />
      <section class="card" aria-labelledby="new-role-heading">
        <h2 id="new-role-heading">New role</h2>
        <form onSubmit={create} noValidate>
          <div class="field">
            <label for="role-name">Name</label>
            <input id="role-name" type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <PermissionBoxes idPrefix="new-role" legend="Permissions" value={permissions} onChange={setPermissions} />
          <button type="submit" class="primary">
            Create role
          </button>
          <ErrorBox error={error} title="Role not created" />
        </form>
      </section>
      <ErrorBox error={roles.error} />
      {roles.data && (
        <ul class="roles">
          {roles.data.map((r) => (
            <RoleRow key={r.name} role={r} onSaved={roles.reload} />
          ))}
        </ul>
      )}
    </>
  );
}
