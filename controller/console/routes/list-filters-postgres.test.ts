/**
 * Filtered lists answer the same on both stores: on PostgreSQL the filters run in the database
 * (pageWhere), on SQLite over the store's parsed list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let database: TestDatabase;
let consoles: TestConsole[];
beforeAll(async () => {
  database = await createTestDatabase();
  consoles = [createTestConsole(), createTestConsole({ db: database.url })];
  for (const c of consoles) {
    await c.app.ready();
    for (let i = 0; i < 12; i++) {
      const res = await c.call('POST', '/console/v1/gates', { id: `gate_${i}`, name: `gate ${i}`, tags: i % 3 === 0 ? ['big'] : i % 3 === 1 ? ['small', 'x'] : [] });
      expect(res.statusCode).toBe(201);
    }
  }
});
afterAll(async () => {
  for (const c of consoles) await c.close();
  await database.drop();
});

describe('filtered lists on SQLite and PostgreSQL', () => {
  it.each(['tags=big', 'tags=big,x&limit=3&page=2', 'tags=nothing', 'tags=small&type=TEMPORARY', 'idType=userID&tags=big'])('%s', async (query) => {
    const [sqlite, postgres] = await Promise.all(consoles.map((c) => c.call('GET', `/console/v1/gates?${query}`)));
    expect(sqlite!.statusCode).toBe(200);
    expect(postgres!.statusCode).toBe(200);
    const view = (body: { data: { id: string }[]; pagination: unknown }) => ({ ids: body.data.map((g) => g.id), pagination: body.pagination });
    expect(view(postgres!.json())).toEqual(view(sqlite!.json()));
  });

  it('finds what it should', async () => {
    const body = (await consoles[1]!.call('GET', '/console/v1/gates?tags=big,x&limit=3&page=2')).json();
    expect(body.data.map((g: { id: string }) => g.id)).toEqual(['gate_4', 'gate_6', 'gate_7']);
    expect(body.pagination.totalItems).toBe(8);
  });
});
