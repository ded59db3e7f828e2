import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testPostgresUrl } from './test-environment.js';

export interface TestDatabase {
  url: string;
  /** Ends every connection to the database and drops it. */
  drop: () => Promise<void>;
}

async function admin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    // The global setup found this server answering: losing it mid-run is a failure, not a skip.
    throw new Error(
      `PostgreSQL for tests is not reachable at ${adminUrl} (${(error as Error).message}). Start it, or set FLAGOPS_TEST_PG_URL to a server where this user may create databases.`,
      { cause: error },
    );
  }
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database of its own for one test (or one file), with its URL, on the run's server
 * (see test-global-setup.ts); only inside a suite declared with describeWithPostgres.
 */
export async function createTestDatabase(adminUrl = testPostgresUrl()): Promise<TestDatabase> {
  const name = `flagops_test_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends the connections a failed test left open (PostgreSQL 13 and later).
    drop: () => admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Runs one statement on a database directly, on a connection of its own, as another client would. */
export async function queryDatabase<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
