/**
 * Rules as a sub-resource of gates and dynamic configs: GET/POST/PATCH /{kind}/{id}/rules and
 * PATCH/DELETE /{kind}/{id}/rules/{ruleID}, with the conventions of every entity write.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeTypesOf } from '../../core/change-type.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot, type Body } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const rule = (name: string, extra: Body = {}): Body => ({ name, passPercentage: 100, conditions: [{ type: 'user_id', operator: 'any', targetValue: ['u1'] }], ...extra });
const errorsOf = (res: { json(): unknown }): string[] => ((res.json() as { errors?: { property: string }[] }).errors ?? []).map((e) => e.property);

const KINDS = [
  { path: 'gates', kind: 'gate', label: 'Gate' },
  { path: 'dynamic_configs', kind: 'dynamic_config', label: 'Dynamic config' },
] as const;

describe.each(KINDS)('$path/{id}/rules', ({ path, kind, label }) => {
  const base = `/console/v1/${path}/thing`;
  const rulesUrl = `${base}/rules`;
  const stored = async (): Promise<Body> => (await c.store.entities.get(kind, 'thing'))?.data ?? {};
  const ruleIds = async (): Promise<string[]> => ((await stored())['rules'] as Body[]).map((r) => String(r['id']));

  beforeEach(async () => {
    const res = await c.call('POST', `/console/v1/${path}`, { id: 'thing', name: 'the thing', rules: [rule('first', { id: 'r1' }), rule('second', { id: 'r2', passPercentage: 50 })] });
    expect(res.statusCode, res.body).toBe(201);
  });

  describe('GET', () => {
    it('reads the rules as the entity read shows them, as a one-item list of { rules }', async () => {
      const res = await c.call('GET', rulesUrl, undefined, await c.keyFor('viewer@example.com', 'read_only'));
      expect(res.statusCode).toBe(200);
      const entity = (await c.call('GET', base)).json().data;
      expect(res.json()).toEqual({
        message: `${label} rules read successfully.`,
        data: [{ rules: entity.rules }],
        pagination: { itemsPerPage: 100, pageNumber: 1, totalItems: 1, nextPage: null, previousPage: null, all: `/console/v1/${path}/thing/rules` },
      });
      expect(entity.rules.map((r: Body) => r['id'])).toEqual(['r1', 'r2']);
    });

    it('404 for an unknown entity', async () => {
      expect((await c.call('GET', `/console/v1/${path}/nope/rules`)).json()).toEqual({ status: 404, message: `${label} not found.` });
    });
  });

  describe('POST (add)', () => {
    it('appends the rules, generating ids the way creates do, in one new version', async () => {
      const res = await c.call('POST', rulesUrl, { rules: [rule('third'), rule('fourth', { id: 'mine' })] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().message).toBe(`${label} rules added successfully.`);
      const rules = res.json().data.rules as Body[];
      expect(rules.map((r) => r['name'])).toEqual(['first', 'second', 'third', 'fourth']);
      expect(rules[2]).toMatchObject({ id: expect.stringMatching(/^[\w-]{12,}$/), completedAutomatedRollouts: [], pendingAutomatedRollouts: [] });
      expect(rules[2]?.['baseID']).toBe(rules[2]?.['id']);
      expect(rules[3]).toMatchObject({ id: 'mine', baseID: 'mine' });
      expect(res.json().data.version).toBe(2);
      expect((await c.store.audit.list({ kind, offset: 0, limit: 1 })).items[0]).toMatchObject({ action: 'add_rules', entityId: 'thing', version: 2 });
    });

    it.each<[string, unknown, string]>([
      ['no rules', { rules: [] }, 'rules'],
      ['rules missing', {}, 'rules'],
      ['a rule without a name', { rules: [{ passPercentage: 1, conditions: [] }] }, 'rules[0].name'],
      ['passPercentage 101', { rules: [rule('ok'), rule('bad', { passPercentage: 101 })] }, 'rules[1].passPercentage'],
      ['a response-only field', { rules: [rule('ok', { completedAutomatedRollouts: [] })] }, 'rules[0].completedAutomatedRollouts'],
      ['two new rules with one name', { rules: [rule('same'), rule('same')] }, 'rules[1].name'],
      ['an unknown body field', { rules: [rule('ok')], position: 0 }, 'position'],
    ])('400 for %s, naming %s; nothing changes', async (_what, body, property) => {
      const before = await storeSnapshot(c);
      const res = await c.call('POST', rulesUrl, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorsOf(res)).toEqual([property]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it.each<[string, Body, RegExp]>([
      ['a name an existing rule has', rule('second'), /already has a rule named 'second' \(id r2\)/],
      ['an id an existing rule has', rule('other', { id: 'r1' }), /already has a rule with id 'r1'/],
    ])('409 for %s; nothing changes', async (_what, added, message) => {
      const before = await storeSnapshot(c);
      const res = await c.call('POST', rulesUrl, { rules: [added] });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toMatch(message);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('PATCH (update rules by id)', () => {
    it('changes only the named rules, only the supplied fields; adds and deletes nothing', async () => {
      const res = await c.call('PATCH', rulesUrl, { rules: [{ id: 'r2', passPercentage: 75 }, { id: 'r1', name: 'renamed first' }] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().message).toBe(`${label} updated successfully.`);
      const rules = res.json().data.rules as Body[];
      expect(rules.map((r) => [r['id'], r['name'], r['passPercentage']])).toEqual([
        ['r1', 'renamed first', 100],
        ['r2', 'second', 75],
      ]);
      expect((await c.store.audit.list({ kind, offset: 0, limit: 1 })).items[0]).toMatchObject({ action: 'update_rules', version: 2 });
    });

    it('rules may swap names in one request', async () => {
      const res = await c.call('PATCH', rulesUrl, { rules: [{ id: 'r1', name: 'second' }, { id: 'r2', name: 'first' }] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.rules.map((r: Body) => r['name'])).toEqual(['second', 'first']);
    });

    it.each<[string, unknown, string]>([
      ['a rule without id', { rules: [{ passPercentage: 5 }] }, 'rules[0].id'],
      ['one rule named twice', { rules: [{ id: 'r1', passPercentage: 5 }, { id: 'r1', passPercentage: 6 }] }, 'rules[1].id'],
      ['passPercentage -1', { rules: [{ id: 'r1' }, { id: 'r2', passPercentage: -1 }] }, 'rules[1].passPercentage'],
      ['two rules given one name', { rules: [{ id: 'r1', name: 'same' }, { id: 'r2', name: 'same' }] }, 'rules[1].name'],
      ['no rules', { rules: [] }, 'rules'],
    ])('400 for %s, naming %s; nothing changes', async (_what, body, property) => {
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', rulesUrl, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorsOf(res)).toEqual([property]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it('404 naming an unknown rule id; 409 for the name of a rule the request leaves alone', async () => {
      const before = await storeSnapshot(c);
      const unknown = await c.call('PATCH', rulesUrl, { rules: [{ id: 'r1', passPercentage: 1 }, { id: 'ghost', passPercentage: 1 }] });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().message).toBe(`Rule ghost not found in ${label.toLowerCase()} thing.`);
      const taken = await c.call('PATCH', rulesUrl, { rules: [{ id: 'r1', name: 'second' }] });
      expect(taken.statusCode).toBe(409);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('PATCH /rules/{ruleID} (update one)', () => {
    it('changes the supplied fields of that rule; its id stays', async () => {
      const res = await c.call('PATCH', `${rulesUrl}/r2`, { passPercentage: 10, environments: ['production'] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().message).toBe(`${label} updated successfully.`);
      expect(res.json().data.rules[1]).toMatchObject({ id: 'r2', baseID: 'r2', name: 'second', passPercentage: 10, environments: ['production'] });
      expect(res.json().data.rules[0]).toMatchObject({ id: 'r1', passPercentage: 100 });
      expect((await c.call('PATCH', `${rulesUrl}/r2`, { id: 'r2', passPercentage: 10 })).json().data.version).toBe(2);
    });

    it.each<[string, unknown, string]>([
      ['passPercentage 100.5', { passPercentage: 100.5 }, 'passPercentage'],
      ['an empty name', { name: '' }, 'name'],
      ['a condition without type', { conditions: [{ operator: 'any' }] }, 'conditions[0].type'],
      ['another id', { id: 'r9' }, 'id'],
      ['an unknown field', { weight: 3 }, 'weight'],
    ])('400 for %s, naming %s; nothing changes', async (_what, body, property) => {
      const before = await storeSnapshot(c);
      const res = await c.call('PATCH', `${rulesUrl}/r1`, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorsOf(res)).toEqual([property]);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it("404 for an unknown rule or entity; 409 for another rule's name", async () => {
      const before = await storeSnapshot(c);
      const unknown = await c.call('PATCH', `${rulesUrl}/ghost`, { passPercentage: 1 });
      expect(unknown.json()).toEqual({ status: 404, message: `Rule ghost not found in ${label.toLowerCase()} thing.` });
      expect((await c.call('PATCH', `/console/v1/${path}/nope/rules/r1`, { passPercentage: 1 })).json()).toEqual({ status: 404, message: `${label} not found.` });
      const taken = await c.call('PATCH', `${rulesUrl}/r1`, { name: 'second' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().message).toMatch(/already has a rule named 'second'/);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('DELETE /rules/{ruleID}', () => {
    it('removes that rule and answers with the entity', async () => {
      const res = await c.call('DELETE', `${rulesUrl}/r1`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ message: `${label} updated successfully.`, data: { id: 'thing', version: 2 } });
      expect(await ruleIds()).toEqual(['r2']);
      expect((await c.store.audit.list({ kind, offset: 0, limit: 1 })).items[0]).toMatchObject({ action: 'delete_rule', version: 2 });
    });

    it('404 for an unknown rule (again after deleting it) or entity', async () => {
      await c.call('DELETE', `${rulesUrl}/r1`);
      const before = await storeSnapshot(c);
      expect((await c.call('DELETE', `${rulesUrl}/r1`)).json()).toEqual({ status: 404, message: `Rule r1 not found in ${label.toLowerCase()} thing.` });
      expect((await c.call('DELETE', `/console/v1/${path}/nope/rules/r1`)).statusCode).toBe(404);
      expect(await storeSnapshot(c)).toBe(before);
    });
  });

  describe('every write', () => {
    const writes: [string, string, unknown][] = [
      ['POST', '', { rules: [rule('third')] }],
      ['PATCH', '', { rules: [{ id: 'r1', passPercentage: 5 }] }],
      ['PATCH', '/r1', { passPercentage: 5 }],
      ['DELETE', '/r1', undefined],
    ];

    it.each(writes)('%s rules%s: If-Match of another version → 409, the current one → 200', async (method, sub, body) => {
      const before = await storeSnapshot(c);
      const stale = await c.call(method, `${rulesUrl}${sub}`, body, undefined, { 'if-match': '"7"' });
      expect(stale.statusCode).toBe(409);
      expect(stale.json().message).toMatch(/is at version 1, not 7/);
      expect(await storeSnapshot(c)).toBe(before);
      expect((await c.call(method, `${rulesUrl}${sub}`, body, undefined, { 'if-match': '"1"' })).statusCode).toBe(200);
    });

    it.each(writes)('%s rules%s: a read_only key → 403, nothing changes', async (method, sub, body) => {
      const viewer = await c.keyFor('viewer@example.com', 'read_only');
      const before = await storeSnapshot(c);
      expect((await c.call(method, `${rulesUrl}${sub}`, body, viewer)).statusCode).toBe(403);
      expect(await storeSnapshot(c)).toBe(before);
    });

    it.each(writes)('%s rules%s: with reviews required, 403 without bypass_reviews; a bypass key writes', async (method, sub, body) => {
      const member = await c.keyFor('dev@example.com', 'member');
      expect((await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true })).statusCode).toBe(200);
      const before = await storeSnapshot(c);
      const refused = await c.call(method, `${rulesUrl}${sub}`, body, member);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toMatch(/bypass_reviews/);
      expect(await storeSnapshot(c)).toBe(before);
      expect((await c.call(method, `${rulesUrl}${sub}`, body)).statusCode).toBe(200);
    });

    it.each(writes)('%s rules%s: changes what is served, a `rules` change for the webhook', async (method, sub, body) => {
      const before = await stored();
      expect((await c.call(method, `${rulesUrl}${sub}`, body)).statusCode).toBe(200);
      const after = await stored();
      expect(changeTypesOf({ configType: kind, action: 'update', before, after })).toEqual(['rules']);
    });
  });
});

describe("a gate's own reviewSettings.requiredReview", () => {
  it('refuses rule writes without bypass_reviews (403); a bypass key writes', async () => {
    const member = await c.keyFor('dev@example.com', 'member');
    expect((await c.call('POST', '/console/v1/gates', { id: 'guarded', name: 'guarded', rules: [rule('r', { id: 'r1' })], reviewSettings: { requiredReview: true, allowedReviewers: [] } }, member)).statusCode).toBe(201);
    const before = await storeSnapshot(c);
    const requests: [string, string, unknown][] = [
      ['POST', '/console/v1/gates/guarded/rules', { rules: [rule('more')] }],
      ['PATCH', '/console/v1/gates/guarded/rules', { rules: [{ id: 'r1', passPercentage: 1 }] }],
      ['PATCH', '/console/v1/gates/guarded/rules/r1', { passPercentage: 1 }],
      ['DELETE', '/console/v1/gates/guarded/rules/r1', undefined],
    ];
    for (const [method, url, body] of requests) {
      const res = await c.call(method, url, body, member);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toMatch(/requires reviews/);
    }
    expect(await storeSnapshot(c)).toBe(before);
    for (const [method, url, body] of requests) expect((await c.call(method, url, body)).statusCode, `${method} ${url}`).toBe(200);
  });
});

describe('dynamic config rules: return values', () => {
  const schema = JSON.stringify({ type: 'object', properties: { color: { type: 'string' } }, required: ['color'] });

  beforeEach(async () => {
    const res = await c.call('POST', '/console/v1/dynamic_configs', { id: 'banner', name: 'banner', schema, defaultValue: { color: 'red' }, rules: [rule('blue', { id: 'r1', returnValue: { color: 'blue' } })] });
    expect(res.statusCode, res.body).toBe(201);
  });

  it("a return value that breaks the config's schema → 400 naming the request's property", async () => {
    const before = await storeSnapshot(c);
    const added = await c.call('POST', '/console/v1/dynamic_configs/banner/rules', { rules: [rule('green', { returnValue: { color: 'green' } }), rule('bad', { returnValue: { color: 1 } })] });
    expect(added.statusCode).toBe(400);
    expect(added.json().errors).toEqual([{ property: 'rules[1].returnValue', errorMessage: expect.stringMatching(/does not match the config's schema \(rule 'bad'\)/) }]);
    const one = await c.call('PATCH', '/console/v1/dynamic_configs/banner/rules/r1', { returnValue: {} });
    expect(errorsOf(one)).toEqual(['returnValue']);
    const many = await c.call('PATCH', '/console/v1/dynamic_configs/banner/rules', { rules: [{ id: 'r1', returnValue: { color: false } }] });
    expect(errorsOf(many)).toEqual(['rules[0].returnValue']);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('supplying one form of the return value replaces both; JSON5 is derived into returnValue', async () => {
    await c.call('PATCH', '/console/v1/dynamic_configs/banner/rules/r1', { returnValueJson5: "{ color: 'teal' /* brand */ }" });
    expect(((await c.store.entities.get('dynamic_config', 'banner'))?.data['rules'] as Body[])[0]).toMatchObject({ returnValue: { color: 'teal' }, returnValueJson5: "{ color: 'teal' /* brand */ }" });
    const res = await c.call('PATCH', '/console/v1/dynamic_configs/banner/rules/r1', { returnValue: { color: 'navy' } });
    expect(res.statusCode, res.body).toBe(200);
    const stored = ((await c.store.entities.get('dynamic_config', 'banner'))?.data['rules'] as Body[])[0];
    expect(stored?.['returnValue']).toEqual({ color: 'navy' });
    expect(stored).not.toHaveProperty('returnValueJson5');
  });

  it('added rules with variants get variant ids', async () => {
    const res = await c.call('POST', '/console/v1/dynamic_configs/banner/rules', {
      rules: [rule('split', { returnValue: { color: 'x' }, variants: [{ name: 'a', passPercentage: 50, returnValue: { color: 'a' } }, { name: 'b', passPercentage: 50, returnValue: { color: 'b' } }] })],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.rules[1].variants).toEqual([expect.objectContaining({ name: 'a', id: expect.any(String) }), expect.objectContaining({ name: 'b', id: expect.any(String) })]);
  });
});
