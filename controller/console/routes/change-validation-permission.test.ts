/**
 * Who may decide a pending validation: only a key holding validate_changes (not the built-in member
 * role), and never a user who submitted, approved or committed the change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sqliteAtVersion } from '../../test-support/sqlite-at-version.js';
import { ADMIN_KEY, createTestConsole } from '../../test-support/test-console.js';
import { useWebhookConsole } from '../../test-support/webhook-console.js';
import { PERMISSIONS } from '../permissions.js';

const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };
const env = useWebhookConsole({ webhookKey: 'whk-permission-test', webhookTimeoutMs: 60_000, seed: async (console) => void (await console.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })) });
let { c, bob, carol, validator } = env;
beforeEach(() => ({ c, bob, carol, validator } = env));

const item = (id: string) => `/console/v1/gates/checkout/reviews/${id}`;
const decide = (reviewID: string, key: string, validated = true) => c.call('POST', '/console/v1/change_validation', { reviewID, validated }, key);
const status = async (id: string) => (await c.call('GET', item(id))).json().data.status as string;

/** submitter submits and commits, approver approves: the review is then pending validation. */
async function pending(submitter = bob, approver = carol): Promise<string> {
  const submitted = await c.call('POST', '/console/v1/gates/checkout/reviews', { change: RULES }, submitter);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  expect((await c.call('PUT', `${item(id)}/approve`, undefined, approver)).statusCode).toBe(200);
  expect((await c.call('PUT', `${item(id)}/commit`, undefined, submitter)).json().data.status).toBe('pending_webhook_validation');
  return id;
}

describe('deciding a validation', () => {
  it('is refused to a member key, even for its own change (403), and changes nothing', async () => {
    const id = await pending();
    for (const key of [bob, carol, await c.keyFor('dave@example.com', 'member')]) {
      const res = await decide(id, key);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ status: 403, message: expect.stringContaining("lacks the 'validate_changes' permission") });
    }
    expect(await status(id)).toBe('pending_webhook_validation');
    // Progress messages need the permission too.
    expect((await c.call('POST', '/console/v1/change_validation', { reviewID: id, message: 'mine' }, bob)).statusCode).toBe(403);
    expect((await c.call('PATCH', '/console/v1/change_validation/message', { reviewID: id, message: 'mine' }, bob)).statusCode).toBe(403);
  });

  it('is allowed to the webhook_receiver key, which took no part in the change', async () => {
    const id = await pending();
    const res = await decide(id, validator);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('approved_webhook_validation');
  });

  it('is refused to a receiver-role user who submitted, approved or committed the review, naming why', async () => {
    // Each role of the review's lifecycle is played by a user whose role also holds the receiver's permissions.
    const both = async (email: string) => await c.keyFor(email, 'full_reviewer');
    expect((await c.call('POST', '/console/v1/roles', { name: 'full_reviewer', permissions: ['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews', 'validate_changes'] })).statusCode).toBe(201);
    const submitter = await both('sam@example.com');
    const approver = await both('ann@example.com');
    const id = await pending(submitter, approver);
    const bySubmitter = await decide(id, submitter, false);
    expect(bySubmitter.statusCode).toBe(403);
    expect(bySubmitter.json().message).toBe('sam@example.com submitted this review; a user who submitted, approved or committed a change cannot decide its validation.');
    const byApprover = await decide(id, approver);
    expect(byApprover.statusCode).toBe(403);
    expect(byApprover.json().message).toMatch(/^ann@example\.com approved this review;/);
    expect(await status(id)).toBe('pending_webhook_validation');
    // A progress message is no decision: the submitter's receiver-role key may still report one.
    expect((await c.call('POST', '/console/v1/change_validation', { reviewID: id, message: 'checking' }, submitter)).statusCode).toBe(200);
  });

  it('is refused to the committer when another user submitted', async () => {
    expect((await c.call('POST', '/console/v1/roles', { name: 'committer_receiver', permissions: ['read', 'commit_reviews', 'validate_changes'] })).statusCode).toBe(201);
    const committer = await c.keyFor('cole@example.com', 'committer_receiver');
    const submitted = await c.call('POST', '/console/v1/gates/checkout/reviews', { change: RULES }, bob);
    const id = submitted.json().data.reviewID as string;
    await c.call('PUT', `${item(id)}/approve`, undefined, carol);
    expect((await c.call('PUT', `${item(id)}/commit`, undefined, committer)).json().data.status).toBe('pending_webhook_validation');
    const res = await decide(id, committer);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/^cole@example\.com committed this review;/);
  });

  it('is allowed to an admin key for a review it took no part in, and refused for one it submitted', async () => {
    const id = await pending();
    expect((await decide(id, ADMIN_KEY, false)).json().data.status).toBe('failed_webhook_validation');
    const own = await pending(ADMIN_KEY, carol);
    const res = await decide(own, ADMIN_KEY);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/^admin@localhost submitted this review;/);
  });
});

describe('built-in roles of a database from before webhook_receiver', () => {
  it('migrate: member loses validate_changes, admin keeps every permission, webhook_receiver appears', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-roles-migration-'));
    const db = join(dir, 'console.db');
    try {
      const old = sqliteAtVersion(db, 5);
      const role = old.prepare('INSERT INTO roles (name, permissions, builtin) VALUES (?, ?, ?)');
      role.run('admin', JSON.stringify([...PERMISSIONS]), 1);
      role.run('member', JSON.stringify(['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews', 'validate_changes']), 1);
      role.run('ci_receiver', JSON.stringify(['read', 'validate_changes']), 0);
      old.close();
      const current = createTestConsole({ db });
      try {
        await current.app.ready();
        const roles = Object.fromEntries((await current.store.roles.list()).map((r) => [r.name, r.permissions]));
        expect(roles['member']).toEqual(['read', 'write', 'submit_reviews', 'approve_reviews', 'commit_reviews']);
        expect(roles['admin']).toEqual([...PERMISSIONS]);
        expect(roles['ci_receiver']).toEqual(['read', 'validate_changes']);
        expect(roles['webhook_receiver']).toEqual(['read', 'validate_changes']);
      } finally {
        await current.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
