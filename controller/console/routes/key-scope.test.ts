/**
 * What a console key's environments and target apps allow it to change: every write of an entity
 * (create, update, patch, delete, action, dry run, review submission and commit) is refused with a
 * 403 naming what lies outside, and changes nothing; reads are never limited.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

type Body = Record<string, unknown>;

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const rule = (name: string, environments?: string[] | null, extra: Body = {}): Body => ({
  id: name,
  name,
  passPercentage: 100,
  conditions: [{ type: 'public' }],
  ...(environments === undefined ? {} : { environments }),
  ...extra,
});

/** A member key with the given limits (POST /keys as the admin). */
async function limitedKey(email: string, limits: Body, role = 'member'): Promise<{ id: string; key: string }> {
  const res = await c.call('POST', '/console/v1/keys', { description: 'limited', userEmail: email, role, ...limits });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** Sends as `key`, expects a 403 whose message matches, and checks nothing was stored. */
async function refused(key: string, method: string, url: string, body: unknown, message: RegExp): Promise<void> {
  const before = await storeSnapshot(c);
  const reviews = JSON.stringify(await c.store.reviews.list({ offset: 0, limit: 100 }));
  const res = await c.call(method, url, body, key);
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toEqual({ status: 403, message: expect.stringMatching(message) });
  expect(await storeSnapshot(c)).toBe(before);
  expect(JSON.stringify(await c.store.reviews.list({ offset: 0, limit: 100 }))).toBe(reviews);
}

async function allowed(key: string, method: string, url: string, body?: unknown): Promise<Body> {
  const res = await c.call(method, url, body, key);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as Body;
}

describe('environments', () => {
  let staging: string;
  beforeEach(async () => {
    staging = (await limitedKey('stage@example.com', { environments: ['staging', 'development'] })).key;
    await allowed(ADMIN_KEY, 'POST', '/console/v1/gates', { id: 'checkout', name: 'checkout', rules: [rule('stage', ['staging']), rule('prod', ['production']), rule('dev', ['development'])] });
  });

  it('reads are not limited', async () => {
    expect((await allowed(staging, 'GET', '/console/v1/gates/checkout'))['data']).toMatchObject({ rules: [{ name: 'stage' }, { name: 'prod' }, { name: 'dev' }] });
  });

  it('creates an entity whose rules all apply to its environments; one rule elsewhere → 403 naming the environment', async () => {
    await allowed(staging, 'POST', '/console/v1/gates', { name: 'beta', rules: [rule('a', ['staging']), rule('b', ['development', 'staging'])] });
    await refused(staging, 'POST', '/console/v1/gates', { name: 'gamma', rules: [rule('a', ['staging']), rule('b', ['staging', 'production'])] }, /environments staging, development only: gate gamma adds rule 'b' \(rules\[1\]\), which applies to environments production\./);
  });

  it.each([
    ['null', null],
    ['absent', undefined],
    ['empty', []],
  ])('a rule whose environments are %s applies to every environment: 403', async (_what, environments) => {
    await refused(staging, 'POST', '/console/v1/gates', { name: 'gamma', rules: [rule('everyone', environments)] }, /adds rule 'everyone' \(rules\[0\]\), which applies to every environment\./);
  });

  it('changes, adds and removes rules of its environments; fields outside rules stay writable', async () => {
    const patched = await allowed(staging, 'PATCH', '/console/v1/gates/checkout', {
      description: 'staging only',
      rules: [rule('stage', ['staging'], { passPercentage: 50 }), rule('prod', ['production']), rule('new', ['development'])],
    });
    expect(patched['data']).toMatchObject({ description: 'staging only', rules: [{ name: 'stage', passPercentage: 50 }, { name: 'prod' }, { name: 'new' }] });
  });

  it.each([
    ['changes a rule of production', [rule('stage', ['staging']), rule('prod', ['production'], { passPercentage: 1 }), rule('dev', ['development'])], /changes rule 'prod' \(rules\[1\]\), which applies to environments production/],
    ['moves a rule into production', [rule('stage', ['staging', 'production']), rule('prod', ['production']), rule('dev', ['development'])], /changes rule 'stage' \(rules\[0\]\), which applies to environments production/],
    ['removes a rule of production', [rule('stage', ['staging']), rule('dev', ['development'])], /removes rule 'prod' \(rules\[1\]\), which applies to environments production/],
    ['reorders rules past a production rule', [rule('prod', ['production']), rule('stage', ['staging']), rule('dev', ['development'])], /moves rule '(prod|stage)'/],
  ])('PATCH that %s → 403', async (_what, rules, message) => {
    await refused(staging, 'PATCH', '/console/v1/gates/checkout', { rules }, message);
  });

  it('full update, dry run, delete and lifecycle actions are checked the same way', async () => {
    await refused(staging, 'POST', '/console/v1/gates/checkout', { isEnabled: true, description: 'x', rules: [rule('stage', ['staging'])] }, /removes rule 'prod'/);
    await refused(staging, 'POST', '/console/v1/dynamic_configs?dryRun=true', { name: 'dry', rules: [rule('p', ['production'], { returnValue: {} })] }, /adds rule 'p'/);
    await refused(staging, 'DELETE', '/console/v1/gates/checkout', undefined, /removes rule 'stage' \(rules\[0\]\), which applies to environments production|removes rule 'prod'/);
    // Lifecycle actions change no rule: they are not limited by environment.
    await allowed(staging, 'PUT', '/console/v1/gates/checkout/disable');
    await allowed(staging, 'POST', '/console/v1/gates', { name: 'own', rules: [rule('s', ['staging'])] });
    await allowed(staging, 'DELETE', '/console/v1/gates/own');
  });

  it('dynamic config rules and experiment targeting rules too', async () => {
    await allowed(staging, 'POST', '/console/v1/dynamic_configs', { name: 'limits', rules: [rule('s', ['staging'], { returnValue: { n: 1 } })] });
    await refused(staging, 'PATCH', '/console/v1/dynamic_configs/limits', { rules: [rule('p', ['production'], { returnValue: { n: 2 } })] }, /removes rule 's'|adds rule 'p'/);
    await allowed(staging, 'POST', '/console/v1/experiments', { id: 'exp1', name: 'exp one' });
    await refused(staging, 'PATCH', '/console/v1/experiments/exp1', { inlineTargetingRules: [rule('beta', ['production'])] }, /experiment exp1 adds rule 'beta' \(inlineTargetingRules\[0\]\), which applies to environments production/);
    await allowed(staging, 'PATCH', '/console/v1/experiments/exp1', { inlineTargetingRules: [rule('beta', ['staging'])] });
    await allowed(staging, 'PATCH', '/console/v1/experiments/exp1', { enabledNonProdEnvironments: ['staging', 'development'] });
    await refused(staging, 'PATCH', '/console/v1/experiments/exp1', { enabledNonProdEnvironments: ['staging', 'qa'] }, /experiment exp1 adds or removes qa in enabledNonProdEnvironments\./);
  });

  it('a key without environments changes every environment', async () => {
    const unlimited = (await limitedKey('ops@example.com', {})).key;
    await allowed(unlimited, 'PATCH', '/console/v1/gates/checkout', { rules: [rule('everyone')] });
  });
});

describe('environment overrides', () => {
  let staging: string;
  beforeEach(async () => {
    staging = (await limitedKey('stage@example.com', { environments: ['staging'] })).key;
    await allowed(ADMIN_KEY, 'POST', '/console/v1/gates', { id: 'checkout', name: 'checkout', overrides: { environmentOverrides: [{ environment: 'production', passingIDs: ['vip'] }] } });
  });

  it('changes overrides of its environments, directly and through /overrides', async () => {
    await allowed(staging, 'PATCH', '/console/v1/gates/checkout/overrides', { environmentOverrides: [{ environment: 'staging', passingIDs: ['tester'] }] });
    await allowed(staging, 'PATCH', '/console/v1/gates/checkout', { description: 'rules and overrides of production untouched' });
  });

  it.each([
    ['add an id to production through /overrides', 'PATCH', '/console/v1/gates/checkout/overrides', { environmentOverrides: [{ environment: 'production', passingIDs: ['me'] }] }, /^This key may change overrides of environments staging only: gate checkout changes overrides\.environmentOverrides\[0\], which applies to environment production\.$/],
    ['replace the overrides, dropping production’s', 'POST', '/console/v1/gates/checkout/overrides', { environmentOverrides: [] }, /which applies to environment production\.$/],
    ['change production’s overrides in the gate', 'PATCH', '/console/v1/gates/checkout', { overrides: { environmentOverrides: [{ environment: 'production', failingIDs: ['vip'] }] } }, /which applies to environment production\.$/],
    ['add an override of every environment', 'PATCH', '/console/v1/gates/checkout/overrides', { passingUserIDs: ['me'] }, /changes overrides\.passingUserIDs, which applies to every environment\.$/],
    ['add an environment override without an environment', 'PATCH', '/console/v1/gates/checkout/overrides', { environmentOverrides: [{ passingIDs: ['me'] }] }, /which applies to every environment\.$/],
  ])('may not %s → 403', async (_what, method, url, body, message) => {
    await refused(staging, method, url, body, message);
  });
});

describe('holdouts of a key limited to target apps', () => {
  let web: string;
  beforeEach(async () => {
    web = (await limitedKey('web@example.com', { targetAppID: 'web' })).key;
    for (const [id, targetApps] of [
      ['web_gate', ['web']],
      ['ios_gate', ['ios']],
    ] as const) {
      expect((await c.call('POST', '/console/v1/gates', { id, name: id, targetApps })).statusCode).toBe(201);
    }
    await allowed(ADMIN_KEY, 'POST', '/console/v1/experiments', { id: 'ios_exp', name: 'ios_exp', hypothesis: 'h', targetApps: ['ios'] });
    await allowed(ADMIN_KEY, 'POST', '/console/v1/holdouts', { id: 'web_hold', name: 'web_hold', passPercentage: 5, targetApps: ['web'] });
  });

  it('attaches entities of its apps', async () => {
    await allowed(web, 'PATCH', '/console/v1/holdouts/web_hold', { gateIDs: ['web_gate'] });
  });

  it.each([
    ['attach another app’s gate', { gateIDs: ['ios_gate'] }, /^Holdout web_hold adds gate ios_gate \(gateIDs\), which targets apps ios; this key may change only entities of target apps web\.$/],
    ['attach another app’s experiment', { experimentIDs: ['ios_exp'] }, /^Holdout web_hold adds experiment ios_exp \(experimentIDs\), which targets apps ios;/],
    ['make it global', { isGlobal: true }, /^Holdout web_hold: isGlobal reaches every gate created after it, of any app;/],
  ])('may not %s → 403', async (_what, body, message) => {
    await refused(web, 'PATCH', '/console/v1/holdouts/web_hold', body, message);
  });
});

describe('target apps', () => {
  let web: string;
  beforeEach(async () => {
    web = (await limitedKey('web@example.com', { targetAppID: 'web', secondaryTargetAppIDs: ['admin'] })).key;
    for (const [id, targetApps] of [
      ['web_gate', ['web', 'ios']],
      ['ios_gate', ['ios']],
      ['everywhere', []],
    ] as const) {
      expect((await c.call('POST', '/console/v1/gates', { id, name: id, targetApps })).statusCode).toBe(201);
    }
  });

  it('writes entities that target one of its apps, primary or secondary', async () => {
    await allowed(web, 'PATCH', '/console/v1/gates/web_gate', { description: 'mine' });
    await allowed(web, 'POST', '/console/v1/gates', { name: 'admin gate', targetApps: ['admin'] });
    await allowed(web, 'PATCH', '/console/v1/gates/web_gate', { targetApps: ['web'] });
    await allowed(web, 'PUT', '/console/v1/gates/web_gate/disable');
    await allowed(web, 'DELETE', '/console/v1/gates/admin_gate');
  });

  it.each([
    ['PATCH another app’s entity', 'PATCH', '/console/v1/gates/ios_gate', { description: 'x' }, /^Gate ios_gate targets apps ios; this key may change only entities of target apps web, admin\.$/],
    ['PATCH an entity of every app', 'PATCH', '/console/v1/gates/everywhere', { description: 'x' }, /^Gate everywhere targets no app \(so every app\); this key/],
    ['move its entity to another app', 'PATCH', '/console/v1/gates/web_gate', { targetApps: ['ios'] }, /^Gate web_gate would target apps ios; this key may change only entities of target apps web, admin\.$/],
    ['take over another app’s entity', 'PATCH', '/console/v1/gates/ios_gate', { targetApps: ['web'] }, /^Gate ios_gate targets apps ios;/],
    ['create an entity of another app', 'POST', '/console/v1/gates', { name: 'new', targetApps: ['ios'] }, /^Gate new would target apps ios;/],
    ['create an entity of no app', 'POST', '/console/v1/gates', { name: 'new' }, /^Gate new would target no app \(so every app\);/],
    ['delete another app’s entity', 'DELETE', '/console/v1/gates/ios_gate', undefined, /^Gate ios_gate targets apps ios;/],
    ['run an action on another app’s entity', 'PUT', '/console/v1/gates/ios_gate/disable', undefined, /^Gate ios_gate targets apps ios;/],
    ['write a kind without target apps (a segment)', 'POST', '/console/v1/segments', { name: 'beta users', type: 'id_list', ids: ['a'] }, /^Segment beta_users would target no app/],
  ])('may not %s → 403', async (_what, method, url, body, message) => {
    await refused(web, method, url, body, message);
  });

  it('reads every entity', async () => {
    expect(((await allowed(web, 'GET', '/console/v1/gates'))['data'] as unknown[]).length).toBe(3);
    await allowed(web, 'GET', '/console/v1/gates/ios_gate');
  });
});

describe('reviews', () => {
  let staging: string;
  let carol: string;
  beforeEach(async () => {
    staging = (await limitedKey('stage@example.com', { environments: ['staging'] })).key;
    carol = await c.keyFor('carol@example.com', 'member');
    expect((await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout', rules: [rule('prod', ['production'])] })).statusCode).toBe(201);
  });
  const reviews = '/console/v1/gates/checkout/reviews';

  it('a submission outside its environments → 403, no review stored', async () => {
    await refused(staging, 'POST', reviews, { description: 'x', change: { rules: [rule('prod', ['production'], { passPercentage: 5 })] } }, /changes rule 'prod'/);
    await refused(staging, 'POST', reviews, { action: 'delete' }, /removes rule 'prod'/);
  });

  it('a commit outside its environments → 403; the review stays approved and commits with another key', async () => {
    const submitted = await allowed(carol, 'POST', reviews, { description: 'x', change: { rules: [rule('prod', ['production'], { passPercentage: 5 })] } });
    const id = (submitted['data'] as { reviewID: string }).reviewID;
    await allowed(ADMIN_KEY, 'PUT', `${reviews}/${id}/approve`);
    const before = await storeSnapshot(c);
    const res = await c.call('PUT', `${reviews}/${id}/commit`, undefined, staging);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/changes rule 'prod' \(rules\[0\]\), which applies to environments production/);
    expect(await storeSnapshot(c)).toBe(before);
    expect((await c.call('GET', `${reviews}/${id}`)).json().data.status).toBe('approved');
    await allowed(carol, 'PUT', `${reviews}/${id}/commit`);
  });

  it('with a pre-commit webhook, a commit outside its environments does not start the validation (403, the review stays approved)', async () => {
    expect((await c.call('POST', '/console/v1/settings/precommit_webhook', { webhookURL: 'http://127.0.0.1:1/hook', webhookKey: 'k' })).statusCode).toBe(200);
    const submitted = await allowed(carol, 'POST', reviews, { description: 'x', change: { rules: [rule('prod', ['production'], { passPercentage: 5 })] } });
    const id = (submitted['data'] as { reviewID: string }).reviewID;
    await allowed(ADMIN_KEY, 'PUT', `${reviews}/${id}/approve`);
    const res = await c.call('PUT', `${reviews}/${id}/commit`, undefined, staging);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/changes rule 'prod'/);
    expect((await c.call('GET', `${reviews}/${id}`)).json().data.status).toBe('approved');
    expect((await allowed(carol, 'PUT', `${reviews}/${id}/commit`))['data']).toMatchObject({ status: 'pending_webhook_validation' });
  });

  it('a submission and commit within its environments go through', async () => {
    const submitted = await allowed(staging, 'POST', reviews, { description: 'x', change: { rules: [rule('prod', ['production']), rule('stage', ['staging'])] } });
    const id = (submitted['data'] as { reviewID: string }).reviewID;
    await allowed(carol, 'PUT', `${reviews}/${id}/approve`);
    await allowed(staging, 'PUT', `${reviews}/${id}/commit`);
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.rules).toHaveLength(2);
  });
});

describe('keys managed by a limited key', () => {
  let limitedAdmin: { id: string; key: string };
  beforeEach(async () => {
    limitedAdmin = await limitedKey('lead@example.com', { environments: ['staging'], targetAppID: 'web' }, 'admin');
  });
  const keys = async (): Promise<string> => JSON.stringify(await c.store.auth.listKeys());

  it('creates and manages keys within its own environments and target apps', async () => {
    const res = await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'dev@example.com', role: 'member', environments: ['staging'], targetAppID: 'web' }, limitedAdmin.key);
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    await allowed(limitedAdmin.key, 'PATCH', `/console/v1/keys/${id}`, { description: 'y' });
    await allowed(limitedAdmin.key, 'PATCH', `/console/v1/keys/${id}/rotate`);
    await allowed(limitedAdmin.key, 'PATCH', `/console/v1/keys/${id}/deactivate`);
    await allowed(limitedAdmin.key, 'DELETE', `/console/v1/keys/${id}`);
  });

  it.each([
    ['a key for every environment', { environments: [], targetAppID: 'web' }, /limited to environments staging: it may not create a key for every environment\./],
    ['a key for production', { environments: ['staging', 'production'], targetAppID: 'web' }, /it may not create a key for environments production\./],
    ['a key for every app', { environments: ['staging'] }, /limited to target apps web: it may not create a key for every target app\./],
    ['a key for another app', { environments: ['staging'], targetAppID: 'web', secondaryTargetAppIDs: ['ios'] }, /it may not create a key for target apps ios\./],
  ])('may not create %s → 403, nothing stored', async (_what, limits, message) => {
    const before = await keys();
    const res = await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'dev@example.com', role: 'member', ...limits }, limitedAdmin.key);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(message);
    expect(await keys()).toBe(before);
    expect(await c.store.auth.getUser('dev@example.com')).toBeUndefined();
  });

  it('may not rotate (and so learn), widen, deactivate or delete a key without its limits → 403, nothing changed', async () => {
    const [admin] = (await c.auth.listKeys()).filter((k) => k.userEmail === 'admin@localhost');
    const before = await keys();
    for (const [method, suffix, body] of [
      ['PATCH', '/rotate', undefined],
      ['PATCH', '/deactivate', undefined],
      ['PATCH', '', { description: 'mine now' }],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await c.call(method, `/console/v1/keys/${admin?.id}${suffix}`, body, limitedAdmin.key);
      expect(res.statusCode, `${method} ${suffix}`).toBe(403);
    }
    const res = await c.call('PATCH', `/console/v1/keys/${limitedAdmin.id}`, { environments: [] }, limitedAdmin.key);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/may not change a key for every environment/);
    expect(await keys()).toBe(before);
  });
});
