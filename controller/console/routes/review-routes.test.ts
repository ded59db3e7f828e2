/**
 * The review workflow without a webhook: submission checks, reviewer rules, cancel, commit, stale
 * reviews, and the is_config_review_required setting. The webhook states are in review-validation.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

const RULES = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] };

let c: TestConsole;
let bob: string;
let carol: string;
let reader: string;
beforeEach(async () => {
  c = createTestConsole();
  bob = await c.keyFor('bob@example.com', 'member');
  carol = await c.keyFor('carol@example.com', 'member');
  reader = await c.keyFor('rita@example.com', 'read_only');
  expect((await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' })).statusCode).toBe(201);
});
afterEach(() => c.close());

const reviewsOf = (path = 'gates', id = 'checkout') => `/console/v1/${path}/${id}/reviews`;

async function submit(body: unknown, key = bob, path = 'gates', id = 'checkout'): Promise<string> {
  const res = await c.call('POST', reviewsOf(path, id), body, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.reviewID as string;
}

async function approved(body: unknown, path = 'gates', id = 'checkout'): Promise<string> {
  const reviewID = await submit(body, bob, path, id);
  expect((await c.call('PUT', `${reviewsOf(path, id)}/${reviewID}/approve`, undefined, carol)).statusCode).toBe(200);
  return reviewID;
}

describe('submission', () => {
  it('stores the change with old and new config in the read format, validated like a direct write', async () => {
    const res = await c.call('POST', reviewsOf(), { description: 'ten percent', change: RULES }, bob);
    expect(res.statusCode).toBe(201);
    const review = res.json().data;
    expect(review).toMatchObject({ status: 'pending', type: 'rules', changeTypes: ['rules'], configType: 'gate', configName: 'checkout', action: 'update', submitter: 'bob@example.com', description: 'ten percent', baseVersion: 1, isStale: false, validation: null });
    expect(review.oldConfig).toMatchObject({ id: 'checkout', rules: [], version: 1, permalink: 'http://console.test/console/v1/gates/checkout' });
    expect(review.newConfig).toMatchObject({ id: 'checkout', version: 2, rules: [{ name: 'all', passPercentage: 10, id: expect.any(String) }] });
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.version).toBe(1);
  });

  it.each([
    ['an invalid change', { change: { rules: [{ name: 'all', passPercentage: 101, conditions: [] }] } }, 'change.rules[0].passPercentage'],
    ['a misspelt field of the change', { change: { isEnabeld: false } }, 'change.isEnabeld'],
    ['no change and no action', { description: 'nothing' }, 'change'],
    ['an unknown body field', { change: RULES, urgent: true }, 'urgent'],
    ['an unknown action', { action: 'launch' }, 'action'],
    ['an experiment action on a gate', { action: 'start' }, 'action'],
    ['a change with a delete', { action: 'delete', change: RULES }, 'change'],
    ['a group without ship', { change: RULES, group: 'a' }, 'group'],
    ['a change that changes nothing', { change: { isEnabled: true } }, 'change'],
    ['a description over 1000 characters', { change: RULES, description: 'x'.repeat(1001) }, 'description'],
  ])('refuses %s with 400 naming the property, storing nothing', async (_what, body, property) => {
    const res = await c.call('POST', reviewsOf(), body, bob);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toContain(property);
    expect((await c.call('GET', '/console/v1/reviews')).json().pagination.totalItems).toBe(0);
  });

  it('answers 404 for a missing entity, 409 for creating an existing one, 403 for a read-only key', async () => {
    expect((await c.call('POST', reviewsOf('gates', 'nope'), { change: RULES }, bob)).statusCode).toBe(404);
    expect((await c.call('POST', reviewsOf(), { action: 'create', change: { name: 'checkout' } }, bob)).statusCode).toBe(409);
    expect((await c.call('POST', reviewsOf(), { change: RULES }, reader)).statusCode).toBe(403);
    const mismatch = await c.call('POST', reviewsOf('gates', 'new_gate'), { action: 'create', change: { id: 'other', name: 'other' } }, bob);
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().errors[0].property).toBe('change.id');
  });

  it('lists reviews per entity and globally, newest first, filtered by status', async () => {
    const first = await submit({ change: RULES });
    const second = await approved({ change: { isEnabled: false } });
    const list = await c.call('GET', `${reviewsOf()}?status=approved`);
    expect(list.json().data.map((r: { reviewID: string }) => r.reviewID)).toEqual([second]);
    const all = await c.call('GET', '/console/v1/reviews?kind=gate', undefined, reader);
    expect(all.json().data.map((r: { reviewID: string }) => r.reviewID)).toEqual([second, first]);
    expect((await c.call('GET', '/console/v1/reviews?status=bogus')).statusCode).toBe(400);
    expect((await c.call('GET', `/console/v1/reviews/${first}`, undefined, reader)).json().data.reviewID).toBe(first);
    expect((await c.call('GET', `${reviewsOf('segments', 'checkout')}/${first}`)).statusCode).toBe(404);
    expect((await c.call('GET', '/console/v1/reviews/rev_missing')).statusCode).toBe(404);
  });
});

describe('reviewer rules', () => {
  it('approves pending → approved by another user; a second approval is a 409', async () => {
    const id = await submit({ change: RULES });
    const res = await c.call('PUT', `${reviewsOf()}/${id}/approve`, { comment: 'looks good' }, carol);
    expect(res.json().data).toMatchObject({ status: 'approved', approvedBy: 'carol@example.com', comment: 'looks good' });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, carol)).statusCode).toBe(409);
  });

  it('refuses self-approval without self_approve_review, allows it with', async () => {
    const id = await submit({ change: RULES });
    const self = await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, bob);
    expect(self.statusCode).toBe(403);
    expect(self.json().message).toMatch(/self_approve_review/);
    const mine = (await c.call('POST', reviewsOf(), { change: { description: 'mine' } })).json().data.reviewID;
    expect((await c.call('PUT', `${reviewsOf()}/${mine}/approve`)).statusCode).toBe(200);
  });

  it('refuses approval without approve_reviews', async () => {
    const id = await submit({ change: RULES });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, reader)).statusCode).toBe(403);
  });

  it("limits approval to the gate's allowed reviewers, matched by e-mail", async () => {
    await c.call('PATCH', '/console/v1/gates/checkout', { reviewSettings: { requiredReview: true, allowedReviewers: [{ email: 'Carol@Example.com' }] } });
    const dave = await c.keyFor('dave@example.com', 'member');
    const id = await submit({ change: RULES });
    const refused = await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, dave);
    expect(refused.statusCode).toBe(403);
    expect((await c.call('PUT', `${reviewsOf()}/${id}/reject`, undefined, dave)).statusCode).toBe(403);
    expect((await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, carol)).statusCode).toBe(200);
  });

  it('rejects pending or approved reviews; a rejected review can be neither approved nor committed', async () => {
    const id = await submit({ change: RULES });
    const res = await c.call('PUT', `${reviewsOf()}/${id}/reject`, { comment: 'no' }, carol);
    expect(res.json().data).toMatchObject({ status: 'rejected', rejectedBy: 'carol@example.com', comment: 'no' });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/approve`, undefined, carol)).statusCode).toBe(409);
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
    expect((await c.call('PUT', `${reviewsOf()}/${id}/reject`, undefined, carol)).statusCode).toBe(409);
    const other = await approved({ change: { isEnabled: false } });
    expect((await c.call('PUT', `${reviewsOf()}/${other}/reject`, undefined, carol)).json().data.status).toBe('rejected');
  });

  it('lets only the submitter (or an admin) cancel, once', async () => {
    const id = await submit({ change: RULES });
    expect((await c.call('DELETE', `${reviewsOf()}/${id}`, undefined, carol)).statusCode).toBe(403);
    const res = await c.call('DELETE', `${reviewsOf()}/${id}`, undefined, bob);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Review canceled successfully.' });
    expect((await c.call('GET', `${reviewsOf()}/${id}`)).json().data).toMatchObject({ status: 'canceled', canceledBy: 'bob@example.com' });
    expect((await c.call('DELETE', `${reviewsOf()}/${id}`, undefined, bob)).statusCode).toBe(409);
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
    const byAdmin = await approved({ change: { isEnabled: false } });
    expect((await c.call('DELETE', `${reviewsOf()}/${byAdmin}`)).statusCode).toBe(200);
  });
});

describe('commit without a webhook', () => {
  it('applies the reviewed change in one write: version, history and an audit row naming the review', async () => {
    const id = await approved({ change: RULES });
    const reviewed = (await c.call('GET', `${reviewsOf()}/${id}`)).json().data.newConfig;
    const res = await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'committed', committer: 'bob@example.com', committedVersion: 2, bypassedValidation: false });
    const gate = (await c.call('GET', '/console/v1/gates/checkout')).json().data;
    expect(gate).toMatchObject({ version: 2, lastModifierEmail: 'bob@example.com' });
    expect(gate.rules).toEqual(reviewed.rules);
    const audit = (await c.call('GET', '/console/v1/audit_logs?kind=gate&entityID=checkout')).json().data[0];
    expect(audit).toMatchObject({ action: 'patch', reviewId: id, version: 2, actorEmail: 'bob@example.com', details: { review: id, submitter: 'bob@example.com' } });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
  });

  it('refuses to commit a review that is not approved, or without commit_reviews', async () => {
    const id = await submit({ change: RULES });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
    const ok = await approved({ change: { isEnabled: false } });
    expect((await c.call('PUT', `${reviewsOf()}/${ok}/commit`, undefined, reader)).statusCode).toBe(403);
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.version).toBe(1);
  });

  it('refuses a stale review with 409, applies nothing, and marks it stale', async () => {
    const id = await approved({ change: RULES });
    await c.call('PATCH', '/console/v1/gates/checkout', { description: 'edited directly' });
    expect((await c.call('GET', `${reviewsOf()}/${id}`)).json().data.isStale).toBe(true);
    const res = await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/version 2.*version 1/);
    const gate = (await c.call('GET', '/console/v1/gates/checkout')).json().data;
    expect(gate).toMatchObject({ version: 2, rules: [] });
    expect((await c.call('GET', `${reviewsOf()}/${id}`)).json().data).toMatchObject({ status: 'stale', isStale: true });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
  });

  it('creates and deletes through reviews', async () => {
    const create = await approved({ action: 'create', change: { name: 'new flag', ...RULES } }, 'gates', 'new_flag');
    expect((await c.call('GET', `${reviewsOf('gates', 'new_flag')}/${create}`)).json().data).toMatchObject({ action: 'create', oldConfig: null, baseVersion: null, type: 'rules' });
    expect((await c.call('GET', '/console/v1/gates/new_flag')).statusCode).toBe(404);
    await c.call('PUT', `${reviewsOf('gates', 'new_flag')}/${create}/commit`, undefined, bob);
    expect((await c.call('GET', '/console/v1/gates/new_flag')).json().data).toMatchObject({ id: 'new_flag', version: 1, creatorEmail: 'bob@example.com' });
    const remove = await approved({ action: 'delete' }, 'gates', 'new_flag');
    expect((await c.call('GET', `${reviewsOf('gates', 'new_flag')}/${remove}`)).json().data).toMatchObject({ newConfig: null, baseVersion: 1 });
    expect((await c.call('PUT', `${reviewsOf('gates', 'new_flag')}/${remove}/commit`, undefined, bob)).json().data.status).toBe('committed');
    expect((await c.call('GET', '/console/v1/gates/new_flag')).statusCode).toBe(404);
  });

  it('reviews dynamic configs and segments with the same validation as direct writes', async () => {
    await c.call('POST', '/console/v1/dynamic_configs', { id: 'limits', name: 'limits', schema: '{"type":"object","properties":{"max":{"type":"number"}}}' });
    const bad = await c.call('POST', reviewsOf('dynamic_configs', 'limits'), { change: { defaultValue: { max: 'many' } } }, bob);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].property).toMatch(/^change\.defaultValue/);
    const id = await approved({ change: { defaultValue: { max: 3 } } }, 'dynamic_configs', 'limits');
    await c.call('PUT', `${reviewsOf('dynamic_configs', 'limits')}/${id}/commit`, undefined, bob);
    expect((await c.call('GET', '/console/v1/dynamic_configs/limits')).json().data.defaultValue).toEqual({ max: 3 });
    await c.call('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'id_list' });
    const seg = await approved({ change: { ids: ['u1', 'u2'] } }, 'segments', 'staff');
    expect((await c.call('PUT', `${reviewsOf('segments', 'staff')}/${seg}/commit`, undefined, bob)).json().data.status).toBe('committed');
    expect((await c.call('GET', '/console/v1/segments/staff')).json().data.ids).toEqual(['u1', 'u2']);
  });
});

describe('is_config_review_required', () => {
  it('makes direct writes to reviewable kinds need bypass_reviews, while reviews still commit', async () => {
    expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true })).json().data).toEqual({ is_config_review_required: true });
    const direct = await c.call('PATCH', '/console/v1/gates/checkout', { isEnabled: false }, bob);
    expect(direct.statusCode).toBe(403);
    expect(direct.json().message).toMatch(/bypass_reviews/);
    expect((await c.call('POST', '/console/v1/gates', { name: 'another' }, bob)).statusCode).toBe(403);
    expect((await c.call('PUT', '/console/v1/gates/checkout/disable', undefined, bob)).statusCode).toBe(403);
    expect((await c.call('POST', '/console/v1/dynamic_configs?dryRun=true', { name: 'just checking' }, bob)).statusCode).toBe(200);
    expect((await c.call('POST', '/console/v1/holdouts', { name: 'not reviewed', passPercentage: 1 }, bob)).statusCode).toBe(201);
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { description: 'admin bypasses' })).statusCode).toBe(200);
    const id = await approved({ change: { isEnabled: false } });
    expect((await c.call('PUT', `${reviewsOf()}/${id}/commit`, undefined, bob)).json().data.status).toBe('committed');
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: false });
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { isEnabled: true }, bob)).statusCode).toBe(200);
  });
});
