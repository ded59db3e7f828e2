/**
 * Config specs from two consoles on one PostgreSQL database: a write acknowledged by one replica is
 * in the very next download from the other, whose cache the write invalidates through the store's
 * change marks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigSpecs } from '../../core/eval/config-spec-types.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let database: TestDatabase;
let a: TestConsole;
let b: TestConsole;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase();
  a = createTestConsole({ db: database.url });
  await a.app.ready();
  b = createTestConsole({ db: database.url });
  await b.app.ready();
  const res = await a.call('POST', '/console/v1/keys', { description: 'app', type: 'SERVER' });
  expect(res.statusCode, res.body).toBe(201);
  key = res.json().data.key;
}, 30_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

const download = async (c: TestConsole): Promise<ConfigSpecs> => {
  const res = await c.app.inject({ method: 'GET', url: `/v1/download_config_specs/${key}.json` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('config specs on PostgreSQL replicas', () => {
  it('a write on one replica is in the next download from the other: 0 stale of 30', async () => {
    let stale = 0;
    for (let i = 0; i < 30; i++) {
      await download(b);
      const writer = i % 2 === 0 ? a : b;
      const reader = writer === a ? b : a;
      const created = await writer.call('POST', '/console/v1/gates', { id: `gate_${i}`, name: `Gate ${i}` });
      expect(created.statusCode).toBe(201);
      if (!(await download(reader)).feature_gates.some((g) => g.name === `gate_${i}`)) stale++;
    }
    expect(stale).toBe(0);
  });

  it('a key deactivated on one replica is refused by the other at once', async () => {
    const created = await a.call('POST', '/console/v1/keys', { description: 'short-lived', type: 'SERVER' });
    const { id, key: secret } = created.json().data;
    expect((await b.app.inject({ method: 'GET', url: `/v1/download_config_specs/${secret}.json` })).statusCode).toBe(200);
    expect((await a.call('PATCH', `/console/v1/keys/${id}/deactivate`)).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: `/v1/download_config_specs/${secret}.json` })).statusCode).toBe(401);
  });
});
