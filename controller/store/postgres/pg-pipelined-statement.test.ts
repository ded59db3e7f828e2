import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { describeWithPostgres } from '../../test-support/test-environment.js';
import { PgPipelinedStatement } from './pg-pipelined-statement.js';

describeWithPostgres('PgPipelinedStatement', () => {
  let database: TestDatabase;
  const opened: PgPipelinedStatement[] = [];
  const open = async (text: string, applicationName = 'pipelined-test'): Promise<PgPipelinedStatement> => {
    const statement = await PgPipelinedStatement.open({ connectionString: database.url, application_name: applicationName }, 'test_statement', text);
    opened.push(statement);
    return statement;
  };
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const statement of opened) statement.close();
    await database.drop();
  });

  it('answers each run with its first row as text, NULL as null, in the order the runs were sent', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('CREATE SEQUENCE pipelined_seq');
    await client.end();
    const statement = await open("SELECT nextval('pipelined_seq')::int, NULL::text, 'héllo, wörld'");
    const rows = await Promise.all(Array.from({ length: 200 }, () => statement.query()));
    expect(rows.map((row) => Number(row?.[0]))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(rows[0]?.slice(1)).toEqual([null, 'héllo, wörld']);
  });

  it('answers a row spanning many packets', async () => {
    const statement = await open("SELECT repeat('x', 300000)");
    const row = await statement.query();
    expect(row?.[0]).toHaveLength(300000);
  });

  it('rejects a run the server fails, with its message, and the runs after it still answer', async () => {
    const statement = await open('SELECT 1 / (random() * 0)::int');
    await expect(statement.query()).rejects.toThrow('division by zero');
    await expect(statement.query()).rejects.toThrow('division by zero');
    expect(statement.usable).toBe(true);
  });

  it('refuses a statement the server cannot prepare', async () => {
    await expect(open('SELECT * FROM no_such_table')).rejects.toThrow('"no_such_table" does not exist');
  });

  it('rejects runs in flight and after when the connection drops, and is no longer usable', async () => {
    const statement = await open('SELECT pg_sleep(0.2)', 'pipelined-doomed');
    const inFlight = statement.query().then(
      () => 'answered',
      (error: unknown) => error,
    );
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', ['pipelined-doomed']);
    await client.end();
    expect(await inFlight).toBeInstanceOf(Error);
    expect(statement.usable).toBe(false);
    await expect(statement.query()).rejects.toThrow();
  });
});
