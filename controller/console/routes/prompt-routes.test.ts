import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PromptSchema } from '../../../schemas/prompt.js';
import { ok, type Body } from '../../test-support/experiment-fixtures.js';
import { describeValidationTable, REMOVE, storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const BASE = '/console/v1/prompts';

describe('AI configs (prompts)', () => {
  it('POST /prompts with only a name → 201, the prompt object with an integer version and no owner', async () => {
    const res = await c.call('POST', BASE, { name: 'support bot' });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.json()).sort()).toEqual(['data', 'message']);
    const data = res.json().data as Body;
    expect(data).toMatchObject({
      id: 'support bot',
      name: 'support bot',
      description: '',
      idType: 'userID',
      tags: [],
      targetApps: [],
      holdoutIDs: [],
      version: 1,
      creatorName: 'admin@localhost',
      creatorEmail: 'admin@localhost',
      lastModifierName: 'admin@localhost',
      permalink: 'http://console.test/console/v1/prompts/support%20bot',
    });
    // Not set, and typed without null by the reference API: left out.
    for (const field of ['displayName', 'team', 'teamID', 'owner']) expect(data, field).not.toHaveProperty(field);
    expect(Number.isInteger(data['version'])).toBe(true);
    expect(typeof data['createdTime']).toBe('number');
    expect(PromptSchema.safeParse(data).error).toBeUndefined();
  });

  it('accepts every optional field of endpoint 7', async () => {
    const body = {
      name: 'support bot',
      displayName: 'Support Bot v2',
      description: 'answers tickets',
      targetApps: ['web'],
      team: 'support',
      teamID: 't1',
      tags: ['llm'],
      creatorID: 'c1',
      creatorEmail: 'c@example.com',
      owner: { ownerID: 'u1', ownerType: 'USER', ownerName: 'Ann', ownerEmail: 'ann@example.com' },
    };
    expect(((await ok(c, 'POST', BASE, body, 201))['data'] as Body)).toMatchObject(body);
  });

  it('lists, reads and patches; the name is fixed', async () => {
    await ok(c, 'POST', BASE, { name: 'one', tags: ['a'] }, 201);
    await ok(c, 'POST', BASE, { name: 'two' }, 201);
    expect(((await ok(c, 'GET', BASE))['data'] as Body[]).map((p) => p['id'])).toEqual(['one', 'two']);
    expect(((await ok(c, 'GET', `${BASE}?tags=a`))['data'] as Body[]).map((p) => p['id'])).toEqual(['one']);
    expect(((await ok(c, 'GET', `${BASE}/two`))['data'] as Body)['name']).toBe('two');
    const patched = (await ok(c, 'PATCH', `${BASE}/one`, { description: 'new', displayName: 'One Prime', team: 'x' }))['data'] as Body;
    expect(patched).toMatchObject({ name: 'one', description: 'new', displayName: 'One Prime', tags: ['a'], version: 2 });
    const rename = await c.call('PATCH', `${BASE}/one`, { name: 'uno' });
    expect(rename.statusCode).toBe(400);
    expect(rename.json().errors).toEqual([{ property: 'name', errorMessage: expect.stringMatching(/^is not a known field/) }]);
    expect((await c.call('GET', `${BASE}/nope`)).json()).toEqual({ status: 404, message: 'AI config not found.' });
  });

  it('has no delete and no full update, as in the reference', async () => {
    await ok(c, 'POST', BASE, { name: 'one' }, 201);
    const before = await storeSnapshot(c);
    expect((await c.call('DELETE', `${BASE}/one`)).statusCode).toBe(404);
    expect((await c.call('POST', `${BASE}/one`, { description: 'x' })).statusCode).toBe(404);
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('a second prompt of the same name is a 409', async () => {
    await ok(c, 'POST', BASE, { name: 'one' }, 201);
    expect((await c.call('POST', BASE, { name: 'one' })).statusCode).toBe(409);
  });

  it.each([['padded ', 'at the end'], [' padded', 'at the start'], ['     ', 'spaces only']])('a name with a space %j (%s) is a 400 naming name: the name is the id', async (name) => {
    await ok(c, 'POST', BASE, { name: 'padded' }, 201);
    const before = await storeSnapshot(c);
    const res = await c.call('POST', BASE, { name });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual({ property: 'name', errorMessage: 'must not start or end with a space: the name is the id' });
    expect(await storeSnapshot(c)).toBe(before);
  });

  it('keeps its versions', async () => {
    await ok(c, 'POST', BASE, { name: 'one' }, 201);
    await ok(c, 'PATCH', `${BASE}/one`, { description: 'v2' });
    const versions = await ok(c, 'GET', `${BASE}/one/versions`);
    expect((versions['data'] as Body[]).map((v) => [v['version'], v['description']])).toEqual([[2, 'v2'], [1, '']]);
  });
});

describe('AI config messages', () => {
  it('say "AI config", as "AI config not found." does', async () => {
    const res = await c.call('POST', BASE, { name: 'ab' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Invalid AI config.');
    expect((await c.call('GET', `${BASE}/nothing_here`)).json().message).toBe('AI config not found.');
  });
});

describe('AI config validation (mutate one field; 400 names it; nothing changes)', () => {
  const body: Body = { displayName: 'Display Name', description: 'd', tags: ['t'], targetApps: ['web'], team: 'a', teamID: 'b' };
  describeValidationTable({
    listPath: 'prompts',
    seed: async (t) => void (await ok(t, 'POST', BASE, { name: 'existing' }, 201)),
    existingId: 'existing',
    bodies: { create: { ...body, name: 'new prompt' }, patch: body },
    cases: [
      { label: 'no name', path: 'name', value: REMOVE, property: 'name', message: /required/, ops: ['create'] },
      { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name', message: /3 to 100/, ops: ['create'] },
      { label: 'name of 101 characters', path: 'name', value: 'x'.repeat(101), property: 'name', message: /3 to 100/, ops: ['create'] },
      { label: 'name with a slash', path: 'name', value: 'a/b', property: 'name', message: /letters, digits/, ops: ['create'] },
      { label: 'displayName of 2 characters', path: 'displayName', value: 'ab', property: 'displayName', message: /3 to 100/ },
      { label: 'displayName of 101 characters', path: 'displayName', value: 'x'.repeat(101), property: 'displayName', message: /3 to 100/ },
      { label: 'displayName with a colon', path: 'displayName', value: 'a:b c', property: 'displayName', message: /letters, digits/ },
      { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description', message: /1000/ },
      { label: 'tags as a string', path: 'tags', value: 'a', property: 'tags' },
      { label: 'server-managed version', path: 'version', value: 3, property: 'version', message: /not a known field/ },
    ],
  });
});
