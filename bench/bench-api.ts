/**
 * Console API throughput against a bare Fastify route measured in the same run:
 *   (a) bare Fastify JSON route answering the same bytes as (b)  — the baseline
 *   (b) GET   /console/v1/gates/{id}  with SERVICE-API-KEY        — target ≥ 0.85 × (a)
 *   (c) PATCH /console/v1/gates/{id}  on a SQLite file (WAL)      — target ≥ 0.3 × (a) and ≥ 1,500 req/s, no write lost
 * (b) and (c) run on `flagops serve --durability normal` (the default) and again on a second console
 * with `--durability full` (an fsync per commit); the report gives the ratio full/normal of each.
 * With `--db postgres://USER@HOST:PORT/DB`, (b) and (c) also run on a console on PostgreSQL (a scratch
 * database created on that server and dropped afterwards), and a second replica on the same database
 * checks read-after-write across replicas: PATCH on one, GET on the other at once, N times — targets
 * PostgreSQL reads ≥ 0.8 × SQLite reads, PATCH ≥ 1,000 req/s, 0 writes lost, 0 stale reads.
 * Every server runs in its own child process (the compiled CLI for b and c), autocannon runs here,
 * so load generator and server don't share a core. Each PATCH sets a new description, so each 2xx
 * must be one new version: after the run, GET versions' totalItems is compared with the 2xx count.
 *
 *   npm run bench:api [-- --duration 5 --warmup 2 --connections 10 --no-build --db postgres://… --checks 500 --ratio-rounds 5 --holdouts 30]
 *
 * The ratios (b/a, c/a, PostgreSQL/SQLite) are medians of rounds that alternate between the two servers;
 * the PATCHes of the c/a rounds are held to the same no-write-lost check. Information: (c) once more
 * after --holdouts holdouts are created, since every gate answer's holdoutIDs reads all of them.
 *
 * (d) neighbour: on a console with --gates gates (20,000), 20 connections run the heaviest list query
 * (`GET /gates?limit=1000&tags=big`, a filter over the whole kind) while a probe measures
 * `GET /gates/{id}` one request at a time: target probe p99 ≤ 50 ms (information: the list's own
 * latency). `--only neighbour` runs this round alone.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Durability } from '../controller/store/sqlite/open-sqlite-store.js';
import { ChildProcesses, type Server } from './child-processes.js';
import { describeNeighbour, neighbourRound, seedGates } from './neighbour-round.js';
import { adminApi } from './console-bench-helpers.js';
import { createScratchDatabase } from './scratch-database.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'no-build': { type: 'boolean', default: false },
    db: { type: 'string' },
    checks: { type: 'string', default: '500' },
    'ratio-rounds': { type: 'string', default: '5' },
    holdouts: { type: 'string', default: '30' },
    gates: { type: 'string', default: '20000' },
    only: { type: 'string' },
  },
});
const PG_URL = values.db;
if (PG_URL !== undefined && !/^postgres(ql)?:\/\//.test(PG_URL)) throw new Error(`--db must be a postgres:// URL, not '${PG_URL}'`);
const CHECKS = Number(values.checks);
const RATIO_ROUNDS = Number(values['ratio-rounds']);
const HOLDOUTS = Number(values.holdouts);
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const ADMIN = 'console-bench-api-admin-key';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GATE = 'bench_gate';

const READ_RATIO_TARGET = 0.85;
const WRITE_RATIO_TARGET = 0.3;
const WRITE_RATE_TARGET = 1500;
const PG_READ_RATIO_TARGET = 0.8;
const PG_WRITE_RATE_TARGET = 1000;

const children = new ChildProcesses(ROOT);
const startChild = (args: string[], env: Record<string, string>, ready: RegExp): Promise<Server> => children.start(args, env, ready);
const stopAll = (): Promise<void> => children.stopAll();

const api = adminApi(ADMIN);

interface Measured {
  name: string;
  rps: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Server CPU time (user + system) per request, µs; undefined where /proc is not available. */
  cpuPerRequest: number | undefined;
}

/**
 * CPU seconds a child has used, from /proc (Linux). Throughput on a shared 2-core machine moves with
 * whatever else runs; CPU time per request shows what the server itself spends.
 */
function cpuSeconds(child: ChildProcess): number | undefined {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** A warm-up run (not counted, but its 2xx are returned for the write check), then the measured run. */
async function measure(name: string, server: ChildProcess, options: autocannon.Options): Promise<{ result: Measured; warm2xx: number }> {
  const warm = await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP });
  const cpuBefore = cpuSeconds(server);
  const run = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  const cpuAfter = cpuSeconds(server);
  const total = run['2xx'] + run.non2xx;
  const cpuPerRequest = cpuBefore === undefined || cpuAfter === undefined || total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1e6) / total;
  const result = { name, rps: run.requests.average, p99: run.latency.p99, ok: run['2xx'], non2xx: run.non2xx, errors: run.errors + run.timeouts, cpuPerRequest };
  process.stderr.write(`  ${name}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms, server CPU ${cpuPerRequest?.toFixed(0) ?? '?'} µs/request\n`);
  return { result, warm2xx: warm['2xx'] };
}

/**
 * A ratio of two servers' read rates, from rounds that alternate between them: a neighbour's burst on
 * this shared machine then lands on both sides of some round, not on one side of the only one.
 * Returns the median of the rounds' ratios b/a, and each round's.
 */
async function alternatingRatio(
  label: string,
  a: { server: ChildProcess; options: autocannon.Options },
  b: { server: ChildProcess; options: autocannon.Options },
): Promise<{ median: number; rounds: number[]; b2xx: number; bNon2xx: number }> {
  const rounds: number[] = [];
  let b2xx = 0;
  let bNon2xx = 0;
  for (let round = 1; round <= RATIO_ROUNDS; round++) {
    const first = await measure(`${label} round ${round}: a`, a.server, a.options);
    const second = await measure(`${label} round ${round}: b`, b.server, b.options);
    rounds.push(second.result.rps / first.result.rps);
    b2xx += second.warm2xx + second.result.ok;
    bNon2xx += second.result.non2xx;
  }
  const sorted = [...rounds].sort((x, y) => x - y);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, rounds, b2xx, bNon2xx };
}

/** PATCHes of the gate, each setting a new description: every 2xx must be one new version. */
let patchCounter = 0;
const patchGate = (base: string): autocannon.Options => ({
  url: base,
  requests: [
    {
      method: 'PATCH',
      path: `/console/v1/gates/${GATE}`,
      headers: { 'SERVICE-API-KEY': ADMIN, 'content-type': 'application/json' },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ description: `bench write ${++patchCounter}` }) }),
    },
  ],
});

const totalVersions = async (base: string): Promise<number> =>
  Number(((await api(base, 'GET', `/console/v1/gates/${GATE}/versions?limit=1`))['pagination'] as Record<string, unknown>)['totalItems']);

interface ConsoleRun {
  durability: string;
  read: Measured;
  write: Measured;
  writes2xx: number;
  newVersions: number;
  gateVersion: string;
  lost: number;
  unacknowledged: number;
  /** No acknowledged write lost, no more unacknowledged ones than could be in flight, no PATCH refused. */
  ok: boolean;
}

/**
 * GETs then PATCHes of the gate on one console. Each PATCH sets a new description, so each 2xx must
 * be one new version: afterwards, GET versions' totalItems is compared with the 2xx count.
 */
async function measureConsole(durability: string, server: Server): Promise<ConsoleRun> {
  const base = server.url;
  const suffix = durability === 'normal' ? '' : `, ${durability}`;
  const read = await measure(`(b) GET gate${suffix}`, server.child, { url: `${base}/console/v1/gates/${GATE}`, headers: { 'SERVICE-API-KEY': ADMIN } });
  const versionsBefore = await totalVersions(base);
  const write = await measure(`(c) PATCH gate${suffix}`, server.child, patchGate(base));
  const newVersions = (await totalVersions(base)) - versionsBefore;
  const gate = (await api(base, 'GET', `/console/v1/gates/${GATE}`))['data'] as Record<string, unknown>;
  const writes2xx = write.warm2xx + write.result.ok;
  // autocannon stops at the deadline with up to one request in flight per connection: the server may
  // still apply those, so a run can add up to CONNECTIONS versions it never saw acknowledged.
  const lost = Math.max(0, writes2xx - newVersions);
  const unacknowledged = newVersions - writes2xx;
  const ok = lost === 0 && unacknowledged <= 2 * CONNECTIONS && write.result.non2xx === 0;
  return { durability, read: read.result, write: write.result, writes2xx, newVersions, gateVersion: String(gate['version']), lost, unacknowledged, ok };
}

/** Ends the run early when --only names one round. */
class OnlyDone extends Error {}

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-api-'));
let exitCode = 0;
try {
  if (!values['no-build']) {
    process.stderr.write('building (npm run build; pass --no-build to skip)...\n');
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }

  const rule = (name: string, pass: number) => ({ name, passPercentage: pass, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] });
  const startConsole = async (durability: Durability): Promise<Server> => {
    const server = await startChild(
      [join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, `console-${durability}.db`), '--durability', durability],
      { FLAGOPS_BOOTSTRAP_KEY: ADMIN },
      /listening on (http:\/\/\S+)/,
    );
    await api(server.url, 'POST', '/console/v1/gates', { id: GATE, name: 'bench gate', description: 'benchmark', tags: ['bench'], rules: [rule('staff', 100), rule('beta', 20)] });
    return server;
  };

  // (d) neighbour, first: its console is one of its own.
  const neighbourServer = await startChild(
    [join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console-neighbour.db')],
    { FLAGOPS_BOOTSTRAP_KEY: ADMIN },
    /listening on (http:\/\/\S+)/,
  );
  const gates = Number(values.gates);
  process.stderr.write(`neighbour: creating ${gates} gates...\n`);
  await seedGates(neighbourServer.url, ADMIN, gates);
  const neighbour = await neighbourRound(neighbourServer.url, ADMIN, { gates, clients: 20, durationS: DURATION });
  const neighbourLine = describeNeighbour(neighbour);
  process.stderr.write(`  ${neighbourLine}\n`);
  if (!neighbour.ok) exitCode = 1;
  if (values.only === 'neighbour') {
    process.stdout.write(`${neighbourLine}\n`);
    throw new OnlyDone();
  }

  const normalServer = await startConsole('normal');
  const gateBody = await fetch(`${normalServer.url}/console/v1/gates/${GATE}`, { headers: { 'SERVICE-API-KEY': ADMIN } }).then((r) => r.text());
  const payloadFile = join(dir, 'payload.json');
  writeFileSync(payloadFile, gateBody);

  const bare = await startChild(['--import', 'tsx', join(ROOT, 'bench', 'bare-server.ts'), payloadFile], {}, /listening on (http:\/\/\S+)/);

  process.stderr.write(`measuring: ${WARMUP} s warm-up + ${DURATION} s each, ${CONNECTIONS} connections\n`);
  const a = await measure('(a) bare fastify GET', bare.child, { url: `${bare.url}/bare` });
  const normal = await measureConsole('normal', normalServer);
  const bareRatio = await alternatingRatio('GET gate / bare', { server: bare.child, options: { url: `${bare.url}/bare` } }, { server: normalServer.child, options: { url: `${normalServer.url}/console/v1/gates/${GATE}`, headers: { 'SERVICE-API-KEY': ADMIN } } });
  // The write ratio the same way as the read ratio: alternating rounds, their median. Every round's
  // PATCHes are held to the same no-write-lost check as (c).
  const versionsBeforeRounds = await totalVersions(normalServer.url);
  const patchRatio = await alternatingRatio('PATCH gate / bare', { server: bare.child, options: { url: `${bare.url}/bare` } }, { server: normalServer.child, options: patchGate(normalServer.url) });
  const roundVersions = (await totalVersions(normalServer.url)) - versionsBeforeRounds;
  const roundsLost = Math.max(0, patchRatio.b2xx - roundVersions);
  const roundsUnacknowledged = roundVersions - patchRatio.b2xx;
  const roundsOk = roundsLost === 0 && roundsUnacknowledged <= 2 * CONNECTIONS * RATIO_ROUNDS && patchRatio.bNon2xx === 0;
  for (let i = 0; i < HOLDOUTS; i++) {
    await api(normalServer.url, 'POST', '/console/v1/holdouts', { id: `bench_holdout_${i}`, name: `bench holdout ${i}`, description: 'a holdout of the benchmark', passPercentage: 5 });
  }
  const withHoldouts = (await measure(`(c) PATCH, ${HOLDOUTS} holdouts`, normalServer.child, patchGate(normalServer.url))).result;
  const fullServer = await startConsole('full');
  const full = await measureConsole('full', fullServer);

  let postgres: { run: ConsoleRun; stale: number; checks: number; readRatio: { median: number; rounds: number[] } } | undefined;
  if (PG_URL !== undefined) {
    const database = await createScratchDatabase(PG_URL);
    const url = database.url;
    try {
      const serveArgs = [join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', url.toString()];
      const replicaA = await startChild(serveArgs, { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
      const replicaB = await startChild(serveArgs, { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
      await api(replicaA.url, 'POST', '/console/v1/gates', { id: GATE, name: 'bench gate', description: 'benchmark', tags: ['bench'], rules: [rule('staff', 100), rule('beta', 20)] });
      const run = await measureConsole('postgres', replicaA);
      const getGate = (url: string): autocannon.Options => ({ url: `${url}/console/v1/gates/${GATE}`, headers: { 'SERVICE-API-KEY': ADMIN } });
      const readRatio = await alternatingRatio('PostgreSQL / SQLite GET', { server: normalServer.child, options: getGate(normalServer.url) }, { server: replicaA.child, options: getGate(replicaA.url) });
      // Read-after-write across replicas: every GET on one replica right after a PATCH acknowledged by
      // the other. A gate of its own: PATCHes autocannon left in flight may still land on the first.
      let stale = 0;
      const CHECK_GATE = 'bench_check_gate';
      await api(replicaA.url, 'POST', '/console/v1/gates', { id: CHECK_GATE, name: 'bench check gate' });
      for (let i = 0; i < CHECKS; i++) {
        const [writer, reader] = i % 2 === 0 ? [replicaA, replicaB] : [replicaB, replicaA];
        await api(writer.url, 'PATCH', `/console/v1/gates/${CHECK_GATE}`, { description: `check ${i}` });
        const seen = ((await api(reader.url, 'GET', `/console/v1/gates/${CHECK_GATE}`))['data'] as Record<string, unknown>)['description'];
        if (seen !== `check ${i}`) stale++;
      }
      process.stderr.write(`  cross-replica read-after-write: ${stale} stale of ${CHECKS}\n`);
      postgres = { run, stale, checks: CHECKS, readRatio };
    } finally {
      await stopAll();
      await database.drop();
    }
  }

  const readRatio = bareRatio.median;
  const writeRatio = patchRatio.median;
  const cpu = (m: Measured): string => (m.cpuPerRequest === undefined ? '-' : m.cpuPerRequest.toFixed(0));
  const row = (m: Measured): string =>
    `| ${m.name.padEnd(22)} | ${String(Math.round(m.rps)).padStart(7)} | ${m.p99.toFixed(0).padStart(6)} | ${cpu(m).padStart(13)} | ${String(m.ok).padStart(7)} | ${String(m.non2xx + m.errors).padStart(6)} |`;
  const cpuRatio = a.result.cpuPerRequest && normal.read.cpuPerRequest ? (a.result.cpuPerRequest / normal.read.cpuPerRequest).toFixed(2) : '-';
  const kept = (m: ConsoleRun): string =>
    `writes kept (${m.durability === 'postgres' ? 'PostgreSQL' : `--durability ${m.durability}`}): ${m.writes2xx} PATCH 2xx (warm-up + run) → ${m.newVersions} new versions (gate now at version ${m.gateVersion}); ` +
    `lost: ${m.lost}, applied but cut off by the deadline: ${m.unacknowledged} (at most ${2 * CONNECTIONS}) ${m.ok ? 'ok' : 'WRITES LOST'}`;
  const lines = [
    `bench:api — ${new Date().toISOString()} — node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`,
    `${WARMUP} s warm-up + ${DURATION} s per run, ${CONNECTIONS} connections; servers in child processes, autocannon in this one`,
    '',
    '| run                    |   req/s | p99 ms | server CPU µs |     2xx | errors |',
    '|------------------------|--------:|-------:|--------------:|--------:|-------:|',
    row(a.result),
    row(normal.read),
    row(normal.write),
    row(withHoldouts),
    row(full.read),
    row(full.write),
    '',
    `reads  b/a = ${readRatio.toFixed(2)}, median of ${bareRatio.rounds.length} alternating rounds (${bareRatio.rounds.map((r) => r.toFixed(2)).join(', ')}) (target ≥ ${READ_RATIO_TARGET}) ${readRatio >= READ_RATIO_TARGET ? 'ok' : 'BELOW TARGET'}; by server CPU per request a/b = ${cpuRatio}`,
    `writes c/a = ${writeRatio.toFixed(2)}, median of ${patchRatio.rounds.length} alternating rounds (${patchRatio.rounds.map((r) => r.toFixed(2)).join(', ')}) (target ≥ ${WRITE_RATIO_TARGET}) ${writeRatio >= WRITE_RATIO_TARGET ? 'ok' : 'BELOW TARGET'}; ` +
      `(c) ${Math.round(normal.write.rps)} req/s (target ≥ ${WRITE_RATE_TARGET}) ${normal.write.rps >= WRITE_RATE_TARGET ? 'ok' : 'BELOW TARGET'}`,
    `durability full/normal: reads ${(full.read.rps / normal.read.rps).toFixed(2)}, PATCHes ${(full.write.rps / normal.write.rps).toFixed(2)} ` +
      `(${Math.round(full.write.rps)} vs ${Math.round(normal.write.rps)} req/s; full fsyncs every commit)`,
    `PATCHes with ${HOLDOUTS} holdouts / without: ${(withHoldouts.rps / normal.write.rps).toFixed(2)} (information: every gate answer's holdoutIDs reads them)`,
    kept(normal),
    `writes kept (write ratio rounds): ${patchRatio.b2xx} PATCH 2xx → ${roundVersions} new versions; lost: ${roundsLost}, applied but cut off by the deadline: ${roundsUnacknowledged} (at most ${2 * CONNECTIONS * RATIO_ROUNDS}), refused: ${patchRatio.bNon2xx} ${roundsOk ? 'ok' : 'WRITES LOST'}`,
    kept(full),
  ];
  if (postgres) {
    const { run, stale, checks, readRatio } = postgres;
    const pgRead = readRatio.median;
    lines.splice(lines.indexOf(row(full.write)) + 1, 0, row(run.read), row(run.write));
    lines.push(
      `PostgreSQL reads / SQLite reads = ${pgRead.toFixed(2)}, median of ${readRatio.rounds.length} alternating rounds (${readRatio.rounds.map((r) => r.toFixed(2)).join(', ')}) (target ≥ ${PG_READ_RATIO_TARGET}) ${pgRead >= PG_READ_RATIO_TARGET ? 'ok' : 'BELOW TARGET'}`,
      `PostgreSQL PATCH ${Math.round(run.write.rps)} req/s (target ≥ ${PG_WRITE_RATE_TARGET}) ${run.write.rps >= PG_WRITE_RATE_TARGET ? 'ok' : 'BELOW TARGET'}`,
      kept(run),
      `cross-replica read-after-write: ${stale} stale of ${checks} (target 0) ${stale === 0 ? 'ok' : 'STALE READS'}`,
    );
    if (!run.ok || stale > 0 || pgRead < PG_READ_RATIO_TARGET || run.write.rps < PG_WRITE_RATE_TARGET) exitCode = 1;
  }
  lines.push(neighbourLine);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!normal.ok || !full.ok || !roundsOk || readRatio < READ_RATIO_TARGET || writeRatio < WRITE_RATIO_TARGET || normal.write.rps < WRITE_RATE_TARGET) exitCode = 1;
} catch (error) {
  // --only neighbour ends here: the round ran, its verdict is in exitCode.
  if (!(error instanceof OnlyDone)) {
    process.stderr.write(`bench:api failed: ${error instanceof Error ? error.message : String(error)}\n`);
    exitCode = 1;
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
