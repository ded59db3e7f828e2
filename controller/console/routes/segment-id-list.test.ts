/**
 * A segment's id list as a sub-resource: GET, PATCH (add), DELETE (remove) /segments/{id}/id_list and
 * POST /segments/{id}/id_list/reset, on the same logic as PATCH .../add_ids and .../remove_ids.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeTypesOf } from '../../core/change-type.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot, type Body } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', '/console/v1/segments', { id: 'vip', name: 'VIP users', type: 'id_list', ids: ['u1', 'u2'] })).statusCode).toBe(201);
});
afterEach(() => c.close());

const URL = '/console/v1/segments/vip/id_list';
const RESET = `${URL}/reset`;
const errorsOf = (res: { json(): unknown }): string[] => ((res.json() as { errors?: { property: string }[] }).errors ?? []).map((e) => e.property);
const stored = async (id = 'vip'): Promise<Body> => (await c.store.entities.get('segment', id))?.data ?? {};

const WRITES: [string, string, Body][] = [
  ['PATCH', URL, { ids: ['u3'] }],
  ['DELETE', URL, { ids: ['u1'] }],
  ['POST', RESET, { ids: ['u9'] }],
];

describe('GET /segments/{id}/id_list', () => {
  it('reads name, count and ids (read_only may)', async () => {
    const res = await c.call('GET', URL, undefined, await c.keyFor('viewer@example.com', 'read_only'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'IDs read successfully.', data: { name: 'VIP users', count: 2, ids: ['u1', 'u2'] } });
  });

  it('a rule-based segment has an empty list; an unknown segment is a 404', async () => {
    await c.call('POST', '/console/v1/segments', { id: 'ruled', name: 'ruled', type: 'rule_based' });
    expect((await c.call('GET', '/console/v1/segments/ruled/id_list')).json().data).toEqual({ name: 'ruled', count: 0, ids: [] });
    expect((await c.call('GET', '/console/v1/segments/nope/id_list')).json()).toEqual({ status: 404, message: 'Segment not found.' });
  });
});

describe('writes', () => {
  it('PATCH adds ids (each once) and answers with a message only', async () => {
    const res = await c.call('PATCH', URL, { ids: ['u3', 'u1', 'u3'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'IDs successfully added to Segment ID List' });
    expect(await stored()).toMatchObject({ ids: ['u1', 'u2', 'u3'], version: 2 });
    expect((await c.store.audit.list({ kind: 'segment', offset: 0, limit: 1 })).items[0]).toMatchObject({ action: 'id_list_add', version: 2 });
  });

  it('DELETE removes ids; ids not in the list change nothing', async () => {
    const res = await c.call('DELETE', URL, { ids: ['u1', 'nobody'] });
    expect(res.json()).toEqual({ message: 'IDs successfully removed from Segment ID List' });
    expect(await stored()).toMatchObject({ ids: ['u2'], version: 2 });
    expect((await c.call('DELETE', URL, { ids: ['nobody'] })).statusCode).toBe(200);
    expect((await stored())['version']).toBe(2);
  });

  it('POST reset replaces the list; an empty list clears it', async () => {
    expect((await c.call('POST', RESET, { ids: ['a', 'b', 'a'] })).json()).toEqual({ message: 'Segment ID List reset successfully.' });
    expect(await stored()).toMatchObject({ ids: ['a', 'b'], version: 2 });
    await c.call('POST', RESET, { ids: [] });
    expect((await c.call('GET', URL)).json().data).toEqual({ name: 'VIP users', count: 0, ids: [] });
  });

  it('add_ids and remove_ids still answer with the segment', async () => {
    expect((await c.call('PATCH', '/console/v1/segments/vip/add_ids', { ids: ['u3'] })).json().data).toMatchObject({ ids: ['u1', 'u2', 'u3'], count: 3 });
    expect((await c.call('PATCH', '/console/v1/segments/vip/remove_ids', { ids: ['u3'] })).json().data).toMatchObject({ ids: ['u1', 'u2'], count: 2 });
  });

  it.each<[string, string, unknown, string]>([
    ['PATCH', 'an empty list', { ids: [] }, 'ids'],
    ['PATCH', 'ids missing', {}, 'ids'],
    ['PATCH', 'an empty id', { ids: ['u9', ''] }, 'ids[1]'],
    ['DELETE', 'ids a string', { ids: 'u1' }, 'ids'],
    ['DELETE', 'an unknown field', { ids: ['u1'], version: 3 }, 'version'],
    ['POST', 'ids missing', {}, 'ids'],
    ['POST', 'a number for an id', { ids: [7] }, 'ids[0]'],
  ])('%s with %s → 400 naming %s, nothing changed', async (method, _what, body, property) => {
    const before = await storeSnapshot(c);
    const res = await c.call(method, method === 'POST' ? RESET : URL, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)).toEqual([property]);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('more than 100000 ids in one request → 400 naming ids', async () => {
    const res = await c.call('PATCH', URL, { ids: Array.from({ length: 100_001 }, (_, i) => String(i)) });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual(['ids']);
  });

  it.each(WRITES)('%s %s on a rule-based segment → 400 naming ids, nothing changed', async (method, url, body) => {
    await c.call('POST', '/console/v1/segments', { id: 'ruled', name: 'ruled', type: 'rule_based' });
    const before = await storeSnapshot(c);
    const res = await c.call(method, url.replace('/vip/', '/ruled/'), body);
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual(['ids']);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it.each(WRITES)('%s %s on an archived segment → 409; an unknown one → 404', async (method, url, body) => {
    await c.call('PUT', '/console/v1/segments/vip/archive');
    const before = await storeSnapshot(c);
    const res = await c.call(method, url, body);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/archived; unarchive it first/);
    expect((await c.call(method, url.replace('/vip/', '/nope/'), body)).json()).toEqual({ status: 404, message: 'Segment not found.' });
    expect(await storeSnapshot(c)).toBe(before);
  });

  it.each(WRITES)('%s %s: If-Match of another version → 409, the current one → 200', async (method, url, body) => {
    const before = await storeSnapshot(c);
    const stale = await c.call(method, url, body, undefined, { 'if-match': '"4"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/is at version 1, not 4/);
    expect(await storeSnapshot(c)).toBe(before);
    expect((await c.call(method, url, body, undefined, { 'if-match': '"1"' })).statusCode).toBe(200);
  });

  it.each(WRITES)('%s %s: a read_only key → 403', async (method, url, body) => {
    // The key first: creating it is an audited change of its own.
    const viewer = await c.keyFor('viewer@example.com', 'read_only');
    const before = await storeSnapshot(c);
    expect((await c.call(method, url, body, viewer)).statusCode).toBe(403);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it.each(WRITES)('%s %s: with reviews required, 403 without bypass_reviews; a bypass key writes', async (method, url, body) => {
    const member = await c.keyFor('dev@example.com', 'member');
    await c.call('POST', '/console/v1/settings/reviews', { is_config_review_required: true });
    const before = await storeSnapshot(c);
    const refused = await c.call(method, url, body, member);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/bypass_reviews/);
    expect(await storeSnapshot(c)).toBe(before);
    expect((await c.call(method, url, body)).statusCode).toBe(200);
  });

  it.each(WRITES)('%s %s changes what is served: a `rules` change for the webhook', async (method, url, body) => {
    const before = await stored();
    expect((await c.call(method, url, body)).statusCode).toBe(200);
    expect(changeTypesOf({ configType: 'segment', action: 'update', before, after: await stored() })).toEqual(['rules']);
  });
});
