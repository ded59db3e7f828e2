/**
 * Two `flagops serve` replicas ride out their PostgreSQL going away: three restarts and a kill
 * followed by a start, under write load. Neither exits; while the database is away requests answer
 * 503 in the error envelope (never a bare 500), `/readyz` says not ready and then ready again by
 * itself, every acknowledged write is in the version history, the LISTEN connections come back and a
 * write through one replica is read through the other after each outage.
 * Runs its own PostgreSQL server (private-postgres.ts), never the shared one other tests use.
 * Needs the compiled CLI (`npm run build`, which `npm test` runs first).
 */
import { afterAll, expect, it } from 'vitest';
import { queryDatabase } from '../test-support/postgres-db.js';
import { startPrivatePostgres, type PrivatePostgres } from '../test-support/private-postgres.js';
import { describeWithPostgres } from '../test-support/test-environment.js';
import { spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';

const ADMIN = 'console-outage-admin';
const GATES = 8;
const WRITERS = 8;

type Json = Record<string, unknown>;

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Json; retryAfter: string | null }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json), retryAfter: res.headers.get('retry-after') };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function readyStatus(replica: SpawnedConsole): Promise<number> {
  return (await fetch(`${replica.url}/readyz`)).status;
}

const adminQuery = queryDatabase;

let server: PrivatePostgres | undefined;
let replicas: SpawnedConsole[] = [];

afterAll(async () => {
  for (const replica of replicas) if (replica.child.exitCode === null) replica.child.kill('SIGKILL');
  await server?.destroy();
});

// Its own server (never the shared one), from the binaries the run's PostgreSQL came from: without
// any, the run has no PostgreSQL and says so.
describeWithPostgres('two replicas while their PostgreSQL restarts', () => {
  it('survive three restarts and a kill, answer 503 meanwhile, go unready and ready again, and lose no acknowledged write', async () => {
    server = await startPrivatePostgres();
    await adminQuery(server.url, 'CREATE DATABASE flagops_outage');
    const dbUrl = server.url.replace(/\/postgres$/, '/flagops_outage');
    // Durability full (synchronous_commit on): a write is acknowledged once PostgreSQL has it in its WAL,
    // so even killing the server loses none. (With normal, a server crash may lose the last ~0.6 s.)
    replicas = await Promise.all([0, 1].map(() => spawnConsole({ db: dbUrl, key: ADMIN, args: ['--durability', 'full'] })));
    const [a, b] = replicas as [SpawnedConsole, SpawnedConsole];
    for (let g = 0; g < GATES; g++) expect((await api(a.url, 'POST', '/console/v1/gates', { id: `load_${g}`, name: `load ${g}` })).status).toBe(201);
    expect((await api(a.url, 'POST', '/console/v1/gates', { id: 'marker', name: 'marker' })).status).toBe(201);

    // Write load: each writer PATCHes its gates through both replicas in turn and keeps what was acknowledged.
    const acknowledged: { gate: string; version: number; description: string }[] = [];
    const unexpected: string[] = [];
    let unavailable = 0;
    let writing = true;
    const writer = async (w: number): Promise<void> => {
      for (let n = 0; writing; n++) {
        const replica = replicas[(w + n) % 2]!;
        const gate = `load_${(w + n) % GATES}`;
        const description = `w${w} n${n}`;
        let res: Awaited<ReturnType<typeof api>>;
        try {
          res = await api(replica.url, 'PATCH', `/console/v1/gates/${gate}`, { description });
        } catch (error) {
          unexpected.push(`PATCH through replica ${(w + n) % 2} failed: ${(error as Error).message}`);
          await sleep(50);
          continue;
        }
        if (res.status === 200) {
          const data = res.json['data'] as Json;
          acknowledged.push({ gate, version: Number(data['version']), description });
        } else if (res.status === 503 && res.json['status'] === 503 && typeof res.json['message'] === 'string' && res.retryAfter !== null) {
          unavailable++;
          await sleep(20);
        } else {
          unexpected.push(`${res.status} ${JSON.stringify(res.json)}`);
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

    // Readiness as a load balancer sees it, polled throughout.
    const readiness: number[][] = [[], []];
    let polling = true;
    const pollers = replicas.map(async (replica, i) => {
      while (polling) {
        readiness[i]!.push(await readyStatus(replica).catch(() => -1));
        await sleep(25);
      }
    });

    const outage = async (what: string, down: () => Promise<void>, up?: () => Promise<void>): Promise<void> => {
      const before = readiness.map((seen) => seen.length);
      const ackedBefore = acknowledged.length;
      await down();
      // Not ready while the database is away (a restart takes a moment: the pollers may see it, or this does).
      await until(`both replicas unready (${what})`, 10_000, async () => readiness.every((seen, i) => seen.slice(before[i]).includes(503)));
      await up?.();
      await until(`both replicas ready again (${what})`, 30_000, async () => (await Promise.all(replicas.map(readyStatus))).every((s) => s === 200));
      // Writes are acknowledged again, and the LISTEN connections are back.
      await until(`writes acknowledged after ${what}`, 15_000, async () => acknowledged.length > ackedBefore + 20);
      await until(`both replicas listening after ${what}`, 15_000, async () => {
        const rows = await adminQuery<{ n: number }>(dbUrl, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'flagops-listener' AND datname = 'flagops_outage'");
        return rows[0]?.n === 2;
      });
      // What one replica writes, the other reads.
      const marker = `after ${what}`;
      expect((await api(a.url, 'PATCH', '/console/v1/gates/marker', { description: marker })).status).toBe(200);
      expect(((await api(b.url, 'GET', '/console/v1/gates/marker')).json['data'] as Json)['description']).toBe(marker);
      for (const replica of replicas) expect(replica.child.exitCode, `replica exited during ${what}:\n${replica.stderr()}`).toBeNull();
    };

    await until('writes acknowledged', 15_000, async () => acknowledged.length > 50);
    for (let i = 1; i <= 3; i++) await outage(`restart ${i}`, () => server!.restart());
    await outage('kill and start', () => server!.kill(), () => server!.start());

    writing = false;
    await Promise.all(writers);
    polling = false;
    await Promise.all(pollers);

    const unhandled = replicas.flatMap((replica) => replica.stderr().split('\n').filter((line) => line.includes('unhandled error')));
    expect(unexpected, `answers other than 200 and a retryable 503; logged:\n${unhandled.join('\n').slice(0, 4000)}`).toEqual([]);
    expect(unavailable, 'writes refused with 503 while the database was away').toBeGreaterThan(0);
    for (const replica of replicas) {
      expect(replica.child.exitCode, replica.stderr()).toBeNull();
      expect(replica.stderr()).not.toMatch(/Unhandled|uncaught/i);
      // A connection error is logged as its message and code, never the client object with its statements.
      for (const line of replica.stderr().split('\n')) expect(line.length, line.slice(0, 300)).toBeLessThan(2000);
    }
    expect(readiness.every((seen) => seen.at(-1) === 200)).toBe(true);

    // Every acknowledged write is in its gate's version history, with what it wrote.
    const history = new Map<string, Map<number, string>>();
    for (let g = 0; g < GATES; g++) {
      const gate = `load_${g}`;
      const versions = new Map<number, string>();
      for (let page = 1; ; page++) {
        const res = await api(b.url, 'GET', `/console/v1/gates/${gate}/versions?limit=1000&page=${page}`);
        expect(res.status).toBe(200);
        const items = res.json['data'] as Json[];
        for (const item of items) versions.set(Number(item['version']), String(item['description']));
        if (items.length < 1000) break;
      }
      history.set(gate, versions);
    }
    const lost = acknowledged.filter((write) => history.get(write.gate)?.get(write.version) !== write.description);
    expect(lost, `${lost.length} of ${acknowledged.length} acknowledged writes missing from the history`).toEqual([]);
    for (const replica of replicas) expect(await replica.stop()).toBe(0);
  }, 240_000);
});
