/**
 * Archive and unarchive of dynamic configs, segments and experiments, and experiment reset:
 * through the kinds' lifecycle actions, directly and through reviews (with their webhook change type).
 */
import { describe, expect, it } from 'vitest';
import { useWebhookConsole } from '../../test-support/webhook-console.js';

const env = useWebhookConsole({
  webhookKey: 'k-archive',
  webhookTimeoutMs: 5000,
  seed: async (console) => {
    expect((await console.call('POST', '/console/v1/dynamic_configs', { id: 'banner', name: 'banner', isEnabled: true })).statusCode).toBe(201);
    expect((await console.call('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'id_list', ids: ['u1'] })).statusCode).toBe(201);
    expect((await console.call('POST', '/console/v1/experiments', { id: 'exp1', name: 'exp one' })).statusCode).toBe(201);
  },
});

const read = async (path: string) => (await env.c.call('GET', `/console/v1/${path}`)).json().data;
const put = (path: string, body?: unknown, key?: string) => env.c.call('PUT', `/console/v1/${path}`, body, key);

/** submit → approve → commit; through the webhook when the change triggers it. Returns the committed review and the webhook body. */
async function throughReview(path: string, body: Record<string, unknown>): Promise<{ review: Record<string, unknown>; hook: Record<string, unknown> | undefined }> {
  const { c, bob, carol, validator, receiver } = env;
  const base = `/console/v1/${path}/reviews`;
  const submitted = await c.call('POST', base, body, bob);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  await c.call('PUT', `${base}/${id}/approve`, undefined, carol);
  const first = (await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).json().data;
  if (first.status === 'committed') return { review: first, hook: undefined };
  expect(first.status).toBe('pending_webhook_validation');
  const hook = await receiver.waitFor((h) => h.body['review_id'] === id);
  expect((await c.call('POST', '/console/v1/change_validation', { reviewID: id, validated: true }, validator)).statusCode).toBe(200);
  const review = (await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).json().data;
  expect(review.status).toBe('committed');
  return { review, hook: hook.body };
}

describe('dynamic configs and segments: PUT .../archive and .../unarchive', () => {
  it('a dynamic config shows status Enabled, Disabled or Archived; archived it refuses enable/disable (409)', async () => {
    expect((await read('dynamic_configs/banner')).status).toBe('Enabled');
    const archived = await put('dynamic_configs/banner/archive');
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ message: 'Dynamic config archived successfully.', data: { status: 'Archived', isEnabled: true } });
    expect((await put('dynamic_configs/banner/archive')).json().message).toBe('Dynamic config was already archived.');
    const refused = await put('dynamic_configs/banner/disable');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/archived; unarchive it first/);
    expect((await put('dynamic_configs/banner/unarchive')).json().data.status).toBe('Enabled');
    expect((await put('dynamic_configs/banner/disable')).json().data.status).toBe('Disabled');
    const versions = (await env.c.call('GET', '/console/v1/dynamic_configs/banner/versions')).json().data as { status: string }[];
    expect(versions.map((v) => v.status)).toEqual(['Disabled', 'Enabled', 'Archived', 'Enabled']);
  });

  it('a segment shows status Active or Archived; archived its ids stay as they are (409)', async () => {
    expect((await read('segments/staff')).status).toBe('Active');
    expect((await put('segments/staff/archive')).json().data).toMatchObject({ status: 'Archived', ids: ['u1'] });
    const refused = await env.c.call('PATCH', '/console/v1/segments/staff/add_ids', { ids: ['u2'] });
    expect(refused.statusCode).toBe(409);
    expect((await read('segments/staff')).ids).toEqual(['u1']);
    expect((await put('segments/staff/unarchive')).json().data.status).toBe('Active');
    expect((await env.c.call('PATCH', '/console/v1/segments/staff/add_ids', { ids: ['u2'] })).json().data.ids).toEqual(['u1', 'u2']);
  });

  it.each(['dynamic_configs', 'segments', 'experiments'])('%s: 404 for an unknown id, 400 naming an unknown body field, 403 without write', async (path) => {
    expect((await put(`${path}/nope/archive`)).statusCode).toBe(404);
    const id = { dynamic_configs: 'banner', segments: 'staff', experiments: 'exp1' }[path];
    const bad = await put(`${path}/${String(id)}/archive`, { archiveReason: 'done' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { property: string }) => e.property)).toEqual(['archiveReason']);
    const viewer = await env.c.keyFor('viewer@example.com', 'read_only');
    expect((await put(`${path}/${String(id)}/archive`, undefined, viewer)).statusCode).toBe(403);
    expect((await put(`${path}/${String(id)}/unarchive`, undefined, viewer)).statusCode).toBe(403);
    const current = await read(`${path}/${String(id)}`);
    expect(current.status).not.toMatch(/archived/i);
  });
});

describe('experiments: archive, unarchive and reset', () => {
  it('archives a not started experiment and unarchives it back to setup', async () => {
    expect((await put('experiments/exp1/archive')).json()).toMatchObject({ message: 'Experiment archived successfully.', data: { status: 'archived' } });
    expect((await put('experiments/exp1/start')).statusCode).toBe(409);
    expect((await env.c.call('GET', '/console/v1/experiments?status=archived')).json().data.map((e: { id: string }) => e.id)).toEqual(['exp1']);
    expect((await put('experiments/exp1/unarchive')).json().data.status).toBe('setup');
  });

  it('a running experiment is not archived (409); a concluded one is, and returns to its decision', async () => {
    await put('experiments/exp1/start');
    const refused = await put('experiments/exp1/archive');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/ship or abandon it first/);
    await put('experiments/exp1/abandon', { decisionReason: 'wrong metric' });
    expect((await put('experiments/exp1/archive')).json().data.status).toBe('archived');
    expect((await put('experiments/exp1/unarchive')).json().data).toMatchObject({ status: 'abandoned', decisionReason: 'wrong metric' });
  });

  it('reset restarts a started experiment and forgets its decision; one not started is a 409', async () => {
    const notStarted = await put('experiments/exp1/reset');
    expect(notStarted.statusCode).toBe(409);
    expect(notStarted.json().message).toMatch(/has not started yet/);
    await put('experiments/exp1/start');
    await env.c.call('PUT', '/console/v1/experiments/exp1/make_decision', { name: 'Test', decisionReason: 'won' });
    const reset = await put('experiments/exp1/reset');
    expect(reset.statusCode).toBe(200);
    expect(reset.json().message).toBe('Experiment reset successfully.');
    const data = reset.json().data;
    expect(data).toMatchObject({ status: 'active', startTime: expect.any(Number) });
    for (const field of ['launchedGroupID', 'decisionReason', 'decisionTime', 'endTime']) expect(data).not.toHaveProperty(field);
    expect((await put('experiments/exp1/reset', { force: true })).statusCode).toBe(400);
    expect((await put('experiments/nope/reset')).statusCode).toBe(404);
    const viewer = await env.c.keyFor('viewer@example.com', 'read_only');
    expect((await put('experiments/exp1/reset', undefined, viewer)).statusCode).toBe(403);
  });
});

describe('archive, unarchive and reset through reviews', () => {
  it('where reviews are required, a direct archive is refused (403) and a review archives', async () => {
    const { c, bob } = env;
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    for (const path of ['dynamic_configs/banner', 'segments/staff', 'experiments/exp1']) {
      const direct = await put(`${path}/archive`, undefined, bob);
      expect(direct.statusCode, path).toBe(403);
      expect(direct.json().message).toMatch(/bypass_reviews/);
    }
    const config = await throughReview('dynamic_configs/banner', { action: 'archive', description: 'retired' });
    expect(config.review).toMatchObject({ action: 'archive', type: 'rules', changeTypes: ['rules'] });
    expect(config.hook).toMatchObject({ type: 'rules', config_type: 'dynamic_config' });
    expect((await read('dynamic_configs/banner')).status).toBe('Archived');
    const back = await throughReview('dynamic_configs/banner', { action: 'unarchive' });
    expect(back.review).toMatchObject({ action: 'unarchive', type: 'rules' });
    expect((await read('dynamic_configs/banner')).status).toBe('Enabled');
  });

  it("an experiment whose reviewSettings.requiredReview is set archives only through a review", async () => {
    const { c, bob } = env;
    expect((await c.call('PATCH', '/console/v1/experiments/exp1', { reviewSettings: { requiredReview: true, allowedReviewers: [] } })).statusCode).toBe(200);
    expect((await put('experiments/exp1/archive', undefined, bob)).statusCode).toBe(403);
    const { review } = await throughReview('experiments/exp1', { action: 'archive' });
    expect(review).toMatchObject({ action: 'archive', type: null });
    expect((await read('experiments/exp1')).status).toBe('archived');
  });

  it('a segment archives through a review with webhook type rules', async () => {
    const { review, hook } = await throughReview('segments/staff', { action: 'archive' });
    expect(review).toMatchObject({ type: 'rules' });
    expect(hook).toMatchObject({ type: 'rules', config_type: 'segment' });
    expect((await read('segments/staff')).status).toBe('Archived');
  });

  it('experiment reset goes through the webhook as start_experiment; archiving a concluded one needs no validation', async () => {
    await put('experiments/exp1/start');
    await put('experiments/exp1/abandon');
    const reset = await throughReview('experiments/exp1', { action: 'reset' });
    expect(reset.review).toMatchObject({ action: 'reset', type: 'start_experiment' });
    expect(reset.hook).toMatchObject({ type: 'start_experiment', experiment_name: 'exp1' });
    expect((await read('experiments/exp1')).status).toBe('active');
    const invalid = await env.c.call('POST', '/console/v1/experiments/exp1/reviews', { action: 'archive' }, env.bob);
    expect(invalid.statusCode).toBe(409);
    await put('experiments/exp1/abandon');
    const archive = await throughReview('experiments/exp1', { action: 'archive' });
    expect(archive).toMatchObject({ review: { type: null }, hook: undefined });
    expect((await read('experiments/exp1')).status).toBe('archived');
  });

  it('archive as a review action of a kind without it names the action (400)', async () => {
    await env.c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' });
    const res = await env.c.call('POST', '/console/v1/dynamic_configs/banner/reviews', { action: 'reset' }, env.bob);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual(['action']);
  });
});
