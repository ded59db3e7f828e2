/**
 * `x-respect-review-settings: true` on entity writes: where reviews are required the write becomes a
 * review submission (202) that, committed, leaves the entity exactly as the direct write would. Run
 * over every write route of every reviewable kind, every entry of `def.actions` included.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REVIEWABLE_KINDS } from '../../../schemas/review.js';
import { groups } from '../../test-support/experiment-fixtures.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { ALL_KINDS } from '../kinds/all-kinds.js';
import type { KindDef } from '../kinds/kind-def.js';

type Body = Record<string, unknown>;
const HEADER = { 'x-respect-review-settings': 'true' };
const NOW = 1_700_000_000_000;

/** One entity per kind, its nested ids given so that two consoles store the same thing. */
const SEEDS: Record<string, Body> = {
  gate: { id: 'gate_one', name: 'gate_one', isEnabled: true, overrides: { passingUserIDs: ['u1'] }, rules: [{ id: 'r1', name: 'all', passPercentage: 50, conditions: [{ type: 'public' }] }] },
  dynamic_config: { id: 'config_one', name: 'config_one', isEnabled: true, defaultValue: { color: 'red' }, rules: [{ id: 'r1', name: 'all', passPercentage: 50, conditions: [{ type: 'public' }], returnValue: { color: 'blue' } }] },
  segment: { id: 'seg_one', name: 'seg_one', type: 'id_list', ids: ['u1'] },
  experiment: { id: 'exp_one', name: 'exp_one', groups: groups(), userIDOverrides: [{ groupID: 'Control', ids: ['u1'] }] },
};

/** States worth trying each write in, as the lifecycle calls that lead there. */
const STATES: Record<string, { name: string; calls: [string, string, Body?][] }[]> = {
  experiment: [
    { name: 'setup', calls: [] },
    { name: 'active', calls: [['PUT', 'start']] },
    { name: 'decided', calls: [['PUT', 'start'], ['PUT', 'make_decision', { id: 'g_test' }]] },
  ],
  gate: [
    { name: 'in progress', calls: [] },
    { name: 'archived', calls: [['PUT', 'archive']] },
  ],
  dynamic_config: [
    { name: 'enabled', calls: [] },
    { name: 'archived', calls: [['PUT', 'archive']] },
  ],
  segment: [
    { name: 'active', calls: [] },
    { name: 'archived', calls: [['PUT', 'archive']] },
  ],
};

/** Bodies of actions that need one (an action not listed is sent without a body). */
const ACTION_BODIES: Record<string, Body> = {
  'segment.add_ids': { ids: ['u2'] },
  'segment.remove_ids': { ids: ['u1'] },
  'experiment.make_decision': { id: 'g_test', decisionReason: 'won' },
  'experiment.abandon': { decisionReason: 'no effect' },
  'segment.id_list_add': { ids: ['u2'] },
  'segment.id_list_remove': { ids: ['u1'] },
  'segment.id_list_reset': { ids: ['u7', 'u8'] },
  'gate.add_rules': { rules: [{ name: 'beta', passPercentage: 10, conditions: [{ type: 'public' }] }] },
  'gate.update_rules': { rules: [{ id: 'r1', passPercentage: 20 }] },
  'gate.update_rule': { passPercentage: 30 },
  'dynamic_config.add_rules': { rules: [{ name: 'beta', passPercentage: 10, conditions: [{ type: 'public' }], returnValue: { color: 'green' } }] },
  'dynamic_config.update_rules': { rules: [{ id: 'r1', passPercentage: 20 }] },
  'dynamic_config.update_rule': { returnValue: { color: 'black' } },
  'gate.update_overrides': { passingUserIDs: ['u5'], failingUserIDs: ['u2'] },
  'gate.add_overrides': { passingUserIDs: ['u3'] },
  'gate.remove_overrides': { passingUserIDs: ['u1'] },
  'experiment.update_overrides': { overrides: [], userIDOverrides: [{ groupID: 'Test', ids: ['u5'] }] },
  'experiment.add_overrides': { userIDOverrides: [{ groupID: 'Test', ids: ['u2'] }] },
  'experiment.remove_overrides': { userIDOverrides: [{ groupID: 'Control', ids: ['u1'] }] },
};

/** Path parameters of sub-resource actions: the seeds' nested ids. */
const PARAMS: Record<string, string> = { ruleID: 'r1', groupID: 'g_test', id: 'r1' };

const CRUD: Record<string, { create: Body; update: Body; patch: Body }> = {
  gate: { create: { id: 'gate_two', name: 'gate_two', isEnabled: true }, update: { name: 'gate_one', isEnabled: false, description: 'full' }, patch: { description: 'patched' } },
  dynamic_config: { create: { id: 'config_two', name: 'config_two', defaultValue: { a: 1 } }, update: { name: 'config_one', isEnabled: false, defaultValue: { color: 'green' } }, patch: { description: 'patched' } },
  segment: { create: { id: 'seg_two', name: 'seg_two', type: 'id_list', ids: ['x'] }, update: { name: 'seg_one', type: 'id_list', ids: ['u9'] }, patch: { description: 'patched' } },
  experiment: { create: { id: 'exp_two', name: 'exp_two' }, update: { name: 'exp_one', hypothesis: 'full', groups: groups() }, patch: { hypothesis: 'patched' } },
};

interface Write {
  label: string;
  method: string;
  path: (id: string) => string;
  body?: Body;
  /** Id of the entity the write changes (a create's new id). */
  target: string;
}

function writesOf(def: KindDef): Write[] {
  const base = `/console/v1/${def.path}`;
  const seed = String(SEEDS[def.kind]?.['id']);
  const crud = CRUD[def.kind];
  const writes: Write[] = [];
  if (crud) {
    const created = String(crud.create['id']);
    writes.push({ label: 'create', method: 'POST', path: () => base, body: crud.create, target: created });
    if (def.schemas.update) writes.push({ label: 'full update', method: 'POST', path: (id) => `${base}/${id}`, body: crud.update, target: seed });
    if (def.schemas.patch) writes.push({ label: 'patch', method: 'PATCH', path: (id) => `${base}/${id}`, body: crud.patch, target: seed });
    if (def.deletable) writes.push({ label: 'delete', method: 'DELETE', path: (id) => `${base}/${id}`, target: seed });
  }
  for (const [action, spec] of Object.entries(def.actions ?? {})) {
    const sub = (spec.path ?? action).replace(/:(\w+)/g, (_m, p: string) => PARAMS[p] ?? 'x');
    const body = ACTION_BODIES[`${def.kind}.${action}`];
    writes.push({ label: `${spec.method ?? 'PUT'} ${spec.path ?? action}`, method: spec.method ?? 'PUT', path: (id) => `${base}/${id}/${sub}`, body, target: seed });
  }
  return writes;
}

const REVIEWABLE = ALL_KINDS.filter((d) => REVIEWABLE_KINDS.includes(d.kind));

const opened: TestConsole[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

/** A console with reviews required, the kind's seed entity in `state`, and a second member to approve. */
async function consoleWith(def: KindDef, state: { calls: [string, string, Body?][] }): Promise<{ c: TestConsole; reviewer: string; member: string }> {
  const c = createTestConsole({ clock: () => NOW });
  opened.push(c);
  const seed = SEEDS[def.kind] as Body;
  expect((await c.call('POST', `/console/v1/${def.path}`, seed)).statusCode).toBe(201);
  for (const [method, action, body] of state.calls) {
    const res = await c.call(method, `/console/v1/${def.path}/${String(seed['id'])}/${action}`, body);
    expect(res.statusCode, res.body).toBe(200);
  }
  expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true })).statusCode).toBe(200);
  return { c, reviewer: await c.keyFor('lead@example.com', 'member'), member: await c.keyFor('dev@example.com', 'member') };
}

/** The entity as stored, without what differs between two consoles by chance (generated nested ids). */
function comparable(entity: unknown): unknown {
  const strip = (value: unknown, inArray: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => strip(v, true));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !(inArray && (k === 'id' || k === 'baseID')))
        .map(([k, v]) => [k, strip(v, false)]),
    );
  };
  return strip(entity, false);
}

describe.each(REVIEWABLE.map((def) => [def.kind, def] as const))('%s writes with x-respect-review-settings: true', (_kind, def) => {
  for (const state of STATES[def.kind] ?? [{ name: 'seeded', calls: [] }]) {
    it.each(writesOf(def).map((w) => [w.label, w] as const))(`%s (${state.name}): the review commits what the direct write does; refusals are the same`, async (_label, write) => {
      const direct = await consoleWith(def, state);
      const routed = await consoleWith(def, state);
      const url = write.path(String(SEEDS[def.kind]?.['id']));
      const read = (c: TestConsole) => c.call('GET', `/console/v1/${def.path}/${write.target}`);

      const versionBefore = (await read(routed.c)).json().data?.version as number | undefined;
      // The admin key holds bypass_reviews: a direct write applies at once...
      const plain = await direct.c.call(write.method, url, write.body);
      // ...and with the header it is submitted for review all the same.
      const submitted = await routed.c.call(write.method, url, write.body, undefined, HEADER);
      if (plain.statusCode >= 400 || !plain.json().message.match(/successfully/)) {
        // A refused write is refused alike (validated exactly as the direct write); a write that
        // changes nothing needs no review and answers as the direct write does.
        expect(submitted.statusCode, submitted.body).toBe(plain.statusCode);
        expect(submitted.json()).toEqual(plain.json());
        expect((await routed.c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
        return;
      }
      expect(submitted.statusCode, submitted.body).toBe(202);
      const review = submitted.json().data as Body;
      expect(submitted.json().message).toMatch(/submitted for review/);
      expect(review).toMatchObject({ status: 'pending', configType: def.kind, configName: write.target, description: `${write.method} ${url}` });
      // Nothing changed yet.
      expect((await read(routed.c)).json().data?.version).toBe(versionBefore);

      const base = `/console/v1/${def.path}/${write.target}/reviews/${String(review['reviewID'])}`;
      expect((await routed.c.call('PUT', `${base}/approve`, undefined, routed.reviewer)).statusCode).toBe(200);
      const committed = await routed.c.call('PUT', `${base}/commit`);
      expect(committed.statusCode, committed.body).toBe(200);
      expect(committed.json().data.status).toBe('committed');

      const after = await read(routed.c);
      const expected = await read(direct.c);
      expect(after.statusCode).toBe(expected.statusCode);
      if (expected.statusCode === 200) expect(comparable(after.json().data)).toEqual(comparable(expected.json().data));
    });
  }
});

describe('x-respect-review-settings', () => {
  async function gateConsole(required: boolean): Promise<{ c: TestConsole; member: string; reviewer: string }> {
    const { c, member, reviewer } = await consoleWith(ALL_KINDS.find((d) => d.kind === 'gate') as KindDef, { calls: [] });
    if (!required) expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: false })).statusCode).toBe(200);
    return { c, member, reviewer };
  }

  it('records the review action, change and change types of the write', async () => {
    const { c, member } = await gateConsole(true);
    const enable = (await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member, HEADER)).json().data;
    expect(enable).toMatchObject({ action: 'update', change: { isEnabled: false }, type: 'rules', changeTypes: ['rules'], oldConfig: { isEnabled: true }, newConfig: { isEnabled: false } });
    const patch = (await c.call('PATCH', '/console/v1/gates/gate_one', { description: 'why' }, member, HEADER)).json().data;
    expect(patch).toMatchObject({ action: 'update', change: { description: 'why' }, type: null, changeTypes: [] });
    const archive = (await c.call('PUT', '/console/v1/gates/gate_one/archive', undefined, member, HEADER)).json().data;
    expect(archive).toMatchObject({ action: 'archive', change: null, type: 'rules' });
    const remove = (await c.call('DELETE', '/console/v1/gates/gate_one', undefined, member, HEADER)).json().data;
    expect(remove).toMatchObject({ action: 'delete', change: null, newConfig: null });
    const create = (await c.call('POST', '/console/v1/gates', { name: 'New Gate' }, member, HEADER)).json().data;
    expect(create).toMatchObject({ action: 'create', configName: 'new_gate', change: { name: 'New Gate', id: 'new_gate' }, baseVersion: null });
    // A full update is an update whose change is the patch from before to after.
    const full = (await c.call('POST', '/console/v1/gates/gate_one', { name: 'gate_one', isEnabled: true, description: 'full', rules: [] }, member, HEADER)).json().data;
    expect(full).toMatchObject({ action: 'update', change: { description: 'full', rules: [] }, changeTypes: ['rules'] });

    const experiment = await consoleWith(ALL_KINDS.find((d) => d.kind === 'experiment') as KindDef, { calls: [] });
    const start = await experiment.c.call('PUT', '/console/v1/experiments/exp_one/start', undefined, experiment.member, HEADER);
    expect(start.statusCode).toBe(202);
    expect(start.json().data).toMatchObject({ action: 'start', changeTypes: ['start_experiment'] });
  });

  it('without the header a direct write is refused as before (403), with "false" too', async () => {
    const { c, member } = await gateConsole(true);
    expect((await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member)).statusCode).toBe(403);
    expect((await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member, { 'x-respect-review-settings': 'false' })).statusCode).toBe(403);
    expect((await c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
  });

  it('where reviews are not required, the header changes nothing: a direct write', async () => {
    const { c, member } = await gateConsole(false);
    const res = await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member, HEADER);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Gate disabled successfully.', data: { isEnabled: false, version: 2 } });
    // Kinds without reviews (holdouts, layers, ...) are written directly too.
    const layer = await c.call('POST', '/console/v1/layers', { id: 'layer_one', name: 'layer_one' }, member, HEADER);
    expect(layer.statusCode).toBe(201);
    expect((await c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
  });

  it("routes a write to an entity whose own reviewSettings require reviews", async () => {
    const { c, member } = await gateConsole(false);
    expect((await c.call('PATCH', '/console/v1/gates/gate_one', { reviewSettings: { requiredReview: true, allowedReviewers: [] } })).statusCode).toBe(200);
    const res = await c.call('PATCH', '/console/v1/gates/gate_one', { description: 'reviewed' }, member, HEADER);
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toMatchObject({ action: 'update', change: { description: 'reviewed' } });
  });

  it('a bad header value is a 400 naming the header, and nothing changes', async () => {
    const { c, member } = await gateConsole(true);
    const res = await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member, { 'x-respect-review-settings': 'yes' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'x-respect-review-settings', errorMessage: 'must be true or false' }]);
    expect((await c.call('GET', '/console/v1/gates/gate_one')).json().data.version).toBe(1);
  });

  it('submitting needs submit_reviews (403, nothing submitted)', async () => {
    const { c } = await gateConsole(true);
    expect((await c.call('POST', '/console/v1/roles', { name: 'writer', permissions: ['read', 'write'] })).statusCode).toBe(201);
    const writer = await c.keyFor('writer@example.com', 'writer');
    const res = await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, writer, HEADER);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/submit_reviews/);
    expect((await c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
  });

  it('a dry run with the header stays a dry run: no review', async () => {
    const { c, member } = await consoleWith(ALL_KINDS.find((d) => d.kind === 'dynamic_config') as KindDef, { calls: [] });
    const res = await c.call('PATCH', '/console/v1/dynamic_configs/config_one?dryRun=true', { description: 'dry' }, member, HEADER);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Dynamic config is valid (dry run, nothing persisted).', data: { description: 'dry' } });
    expect((await c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
    expect((await c.call('GET', '/console/v1/dynamic_configs/config_one')).json().data.version).toBe(1);
  });

  it('checks If-Match at submission (409, nothing submitted)', async () => {
    const { c, member } = await gateConsole(true);
    const res = await c.call('PUT', '/console/v1/gates/gate_one/disable', undefined, member, { ...HEADER, 'if-match': '"7"' });
    expect(res.statusCode).toBe(409);
    expect((await c.call('GET', '/console/v1/reviews')).json().data).toEqual([]);
  });

  it('documents the header and the 202 review answer on every write route of reviewable kinds', async () => {
    const { c } = await gateConsole(true);
    const doc = (await c.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters: { name: string }[]; responses: Record<string, unknown> }>> };
    let writes = 0;
    for (const def of REVIEWABLE) {
      for (const [path, operations] of Object.entries(doc.paths)) {
        if (!new RegExp(`^/console/v1/${def.path}(/\\{id\\}.*)?$`).test(path) || path.includes('/reviews')) continue;
        for (const [method, op] of Object.entries(operations)) {
          if (method === 'get') continue;
          writes += 1;
          expect(op.parameters.map((p) => p.name), `${method} ${path}`).toContain('x-respect-review-settings');
          expect(Object.keys(op.responses), `${method} ${path}`).toContain('202');
        }
      }
    }
    expect(writes).toBeGreaterThanOrEqual(REVIEWABLE.reduce((n, def) => n + writesOf(def).length, 0));
  });
});
