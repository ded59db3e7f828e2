/**
 * Console API throughput against a bare Fastify route measured in the same run:
 *   (a) bare Fastify JSON route answering the same bytes as (b)  — the baseline
 *   (b) GET   /console/v1/gates/{id}  with SERVICE-API-KEY        — target ≥ 0.7 × (a)
 *   (c) PATCH /console/v1/gates/{id}  on a SQLite file (WAL)      — target ≥ 1,500 req/s, no write lost
 * Every server runs in its own child process (the compiled CLI for b and c), autocannon runs here,
 * so load generator and server don't share a core. Each PATCH sets a new description, so each 2xx
 * must be one new version: after the run, GET versions' totalItems is compared with the 2xx count.
 *
 *   npm run bench:api [-- --duration 5 --warmup 2 --connections 10 --no-build]
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ChildProcesses, type Server } from './child-processes.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'no-build': { type: 'boolean', default: false },
  },
});
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const ADMIN = 'console-bench-api-admin-key';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GATE = 'bench_gate';

const READ_RATIO_TARGET = 0.7;
const WRITE_RATE_TARGET = 1500;

const children = new ChildProcesses(ROOT);
const startChild = (args: string[], env: Record<string, string>, ready: RegExp): Promise<Server> => children.start(args, env, ready);
const stopAll = (): Promise<void> => children.stopAll();

async function api(base: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

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

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-api-'));
let exitCode = 0;
try {
  if (!values['no-build']) {
    process.stderr.write('building (npm run build; pass --no-build to skip)...\n');
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }

  const consoleServer = await startChild([join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const base = consoleServer.url;
  const rule = (name: string, pass: number) => ({ name, passPercentage: pass, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] });
  await api(base, 'POST', '/console/v1/gates', { id: GATE, name: 'bench gate', description: 'benchmark', tags: ['bench'], rules: [rule('staff', 100), rule('beta', 20)] });
  const gateBody = await fetch(`${base}/console/v1/gates/${GATE}`, { headers: { 'SERVICE-API-KEY': ADMIN } }).then((r) => r.text());
  const payloadFile = join(dir, 'payload.json');
  writeFileSync(payloadFile, gateBody);

  const bare = await startChild(['--import', 'tsx', join(ROOT, 'bench', 'bare-server.ts'), payloadFile], {}, /listening on (http:\/\/\S+)/);

  process.stderr.write(`measuring: ${WARMUP} s warm-up + ${DURATION} s each, ${CONNECTIONS} connections\n`);
  const a = await measure('(a) bare fastify GET', bare.child, { url: `${bare.url}/bare` });
  const b = await measure('(b) GET gate', consoleServer.child, { url: `${base}/console/v1/gates/${GATE}`, headers: { 'SERVICE-API-KEY': ADMIN } });

  const versionsBefore = Number((((await api(base, 'GET', `/console/v1/gates/${GATE}/versions?limit=1`))['pagination'] as Record<string, unknown>)['totalItems']));
  let counter = 0;
  const c = await measure('(c) PATCH gate', consoleServer.child, {
    url: base,
    requests: [
      {
        method: 'PATCH',
        path: `/console/v1/gates/${GATE}`,
        headers: { 'SERVICE-API-KEY': ADMIN, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ description: `bench write ${++counter}` }) }),
      },
    ],
  });
  const versionsAfter = Number((((await api(base, 'GET', `/console/v1/gates/${GATE}/versions?limit=1`))['pagination'] as Record<string, unknown>)['totalItems']));
  const gate = (await api(base, 'GET', `/console/v1/gates/${GATE}`))['data'] as Record<string, unknown>;
  const writes2xx = c.warm2xx + c.result.ok;
  const newVersions = versionsAfter - versionsBefore;

  const readRatio = b.result.rps / a.result.rps;
  const writeRatio = c.result.rps / a.result.rps;
  // autocannon stops at the deadline with up to one request in flight per connection: the server may
  // still apply those, so a run can add up to CONNECTIONS versions it never saw acknowledged.
  const lost = Math.max(0, writes2xx - newVersions);
  const unacknowledged = newVersions - writes2xx;
  const inFlightBound = 2 * CONNECTIONS;
  const cpu = (m: Measured): string => (m.cpuPerRequest === undefined ? '-' : m.cpuPerRequest.toFixed(0));
  const row = (m: Measured): string =>
    `| ${m.name.padEnd(22)} | ${String(Math.round(m.rps)).padStart(7)} | ${m.p99.toFixed(0).padStart(6)} | ${cpu(m).padStart(13)} | ${String(m.ok).padStart(7)} | ${String(m.non2xx + m.errors).padStart(6)} |`;
  const cpuRatio = a.result.cpuPerRequest && b.result.cpuPerRequest ? (a.result.cpuPerRequest / b.result.cpuPerRequest).toFixed(2) : '-';
  const lines = [
    `bench:api — ${new Date().toISOString()} — node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`,
    `${WARMUP} s warm-up + ${DURATION} s per run, ${CONNECTIONS} connections; servers in child processes, autocannon in this one`,
    '',
    '| run                    |   req/s | p99 ms | server CPU µs |     2xx | errors |',
    '|------------------------|--------:|-------:|--------------:|--------:|-------:|',
    row(a.result),
    row(b.result),
    row(c.result),
    '',
    `reads  b/a = ${readRatio.toFixed(2)}  (target ≥ ${READ_RATIO_TARGET}) ${readRatio >= READ_RATIO_TARGET ? 'ok' : 'BELOW TARGET'}; by server CPU per request a/b = ${cpuRatio}`,
    `writes c/a = ${writeRatio.toFixed(2)}; ${Math.round(c.result.rps)} req/s (target ≥ ${WRITE_RATE_TARGET}) ${c.result.rps >= WRITE_RATE_TARGET ? 'ok' : 'BELOW TARGET'}`,
    `writes kept: ${writes2xx} PATCH 2xx (warm-up + run) → ${newVersions} new versions (gate now at version ${String(gate['version'])}); ` +
      `lost: ${lost}, applied but cut off by the deadline: ${unacknowledged} (at most ${inFlightBound}) ${lost === 0 && unacknowledged <= inFlightBound ? 'ok' : 'WRITES LOST'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (lost !== 0 || unacknowledged > inFlightBound || c.result.non2xx > 0) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench:api failed: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
