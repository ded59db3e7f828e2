import { useState } from 'preact/hooks';
import type { z } from 'zod';
import { KEY_TYPES, KeyCreateSchema, type KeySchema, type KeyType } from '../../../schemas/key.js';
import type { RoleSchema } from '../../../schemas/role.js';
import { ApiError, zodProblems } from '../api.js';
import { AdminNav } from '../components/admin-nav.js';
import { ErrorBox } from '../components/error-box.js';
import { showTime } from '../format.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

type Key = z.infer<typeof KeySchema>;
type Role = z.infer<typeof RoleSchema>;

/** A new secret, shown once: the console keeps only its hash. */
function SecretOnce({ secret, onDone }: { secret: { key: string; what: string }; onDone: () => void }) {
  return (
    <div class="banner good" role="alert">
      <h2>Copy the key now</h2>
      <p>
        {secret.what}. It is shown only this once; the console keeps only its hash.
      </p>
      <label for="new-secret">Key</label>
      <input id="new-secret" type="text" readOnly value={secret.key} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} data-testid="new-secret" />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function limitsOf(key: Key): string {
  const apps = [key.primaryTargetApp, ...key.secondaryTargetApps].filter((a): a is string => a !== null);
  const parts = [key.environments.length > 0 ? `environments: ${key.environments.join(', ')}` : '', apps.length > 0 ? `target apps: ${apps.join(', ')}` : ''].filter((p) => p !== '');
  return parts.length > 0 ? parts.join('; ') : 'none';
}

export function AdminKeysPage() {
  const { api, can } = useSession();
  const keys = useAsync((signal) => (can('manage_keys') ? api.get<Key[]>('keys', { query: { limit: 1000 }, signal }).then((r) => r.data) : Promise.resolve([])), [api]);
  const roles = useAsync((signal) => (can('manage_roles') ? api.get<Role[]>('roles', { signal }).then((r) => r.data) : Promise.resolve([])), [api]);
  const empty = { description: '', userEmail: '', role: 'member', readOnly: false, type: 'CONSOLE' as KeyType, environments: '', targetApps: '' };
  const [form, setForm] = useState(empty);
  const [secret, setSecret] = useState<{ key: string; what: string } | undefined>();
  const [error, setError] = useState<unknown>();
  const [rowError, setRowError] = useState<unknown>();

  if (!can('manage_keys')) {
    return (
      <>
        <h1>Keys</h1>
        <AdminNav current="/admin/keys" />
        <p>Your key may not manage keys.</p>
      </>
    );
  }

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    const sdk = form.type !== 'CONSOLE';
    const environments = splitList(form.environments);
    const [targetAppID, ...secondaryTargetAppIDs] = splitList(form.targetApps);
    const email = form.userEmail.trim();
    const body = {
      description: form.description,
      ...(sdk ? { type: form.type } : { role: form.role.trim() }),
      ...(email !== '' || !sdk ? { userEmail: email } : {}),
      ...(!sdk && form.readOnly ? { scopes: ['omni_read_only' as const] } : {}),
      ...(environments.length > 0 ? { environments } : {}),
      ...(targetAppID !== undefined ? { targetAppID } : {}),
      ...(secondaryTargetAppIDs.length > 0 ? { secondaryTargetAppIDs } : {}),
    };
    const checked = KeyCreateSchema.safeParse(body);
    if (!checked.success) {
      setError(new ApiError(0, 'The key is not valid.', zodProblems(checked.error)));
      return;
    }
    try {
      const r = await api.request<Key>('POST', 'keys', body);
      setSecret({ key: r.data.key ?? '', what: r.data.type === 'CONSOLE' ? `A key for ${r.data.userEmail} (${r.data.role ?? ''})` : `A ${r.data.type} SDK key of ${r.data.userEmail}` });
      setForm({ ...empty, role: form.role, type: form.type });
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  const act = async (key: Key, method: string, suffix: string): Promise<void> => {
    setRowError(undefined);
    if (suffix === '' && !window.confirm(`Delete the key "${key.description || key.id}" of ${key.userEmail}?`)) return;
    try {
      const r = await api.request<Key>(method, `keys/${encodeURIComponent(key.id)}${suffix}`);
      if (suffix === '/rotate' && r.data?.key) setSecret({ key: r.data.key, what: `The new secret of ${key.userEmail}'s key ${key.id}` });
      keys.reload();
    } catch (e) {
      setRowError(e);
    }
  };

  return (
    <>
      <h1>Keys</h1>
      <AdminNav current="/admin/keys" />
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(undefined)} />}
      <section class="card" aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">New key</h2>
        <form onSubmit={create} class="grid-form" noValidate>
          <div class="field">
            <label for="key-type">Type</label>
            <select id="key-type" value={form.type} onChange={(e) => setForm({ ...form, type: (e.currentTarget as HTMLSelectElement).value as KeyType })}>
              {KEY_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t === 'CONSOLE' ? 'CONSOLE (Console API)' : `${t} (SDK)`}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="key-email">User e-mail{form.type !== 'CONSOLE' && ' (owner; you when empty)'}</label>
            <input id="key-email" type="email" value={form.userEmail} onInput={(e) => setForm({ ...form, userEmail: (e.currentTarget as HTMLInputElement).value })} />
          </div>
          {form.type === 'CONSOLE' && (
            <div class="field">
              <label for="key-role">Role</label>
              <input id="key-role" type="text" list="role-names" value={form.role} onInput={(e) => setForm({ ...form, role: (e.currentTarget as HTMLInputElement).value })} />
              <datalist id="role-names">
                {(roles.data ?? []).map((r) => (
                  <option key={r.name} value={r.name} />
                ))}
              </datalist>
            </div>
          )}
          <div class="field">
            <label for="key-description">Description</label>
            <input id="key-description" type="text" value={form.description} onInput={(e) => setForm({ ...form, description: (e.currentTarget as HTMLInputElement).value })} />
          </div>
          <div class="field">
            <label for="key-environments">Environments (comma-separated; empty: all)</label>
            <input id="key-environments" type="text" value={form.environments} onInput={(e) => setForm({ ...form, environments: (e.currentTarget as HTMLInputElement).value })} />
          </div>
          <div class="field">
            <label for="key-target-apps">Target apps (comma-separated, the primary first; empty: all)</label>
            <input id="key-target-apps" type="text" value={form.targetApps} onInput={(e) => setForm({ ...form, targetApps: (e.currentTarget as HTMLInputElement).value })} />
          </div>
          {form.type === 'CONSOLE' && (
            <div class="field">
              <label class="checkbox">
                <input type="checkbox" checked={form.readOnly} onChange={(e) => setForm({ ...form, readOnly: (e.currentTarget as HTMLInputElement).checked })} /> Read-only (omni_read_only)
              </label>
            </div>
          )}
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
        <ErrorBox error={error} title="Key not created" />
      </section>
      <ErrorBox error={keys.error} />
      <ErrorBox error={rowError} title="The console refused" />
      {keys.data && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Keys">
          <table>
            <caption>API keys</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">User</th>
                <th scope="col">Type</th>
                <th scope="col">Role</th>
                <th scope="col">Limits</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>
                    <code>{k.id}</code>
                    {k.description && <div class="muted small">{k.description}</div>}
                  </td>
                  <td>{k.userEmail}</td>
                  <td>{k.type}</td>
                  <td>
                    {k.role ?? <span class="muted">none (SDK key)</span>}
                    {k.scopes.length > 0 && <span class="muted"> ({k.scopes.join(', ')})</span>}
                  </td>
                  <td>{limitsOf(k)}</td>
                  <td>{k.isActive ? 'active' : 'deactivated'}</td>
                  <td>{showTime(k.createdTime)}</td>
                  <td>
                    <div class="buttons">
                    <button type="button" onClick={() => act(k, 'PATCH', '/rotate')} aria-label={`Rotate key ${k.id}`}>
                      Rotate
                    </button>
                    {k.isActive && (
                      <button type="button" onClick={() => act(k, 'PATCH', '/deactivate')} aria-label={`Deactivate key ${k.id}`}>
                        Deactivate
                      </button>
                    )}
                    <button type="button" class="danger" onClick={() => act(k, 'DELETE', '')} aria-label={`Delete key ${k.id}`}>
                      Delete
                    </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
