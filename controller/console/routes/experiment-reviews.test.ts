/**
 * Experiment reviews: start, ship, abandon and changes of a running experiment, each through the
 * pre-commit webhook with its change type and payload.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useWebhookConsole } from '../../test-support/webhook-console.js';

const env = useWebhookConsole({
  webhookKey: 'k-exp',
  webhookTimeoutMs: 5000,
  seed: async (console) => expect((await console.call('POST', '/console/v1/experiments', { id: 'exp1', name: 'exp one' })).statusCode).toBe(201),
});
let { receiver, c, bob, carol, validator } = env;
beforeEach(() => ({ receiver, c, bob, carol, validator } = env));

const base = '/console/v1/experiments/exp1/reviews';
const experiment = async () => (await c.call('GET', '/console/v1/experiments/exp1')).json().data;

/** submit → approve → commit → webhook → validated → commit; returns the webhook body. */
async function throughWebhook(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const submitted = await c.call('POST', base, body, bob);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  await c.call('PUT', `${base}/${id}/approve`, undefined, carol);
  expect((await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).json().data.status).toBe('pending_webhook_validation');
  const hook = await receiver.waitFor((h) => h.body['review_id'] === id);
  expect((await c.call('POST', '/console/v1/change_validation', { reviewID: id, validated: true }, validator)).statusCode).toBe(200);
  expect((await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).json().data.status).toBe('committed');
  return hook.body;
}

describe('experiment reviews through the webhook', () => {
  it('start_experiment, update_allocation, update_experiment_settings, ship_experiment', async () => {
    const start = await throughWebhook({ action: 'start', description: 'go' });
    expect(start).toMatchObject({ config_type: 'experiment', experiment_name: 'exp1', type: 'start_experiment', new_allocation: 100, submitter: 'bob@example.com', committer: 'bob@example.com' });
    expect(start).not.toHaveProperty('config_name');
    expect((await experiment()).status).toBe('active');

    const allocation = await throughWebhook({ change: { allocation: 40 } });
    expect(allocation).toMatchObject({ type: 'update_allocation', old_allocation: 100, new_allocation: 40 });
    expect((await experiment()).allocation).toBe(40);

    const rules = [{ name: 'beta users', passPercentage: 100, conditions: [{ type: 'public' }] }];
    const settings = await throughWebhook({ change: { inlineTargetingRules: rules } });
    expect(settings).toMatchObject({ type: 'update_experiment_settings', old_experiment: { inlineTargetingRules: [] }, new_experiment: { inlineTargetingRules: [{ name: 'beta users' }] } });
    expect(settings['new_settings']).toMatchObject({ allocation: 40, inlineTargetingRulesJSON: expect.stringContaining('beta users') });

    const ship = await throughWebhook({ action: 'ship', group: 'Test', description: 'Test wins' });
    expect(ship).toMatchObject({ type: 'ship_experiment', group: 'Test' });
    const shipped = await experiment();
    expect(shipped.status).toBe('decision_made');
    expect(shipped.groups.find((g: { id: string }) => g.id === shipped.launchedGroupID).name).toBe('Test');
  });

  it('abandon_experiment', async () => {
    const abandon = await throughWebhook({ action: 'abandon', change: { decisionReason: 'wrong metric' } });
    expect(abandon).toMatchObject({ type: 'abandon_experiment', experiment_name: 'exp1' });
    expect(await experiment()).toMatchObject({ status: 'abandoned', decisionReason: 'wrong metric' });
  });

  it('edits of an experiment in setup commit without the webhook', async () => {
    const id = (await c.call('POST', base, { change: { allocation: 20, hypothesis: 'faster checkout' } }, bob)).json().data.reviewID;
    await c.call('PUT', `${base}/${id}/approve`, undefined, carol);
    expect((await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).json().data).toMatchObject({ status: 'committed', type: null });
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });
});

describe('experiment review refusals', () => {
  it('checks lifecycle actions at submission like the direct action would', async () => {
    const unknownGroup = await c.call('POST', base, { action: 'ship', group: 'nope' }, bob);
    expect(unknownGroup.statusCode).toBe(409);
    await c.call('PUT', '/console/v1/experiments/exp1/start');
    expect((await c.call('POST', base, { action: 'start' }, bob)).statusCode).toBe(409);
    const badGroup = await c.call('POST', base, { action: 'ship', group: 'nope' }, bob);
    expect(badGroup.statusCode).toBe(400);
    expect(badGroup.json().errors[0].property).toBe('group');
    expect((await c.call('POST', base, { action: 'ship', group: 'Test', change: { name: 'Test' } }, bob)).statusCode).toBe(400);
  });

  it('a start review goes stale when the experiment is started directly', async () => {
    const id = (await c.call('POST', base, { action: 'start' }, bob)).json().data.reviewID;
    await c.call('PUT', `${base}/${id}/approve`, undefined, carol);
    await c.call('PUT', '/console/v1/experiments/exp1/start');
    expect((await c.call('PUT', `${base}/${id}/commit`, undefined, bob)).statusCode).toBe(409);
    expect(receiver.received.filter((h) => h.body['review_id'] === id)).toHaveLength(0);
  });
});
