/**
 * No key grants more than it holds: keys, users' roles, roles and settings change only within the
 * caller's permissions, environments and apps; e-mails name one user whatever their case; every key,
 * user-role and role change leaves an audit row without a secret.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { startTestReceiver } from '../../test-support/webhook-receiver.js';
import { hashKey } from '../auth-service.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

/** A key of `email` with `role`, limited to staging and app web. */
async function limitedKey(email: string, role: string): Promise<{ id: string; secret: string }> {
  await c.app.ready();
  const { key, secret } = await c.auth.createKey({ description: 'limited', userEmail: email, role, environments: ['staging'], targetAppID: 'web' });
  return { id: key.id, secret };
}

async function customRole(name: string, permissions: string[]): Promise<void> {
  expect((await c.call('POST', '/console/v1/roles', { name, permissions })).statusCode).toBe(201);
}

const roleOf = async (email: string): Promise<string | undefined> => (await c.store.auth.getUser(email))?.role;

describe('a key limited to environments and apps', () => {
  it("cannot change the role of a user who has a key outside its limits, through a key of that user it covers", async () => {
    const limited = await limitedKey('lead@example.com', 'admin');
    await c.keyFor('dev@example.com', 'member');
    // Keys within its limits for users who also hold unlimited keys.
    for (const [email, role] of [['admin@localhost', 'admin'], ['dev@example.com', 'member']] as const) {
      const created = await c.call('POST', '/console/v1/keys', { description: 'mine', userEmail: email, role, environments: ['staging'], targetAppID: 'web' }, limited.secret);
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().data.id as string;
      const res = await c.call('PATCH', `/console/v1/keys/${id}`, { role: role === 'admin' ? 'read_only' : 'admin' }, limited.secret);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/^This key is limited to environments staging: it may not change the role of the user of a key for every environment\.$/);
    }
    expect(await roleOf('admin@localhost')).toBe('admin');
    expect(await roleOf('dev@example.com')).toBe('member');
    expect((await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'other@example.com', role: 'admin' }, ADMIN_KEY)).statusCode).toBe(201);
  });

  it('cannot change roles or settings, which apply to every environment and app', async () => {
    const limited = await limitedKey('lead@example.com', 'admin');
    const attempts: [string, string, unknown][] = [
      ['PATCH', '/console/v1/roles/member', { permissions: ['read'] }],
      ['POST', '/console/v1/roles', { name: 'mine', permissions: ['read'] }],
      ['POST', '/console/v1/settings/reviews', { is_config_review_required: true }],
      ['POST', '/console/v1/settings/precommit_webhook', { initialMessage: 'mine' }],
    ];
    for (const [method, url, body] of attempts) {
      const res = await c.call(method, url, body, limited.secret);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toMatch(/^This key is limited \(environment staging, target app web\): it may not /);
    }
    await customRole('spare', ['read']);
    expect((await c.call('DELETE', '/console/v1/roles/spare', undefined, limited.secret)).statusCode).toBe(403);
    expect((await c.call('GET', '/console/v1/roles/member')).json().data.permissions).toContain('write');
    expect((await c.call('GET', '/console/v1/settings/reviews')).json().data.is_config_review_required).toBe(false);
  });
});

describe('manage_keys without admin', () => {
  it('cannot create a key with a role holding more than its own, nor raise its own key', async () => {
    await customRole('key_manager', ['read', 'manage_keys']);
    const manager = await c.keyFor('keys@example.com', 'key_manager');
    const created = await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'new@example.com', role: 'admin' }, manager);
    expect(created.statusCode).toBe(403);
    expect(created.json().message).toMatch(/^This key's role lacks write, submit_reviews, .*manage_roles: it may not create a key holding them\.$/);
    expect(await roleOf('new@example.com')).toBeUndefined();
    const own = (await c.call('GET', '/console/v1/whoami', undefined, manager)).json().data.keyID as string;
    const raised = await c.call('PATCH', `/console/v1/keys/${own}`, { role: 'admin' }, manager);
    expect(raised.statusCode).toBe(403);
    expect(await roleOf('keys@example.com')).toBe('key_manager');
    // Within its own permissions it may.
    expect((await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'reader@example.com', role: 'read_only' }, manager)).statusCode).toBe(201);
  });

  it('cannot rotate, deactivate, delete or demote a key that holds more than it does', async () => {
    await customRole('key_manager', ['read', 'manage_keys']);
    const manager = await c.keyFor('keys@example.com', 'key_manager');
    const adminId = (await c.call('GET', '/console/v1/whoami')).json().data.keyID as string;
    for (const [method, path, body] of [
      ['PATCH', `/console/v1/keys/${adminId}/rotate`, undefined],
      ['PATCH', `/console/v1/keys/${adminId}/deactivate`, undefined],
      ['DELETE', `/console/v1/keys/${adminId}`, undefined],
      ['PATCH', `/console/v1/keys/${adminId}`, { role: 'read_only' }],
      ['PATCH', `/console/v1/keys/${adminId}`, { scopes: ['omni_read_only'] }],
    ] as const) {
      const res = await c.call(method, path, body, manager);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
    expect((await c.call('GET', '/console/v1/whoami')).json().data.role).toBe('admin');
  });
});

describe('manage_roles without admin', () => {
  it('cannot add to a role a permission its own role lacks, nor edit built-in roles', async () => {
    await customRole('role_manager', ['read', 'manage_roles']);
    const manager = await c.keyFor('roles@example.com', 'role_manager');
    const own = await c.call('PATCH', '/console/v1/roles/role_manager', { permissions: ['read', 'manage_roles', 'manage_keys', 'manage_settings', 'write'] }, manager);
    expect(own.statusCode).toBe(403);
    expect(own.json().message).toBe("This key's role lacks manage_keys, manage_settings, write: it may not give them to role role_manager.");
    expect((await c.call('POST', '/console/v1/roles', { name: 'super', permissions: ['read', 'write'] }, manager)).statusCode).toBe(403);
    expect((await c.call('PATCH', '/console/v1/roles/member', { permissions: ['read'] }, manager)).statusCode).toBe(409);
    expect((await c.call('GET', '/console/v1/roles/member')).json().data.permissions).toEqual(['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews']);
    // A role holding more than the caller cannot be stripped either.
    await customRole('writer', ['read', 'write']);
    expect((await c.call('PATCH', '/console/v1/roles/writer', { permissions: ['read'] }, manager)).statusCode).toBe(403);
    expect((await c.call('POST', '/console/v1/roles', { name: 'reader', permissions: ['read'] }, manager)).statusCode).toBe(201);
  });
});

describe('e-mail addresses', () => {
  it('name one user whatever their case: a second key cannot give "M@x" another role than "m@x"', async () => {
    expect((await c.call('POST', '/console/v1/keys', { description: 'a', userEmail: 'm@x.io', role: 'member' })).statusCode).toBe(201);
    const other = await c.call('POST', '/console/v1/keys', { description: 'b', userEmail: 'M@x.io', role: 'webhook_receiver' });
    expect(other.statusCode).toBe(409);
    const same = await c.call('POST', '/console/v1/keys', { description: 'c', userEmail: 'M@X.io', role: 'member' });
    expect(same.json().data.userEmail).toBe('m@x.io');
  });

  it('keep separation of duty: "M@x" cannot decide the validation of a change "m@x" submitted and committed', async () => {
    const receiver = await startTestReceiver();
    try {
      await c.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: 'k' });
      await c.call('POST', '/console/v1/roles', { name: 'dev', permissions: ['read', 'write', 'submit_reviews', 'commit_reviews'] });
      const submitter = await c.keyFor('m@x.io', 'dev');
      // A user stored before addresses were folded, with the same address in another case.
      await c.store.auth.upsertUser({ email: 'M@x.io', role: 'webhook_receiver', createdTime: 0 });
      await c.store.auth.insertKey({ id: 'key_legacy', userEmail: 'M@x.io', description: 'legacy', hash: hashKey('console-legacy-validator'), scopes: [], active: true, createdTime: 0, lastRotatedTime: null, type: 'CONSOLE', environments: [], primaryTargetApp: null, secondaryTargetApps: [] });
      await c.call('POST', '/console/v1/gates', { id: 'sod', name: 'sod' });
      const id = (await c.call('POST', '/console/v1/gates/sod/reviews', { change: { rules: [{ name: 'r', passPercentage: 5, conditions: [{ type: 'public' }] }] } }, submitter)).json().data.reviewID as string;
      expect((await c.call('PUT', `/console/v1/gates/sod/reviews/${id}/approve`)).statusCode).toBe(200);
      expect((await c.call('PUT', `/console/v1/gates/sod/reviews/${id}/commit`, undefined, submitter)).json().data.status).toBe('pending_webhook_validation');
      const decided = await c.call('POST', '/console/v1/change_validation', { reviewID: id, validated: true, message: 'fine' }, 'console-legacy-validator');
      expect(decided.statusCode).toBe(403);
      expect(decided.json().message).toBe('m@x.io submitted this review; a user who submitted, approved or committed a change cannot decide its validation.');
    } finally {
      await receiver.close();
    }
  });
});

describe('audit rows of keys, users and roles', () => {
  it('records every creation, change, rotation, deactivation and deletion, before and after, without a secret', async () => {
    const created = (await c.call('POST', '/console/v1/keys', { description: 'ci', userEmail: 'ci@example.com', role: 'member' })).json().data as { id: string; key: string };
    await c.call('PATCH', `/console/v1/keys/${created.id}`, { description: 'ci runner', role: 'read_only' });
    const rotated = (await c.call('PATCH', `/console/v1/keys/${created.id}/rotate`)).json().data.key as string;
    await c.call('PATCH', `/console/v1/keys/${created.id}/deactivate`);
    await c.call('DELETE', `/console/v1/keys/${created.id}`);
    await customRole('release', ['read']);
    await c.call('PATCH', '/console/v1/roles/release', { permissions: ['read', 'write'] });
    await c.call('DELETE', '/console/v1/roles/release');
    const audit = await c.call('GET', '/console/v1/audit_logs?limit=100');
    const rows = (audit.json().data as { kind: string; action: string; entityId: string; actorEmail: string; details: Record<string, unknown> }[]).reverse();
    expect(rows.map((r) => [r.kind, r.action, r.entityId])).toEqual([
      ['key', 'create', created.id],
      ['user', 'update', 'ci@example.com'],
      ['key', 'update', created.id],
      ['key', 'rotate', created.id],
      ['key', 'deactivate', created.id],
      ['key', 'delete', created.id],
      ['role', 'create', 'release'],
      ['role', 'update', 'release'],
      ['role', 'delete', 'release'],
    ]);
    expect(rows.every((r) => r.actorEmail === 'admin@localhost')).toBe(true);
    expect(rows[1]?.details).toMatchObject({ before: { role: 'member' }, after: { role: 'read_only' } });
    expect(rows[2]?.details).toMatchObject({ before: { description: 'ci', role: 'member' }, after: { description: 'ci runner', role: 'read_only' } });
    expect(rows[7]?.details).toEqual({ before: { permissions: ['read'] }, after: { permissions: ['read', 'write'] } });
    expect(audit.body).not.toContain(created.key);
    expect(audit.body).not.toContain(rotated);
    expect(audit.body).not.toContain(hashKey(created.key));
  });
});
