/**
 * Overrides of gates, experiments and layers: GET/POST/PATCH/DELETE /{kind}/{id}/overrides, the
 * `overrides` fields of the entities, their checks, and their writes through reviews with their
 * webhook change type.
 */
import { describe, expect, it } from 'vitest';
import { useWebhookConsole } from '../../test-support/webhook-console.js';

type Body = Record<string, unknown>;

const env = useWebhookConsole({
  webhookKey: 'k-overrides',
  webhookTimeoutMs: 5000,
  seed: async (console) => {
    const create = async (path: string, body: Body): Promise<void> => {
      const res = await console.call('POST', `/console/v1/${path}`, body);
      expect(res.statusCode, res.body).toBe(201);
    };
    await create('gates', { id: 'beta', name: 'beta' });
    await create('gates', { id: 'staff_gate', name: 'staff gate' });
    await create('segments', { id: 'staff', name: 'staff', type: 'id_list', ids: ['u1'] });
    await create('layers', { id: 'home', name: 'home' });
    await create('experiments', { id: 'exp1', name: 'exp one', layerID: 'home', allocation: 50 });
  },
});

const base = (path: string): string => `/console/v1/${path}/overrides`;
const call = (method: string, path: string, body?: unknown, key?: string, headers?: Record<string, string>) => env.c.call(method, base(path), body, key, headers);
const read = async (path: string): Promise<Body> => (await env.c.call('GET', `/console/v1/${path}`)).json().data as Body;
const errorsOf = (res: { json(): unknown }): string[] => ((res.json() as { errors?: { property: string }[] }).errors ?? []).map((e) => e.property);

/** submit → approve → commit; through the webhook when the change triggers it. */
async function throughReview(path: string, body: Body): Promise<{ review: Body; hook: Body | undefined }> {
  const { c, bob, carol, validator, receiver } = env;
  const reviews = `/console/v1/${path}/reviews`;
  const submitted = await c.call('POST', reviews, body, bob);
  expect(submitted.statusCode, submitted.body).toBe(201);
  const id = submitted.json().data.reviewID as string;
  expect((await c.call('PUT', `${reviews}/${id}/approve`, undefined, carol)).statusCode).toBe(200);
  const first = (await c.call('PUT', `${reviews}/${id}/commit`, undefined, bob)).json().data as Body;
  if (first['status'] === 'committed') return { review: first, hook: undefined };
  expect(first['status']).toBe('pending_webhook_validation');
  const hook = await receiver.waitFor((h) => h.body['review_id'] === id);
  expect((await c.call('POST', '/console/v1/change_validation', { reviewID: id, validated: true }, validator)).statusCode).toBe(200);
  const review = (await c.call('PUT', `${reviews}/${id}/commit`, undefined, bob)).json().data as Body;
  expect(review['status']).toBe('committed');
  return { review, hook: hook.body };
}

const NO_GATE_OVERRIDES = { passingUserIDs: [], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [] };

describe('gate overrides', () => {
  it('a gate starts without overrides; GET reads them in the reference shape', async () => {
    const res = await call('GET', 'gates/beta');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Gate Overrides read successfully.', data: NO_GATE_OVERRIDES });
    expect((await read('gates/beta'))['overrides']).toEqual(NO_GATE_OVERRIDES);
  });

  it('POST replaces the lists it names, PATCH adds, DELETE removes; each is a version with an audit row', async () => {
    const posted = await call('POST', 'gates/beta', { passingUserIDs: ['u1', 'u2'], failingUserIDs: ['u9'] });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({ message: 'Gate Overrides updated successfully.', data: { ...NO_GATE_OVERRIDES, passingUserIDs: ['u1', 'u2'], failingUserIDs: ['u9'] } });
    // A list the body leaves out stays as it is.
    const env1 = await call('POST', 'gates/beta', { environmentOverrides: [{ environment: 'staging', unitID: null, passingIDs: ['s1'] }] });
    expect(env1.json().data).toMatchObject({ passingUserIDs: ['u1', 'u2'], environmentOverrides: [{ environment: 'staging', passingIDs: ['s1'], failingIDs: [] }] });
    const added = await call('PATCH', 'gates/beta', { passingUserIDs: ['u3', 'u1'], passingCustomIDs: ['c1'], environmentOverrides: [{ environment: 'staging', failingIDs: ['s2'] }] });
    expect(added.json()).toMatchObject({
      message: 'Gate Overrides updated successfully.',
      data: { passingUserIDs: ['u1', 'u2', 'u3'], passingCustomIDs: ['c1'], environmentOverrides: [{ environment: 'staging', passingIDs: ['s1'], failingIDs: ['s2'] }] },
    });
    const removed = await call('DELETE', 'gates/beta', { passingUserIDs: ['u1', 'nobody'], environmentOverrides: [{ environment: 'staging', passingIDs: ['s1'] }] });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ message: 'Gate Overrides deleted successfully.', data: { passingUserIDs: ['u2', 'u3'], environmentOverrides: [{ environment: 'staging', passingIDs: [], failingIDs: ['s2'] }] } });
    // An entry naming no ids removes the whole entry.
    expect((await call('DELETE', 'gates/beta', { environmentOverrides: [{ environment: 'staging' }] })).json().data.environmentOverrides).toEqual([]);
    const gate = await read('gates/beta');
    expect(gate).toMatchObject({ version: 6, overrides: { passingUserIDs: ['u2', 'u3'], failingUserIDs: ['u9'], passingCustomIDs: ['c1'] } });
    const audit = (await env.c.store.audit.list({ kind: 'gate', offset: 0, limit: 10 })).items.map((a) => a.action);
    expect(audit.slice(0, 5)).toEqual(['remove_overrides', 'remove_overrides', 'add_overrides', 'update_overrides', 'update_overrides']);
  });

  it('the gate write bodies carry overrides too (create, PATCH), lists left out empty', async () => {
    const created = await env.c.call('POST', '/console/v1/gates', { id: 'with_overrides', name: 'with overrides', overrides: { failingUserIDs: ['bot'] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.overrides).toEqual({ ...NO_GATE_OVERRIDES, failingUserIDs: ['bot'] });
    const patched = await env.c.call('PATCH', '/console/v1/gates/with_overrides', { overrides: { passingUserIDs: ['u1'] } });
    expect(patched.json().data.overrides).toEqual({ ...NO_GATE_OVERRIDES, passingUserIDs: ['u1'] });
  });

  it('400 naming the field: bad shape, an id listed twice, an id both passing and failing; nothing changes', async () => {
    const shape = await call('POST', 'gates/beta', { passingUserIDs: [''], extra: 1 });
    expect(shape.statusCode).toBe(400);
    expect(errorsOf(shape).sort()).toEqual(['extra', 'passingUserIDs[0]']);
    const twice = await call('POST', 'gates/beta', { passingUserIDs: ['u1', 'u1'] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors).toEqual([{ property: 'overrides.passingUserIDs[1]', errorMessage: "'u1' is listed twice" }]);
    await call('POST', 'gates/beta', { passingUserIDs: ['u1'] });
    const both = await call('PATCH', 'gates/beta', { failingUserIDs: ['u1'] });
    expect(both.statusCode).toBe(400);
    expect(errorsOf(both)).toEqual(['overrides.failingUserIDs[0]']);
    const envBoth = await call('POST', 'gates/beta', { environmentOverrides: [{ environment: 'prod', passingIDs: ['a'], failingIDs: ['a'] }, { environment: 'prod', passingIDs: ['b'] }] });
    expect(errorsOf(envBoth).sort()).toEqual(['overrides.environmentOverrides[0].failingIDs[0]', 'overrides.environmentOverrides[1]']);
    const tooMany = await call('POST', 'gates/beta', { passingUserIDs: Array.from({ length: 2001 }, (_, i) => `u${i}`) });
    expect(errorsOf(tooMany)).toEqual(['passingUserIDs']);
    expect((await read('gates/beta'))['overrides']).toEqual({ ...NO_GATE_OVERRIDES, passingUserIDs: ['u1'] });
  });

  it('404 for an unknown gate, 409 on a stale If-Match, 403 for a read-only key', async () => {
    expect((await call('GET', 'gates/nope')).json()).toMatchObject({ status: 404, message: 'Gate not found.' });
    expect((await call('POST', 'gates/nope', { passingUserIDs: ['u1'] })).statusCode).toBe(404);
    expect((await call('DELETE', 'gates/nope', { passingUserIDs: ['u1'] })).statusCode).toBe(404);
    const stale = await call('PATCH', 'gates/beta', { passingUserIDs: ['u1'] }, undefined, { 'if-match': '"7"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/1/);
    expect((await call('PATCH', 'gates/beta', { passingUserIDs: ['u1'] }, undefined, { 'if-match': '"1"' })).statusCode).toBe(200);
    const viewer = await env.c.keyFor('viewer@example.com', 'read_only');
    expect((await call('GET', 'gates/beta', undefined, viewer)).statusCode).toBe(200);
    for (const method of ['POST', 'PATCH', 'DELETE']) expect((await call(method, 'gates/beta', { passingUserIDs: ['u2'] }, viewer)).statusCode, method).toBe(403);
    expect((await read('gates/beta'))['version']).toBe(2);
  });

  it('where reviews are required a direct write is refused (403); a review changes overrides as a rules change', async () => {
    const { c, bob } = env;
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    const direct = await call('POST', 'gates/beta', { passingUserIDs: ['u1'] }, bob);
    expect(direct.statusCode).toBe(403);
    expect(direct.json().message).toMatch(/bypass_reviews/);
    expect((await call('GET', 'gates/beta', undefined, bob)).statusCode).toBe(200);
    const { review, hook } = await throughReview('gates/beta', { description: 'let u1 in', change: { overrides: { passingUserIDs: ['u1'] } } });
    expect(review).toMatchObject({ type: 'rules', changeTypes: ['rules'] });
    expect(hook).toMatchObject({ type: 'rules', config_type: 'gate', config_name: 'beta', new_config: { overrides: { passingUserIDs: ['u1'] } } });
    expect((await call('GET', 'gates/beta')).json().data.passingUserIDs).toEqual(['u1']);
    // The admin holds bypass_reviews.
    expect((await call('PATCH', 'gates/beta', { passingUserIDs: ['u2'] })).statusCode).toBe(200);
  });
});

describe('experiment overrides', () => {
  it('POST replaces, PATCH adds (an entry of the same gate is replaced, ids join their group), DELETE removes', async () => {
    expect((await call('GET', 'experiments/exp1')).json()).toEqual({ message: 'Experiment Overrides read successfully.', data: { overrides: [], userIDOverrides: [] } });
    const posted = await call('POST', 'experiments/exp1', {
      overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['u1'], environment: null }],
    });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({
      message: 'Experiment Overrides updated successfully.',
      data: { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }], userIDOverrides: [{ groupID: 'Control', ids: ['u1'] }] },
    });
    const added = await call('PATCH', 'experiments/exp1', {
      overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Control' }, { type: 'segment', id: 'staff', groupID: 'Test' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['u2'] }, { groupID: 'Test', ids: ['u3'] }],
    });
    expect(added.json().data).toEqual({
      overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Control' }, { type: 'segment', id: 'staff', groupID: 'Test' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['u1', 'u2'] }, { groupID: 'Test', ids: ['u3'] }],
    });
    const removed = await call('DELETE', 'experiments/exp1', { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Control' }], userIDOverrides: [{ groupID: 'Control', ids: ['u1'] }, { groupID: 'Test', ids: ['u3'] }] });
    expect(removed.json()).toEqual({
      message: 'Experiment Overrides deleted successfully.',
      data: { overrides: [{ type: 'segment', id: 'staff', groupID: 'Test' }], userIDOverrides: [{ groupID: 'Control', ids: ['u2'] }] },
    });
    expect(await read('experiments/exp1')).toMatchObject({ version: 4, overrides: [{ type: 'segment', id: 'staff', groupID: 'Test' }] });
  });

  it('400 naming the field: unknown group, gate or segment, an id in two groups, a missing list on POST', async () => {
    const res = await call('POST', 'experiments/exp1', {
      overrides: [{ type: 'gate', id: 'nope', groupID: 'Treatment' }, { type: 'segment', id: 'staff', groupID: 'Test' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['u1'] }, { groupID: 'Test', ids: ['u1'] }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { property: 'overrides[0].id', errorMessage: "names no existing gate ('nope')" },
        { property: 'overrides[0].groupID', errorMessage: "names no group of the experiment ('Treatment'); groups: Control, Test" },
        { property: 'userIDOverrides[1].ids[0]', errorMessage: "'u1' is already in userIDOverrides[0].ids: an id is overridden at most once" },
      ]),
    );
    expect(errorsOf(res)).toHaveLength(3);
    expect(errorsOf(await call('POST', 'experiments/exp1', { overrides: [] }))).toEqual(['userIDOverrides']);
    expect(errorsOf(await call('PATCH', 'experiments/exp1', { overrides: [{ type: 'config', id: 'x', groupID: 'Test' }] }))).toEqual(['overrides[0].type']);
    // Group ids name groups as well as their names; a group removed later takes its overrides along or is refused.
    const groupId = ((await read('experiments/exp1'))['groups'] as Body[])[1]?.['id'];
    expect((await call('PATCH', 'experiments/exp1', { userIDOverrides: [{ groupID: groupId, ids: ['u5'] }] })).statusCode).toBe(200);
    const dropGroup = await env.c.call('PATCH', '/console/v1/experiments/exp1', { groups: [{ name: 'Control', size: 50 }, { name: 'B', size: 50 }] });
    expect(errorsOf(dropGroup)).toEqual(['userIDOverrides[0].groupID']);
  });

  it('a gate or segment an override names cannot be deleted (409) until the override goes', async () => {
    await call('PATCH', 'experiments/exp1', { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }, { type: 'segment', id: 'staff', groupID: 'Test' }] });
    const gate = await env.c.call('DELETE', '/console/v1/gates/staff_gate');
    expect(gate.statusCode).toBe(409);
    expect(gate.json().message).toBe('Gate staff_gate is used by experiment exp1 (overrides); remove those overrides first.');
    expect((await env.c.call('DELETE', '/console/v1/segments/staff')).statusCode).toBe(409);
    await call('DELETE', 'experiments/exp1', { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }, { type: 'segment', id: 'staff', groupID: 'Test' }] });
    expect((await env.c.call('DELETE', '/console/v1/gates/staff_gate')).statusCode).toBe(200);
    expect((await env.c.call('DELETE', '/console/v1/segments/staff')).statusCode).toBe(200);
  });

  it('404, 409 on a stale If-Match, 403 for a read-only key', async () => {
    expect((await call('GET', 'experiments/nope')).json()).toMatchObject({ status: 404, message: 'Experiment not found.' });
    expect((await call('PATCH', 'experiments/nope', { overrides: [] })).statusCode).toBe(404);
    expect((await call('PATCH', 'experiments/exp1', { overrides: [] }, undefined, { 'if-match': '"3"' })).statusCode).toBe(409);
    const viewer = await env.c.keyFor('viewer@example.com', 'read_only');
    expect((await call('DELETE', 'experiments/exp1', { overrides: [] }, viewer)).statusCode).toBe(403);
    expect((await call('GET', 'experiments/exp1', undefined, viewer)).statusCode).toBe(200);
  });

  it('where reviews are required a direct write is refused; a review of a running experiment is update_experiment_settings, of one in setup none', async () => {
    const { c, bob } = env;
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    expect((await call('POST', 'experiments/exp1', { overrides: [], userIDOverrides: [{ groupID: 'Test', ids: ['u1'] }] }, bob)).statusCode).toBe(403);
    const setup = await throughReview('experiments/exp1', { change: { userIDOverrides: [{ groupID: 'Test', ids: ['u1'] }] } });
    expect(setup.review).toMatchObject({ type: null, changeTypes: [] });
    expect((await c.call('PUT', '/console/v1/experiments/exp1/start')).statusCode).toBe(200);
    const running = await throughReview('experiments/exp1', { change: { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }] } });
    expect(running.review).toMatchObject({ type: 'update_experiment_settings', changeTypes: ['update_experiment_settings'] });
    expect(running.hook).toMatchObject({ type: 'update_experiment_settings', experiment_name: 'exp1', new_experiment: { overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }] } });
    expect((await call('GET', 'experiments/exp1')).json().data).toEqual({ overrides: [{ type: 'gate', id: 'staff_gate', groupID: 'Test' }], userIDOverrides: [{ groupID: 'Test', ids: ['u1'] }] });
  });
});

describe('layer overrides', () => {
  it('POST replaces, PATCH (op add) adds, DELETE removes', async () => {
    expect((await call('GET', 'layers/home')).json()).toEqual({ message: 'Layer Overrides read successfully.', data: { conditionalOverrides: [], idOverrides: [] } });
    const posted = await call('POST', 'layers/home', {
      conditionalOverrides: [{ type: 'gate', name: 'staff_gate', experimentName: 'exp1', groupName: 'Test' }],
      idOverrides: [{ groupName: 'Control', ids: ['u1'], experimentName: 'exp1', idType: null }],
    });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({
      message: 'Layer Overrides updated successfully.',
      data: { conditionalOverrides: [{ type: 'gate', name: 'staff_gate', experimentName: 'exp1', groupName: 'Test' }], idOverrides: [{ groupName: 'Control', ids: ['u1'], experimentName: 'exp1' }] },
    });
    const added = await call('PATCH', 'layers/home', { op: 'add', conditionalOverrides: [{ type: 'segment', name: 'staff', experimentName: 'exp1', groupName: 'Control' }], idOverrides: [{ groupName: 'Control', experimentName: 'exp1', ids: ['u2'] }] });
    expect(added.json().data).toEqual({
      conditionalOverrides: [
        { type: 'gate', name: 'staff_gate', experimentName: 'exp1', groupName: 'Test' },
        { type: 'segment', name: 'staff', experimentName: 'exp1', groupName: 'Control' },
      ],
      idOverrides: [{ groupName: 'Control', ids: ['u1', 'u2'], experimentName: 'exp1' }],
    });
    const removed = await call('DELETE', 'layers/home', { conditionalOverrides: [{ type: 'gate', name: 'staff_gate', experimentName: 'exp1', groupName: 'Test' }], idOverrides: [{ groupName: 'Control', experimentName: 'exp1', ids: [] }] });
    expect(removed.json()).toEqual({
      message: 'Layer Overrides deleted successfully.',
      data: { conditionalOverrides: [{ type: 'segment', name: 'staff', experimentName: 'exp1', groupName: 'Control' }], idOverrides: [] },
    });
    expect(await read('layers/home')).toMatchObject({ version: 4, conditionalOverrides: [{ type: 'segment', name: 'staff' }] });
  });

  it('400 naming the field: unknown gate, an experiment outside the layer, an unknown group, a bad op', async () => {
    await env.c.call('POST', '/console/v1/experiments', { id: 'solo', name: 'solo' });
    const res = await call('POST', 'layers/home', {
      conditionalOverrides: [{ type: 'gate', name: 'nope', experimentName: 'exp1', groupName: 'Treatment' }],
      idOverrides: [{ groupName: 'Control', ids: ['u1'], experimentName: 'solo' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { property: 'conditionalOverrides[0].name', errorMessage: "names no existing gate ('nope')" },
      { property: 'conditionalOverrides[0].groupName', errorMessage: "names no group of experiment exp1 ('Treatment'); groups: Control, Test" },
      { property: 'idOverrides[0].experimentName', errorMessage: 'experiment solo is not in layer home' },
    ]);
    expect(errorsOf(await call('PATCH', 'layers/home', { op: 'remove', idOverrides: [] }))).toEqual(['op']);
    expect(errorsOf(await call('POST', 'layers/home', { idOverrides: [] }))).toEqual(['conditionalOverrides']);
    // An experiment still to come (a config repository creates layers first) is accepted.
    expect((await call('PATCH', 'layers/home', { idOverrides: [{ groupName: 'Test', ids: ['u1'], experimentName: 'later' }] })).statusCode).toBe(200);
  });

  it('404, 409 on a stale If-Match, 403 for a read-only key; layers need no review even where reviews are required', async () => {
    expect((await call('GET', 'layers/nope')).json()).toMatchObject({ status: 404, message: 'Layer not found.' });
    expect((await call('POST', 'layers/nope', { conditionalOverrides: [], idOverrides: [] })).statusCode).toBe(404);
    expect((await call('PATCH', 'layers/home', { idOverrides: [] }, undefined, { 'if-match': '"5"' })).statusCode).toBe(409);
    const viewer = await env.c.keyFor('viewer@example.com', 'read_only');
    expect((await call('PATCH', 'layers/home', { idOverrides: [] }, viewer)).statusCode).toBe(403);
    await env.c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    const direct = await call('PATCH', 'layers/home', { idOverrides: [{ groupName: 'Test', experimentName: 'exp1', ids: ['u1'] }] }, env.bob);
    expect(direct.statusCode, direct.body).toBe(200);
  });
});
