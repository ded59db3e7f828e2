/**
 * U+0000 in a path parameter, a query value or any string or key of a body is a 400 naming where it
 * is, on every store: PostgreSQL's text refuses the character, so asking it would end in a 500 there
 * while SQLite kept the value. A lone surrogate in a body is refused too: a UTF-8 column would turn it
 * into U+FFFD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { describeWithPostgres } from '../../test-support/test-environment.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

const NUL = 'contains the NUL character (U+0000), which is refused';

for (const store of ['sqlite', 'postgres'] as const) (store === 'postgres' ? describeWithPostgres : describe)(`NUL characters (${store})`, () => {
  let c: TestConsole;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = store === 'postgres' ? await createTestDatabase() : undefined;
    c = createTestConsole({ db: db?.url });
    expect((await c.call('POST', '/console/v1/gates', { id: 'plain', name: 'plain' })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await c.close();
    await db?.drop();
  });

  it.each([
    ['a key description', '/console/v1/keys', { description: 'a\u0000b', userEmail: 'x@example.com', role: 'member' }, 'description'],
    ["a key's user", '/console/v1/keys', { description: 'ok', userEmail: 'x\u0000y@example.com', role: 'member' }, 'userEmail'],
    ["a key's target app", '/console/v1/keys', { description: 'ok', userEmail: 'x@example.com', role: 'member', targetAppID: 'a\u0000' }, 'targetAppID'],
    ["a gate's description", '/console/v1/gates', { id: 'with_nul', name: 'with nul', description: 'a\u0000b' }, 'description'],
    ['a key of a free JSON value', '/console/v1/dynamic_configs', { id: 'cfg', name: 'cfg', defaultValue: { 'k\u0000': 1 } }, 'defaultValue.k\u0000'],
    ['a list item', '/console/v1/gates', { id: 'tagged', name: 'tagged', tags: ['ok', 'b\u0000'] }, 'tags[1]'],
  ])('in %s of a body is a 400 naming it, and nothing is written', async (_what, url, body, property) => {
    const before = (await c.call('GET', '/console/v1/audit_logs')).json().pagination.totalItems as number;
    const res = await c.call('POST', url, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ status: 400, message: 'Body may not contain the NUL character (U+0000).', errors: [{ property, errorMessage: NUL }] });
    expect((await c.call('GET', '/console/v1/audit_logs')).json().pagination.totalItems).toBe(before);
  });

  it('a lone surrogate in a string or key of a body is a 400 naming it: no UTF-8 column could keep it', async () => {
    for (const [url, body, property] of [
      ['/console/v1/keys', '{"description":"a\\ud800b","userEmail":"x@example.com","role":"member"}', 'description'],
      ['/console/v1/gates', '{"id":"surrogate","name":"surrogate","tags":["\\udc00"]}', 'tags[0]'],
    ] as const) {
      const res = await c.call('POST', url, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ status: 400, message: 'Body may not contain a lone surrogate.', errors: [{ property, errorMessage: 'contains a lone surrogate (half of a UTF-16 pair, e.g. "\\ud800"), which is not Unicode text' }] });
    }
    // A pair is one character, and welcome.
    expect((await c.call('POST', '/console/v1/gates', '{"id":"emoji","name":"emoji","description":"\\ud83d\\ude00"}')).statusCode).toBe(201);
  });

  it.each([
    ['an entity id', 'GET', '/console/v1/gates/ab%00c', 'id'],
    ['an entity id of a write', 'PATCH', '/console/v1/gates/ab%00c', 'id'],
    ['a review id', 'GET', '/console/v1/reviews/r%00x', 'reviewID'],
    ['a key id', 'GET', '/console/v1/keys/k%00', 'id'],
  ])('in %s of the path is a 400 naming the parameter', async (_what, method, url, property) => {
    const res = await c.call(method, url, method === 'PATCH' ? { description: 'x' } : undefined);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ property, errorMessage: NUL }]);
  });

  it.each([
    ['/console/v1/reviews?entityID=a%00b', 'entityID'],
    ['/console/v1/audit_logs?entityID=a%00', 'entityID'],
  ])('in a query value (%s) is a 400 naming the parameter', async (url, property) => {
    const res = await c.call('GET', url);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ status: 400, message: 'Invalid query.', errors: [{ property, errorMessage: NUL }] });
  });
});
