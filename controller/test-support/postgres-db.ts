import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests create their databases on; CI starts it. */
export const TEST_PG_ADMIN_URL = process.env['FLAGOPS_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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
    // Failing, not skipping: a suite that silently skips its PostgreSQL half proves nothing.
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

/** A new, empty database of its own for one test (or one file), with its URL. */
export async function createTestDatabase(adminUrl = TEST_PG_ADMIN_URL): Promise<TestDatabase> {
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
