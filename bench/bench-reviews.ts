/**
 * Reviews vs direct writes. Starts a console (`flagops serve` from source, SQLite file, its own
 * process) and a local webhook receiver, then applies the same N changes twice: as direct PATCHes,
 * and as reviews (submit → approve → commit → webhook → change_validation → commit). Both paths are
 * first run unmeasured, four batches of N changes each (V8 needs thousands of calls to settle: after
 * one batch a PATCH still cost the console twice its steady-state CPU, and a review 1.7 times; both
 * stop falling after about 2,000), then measured in alternating rounds, since 500 PATCHes take about
 * a tenth of a second.
 * A third path runs in the same rounds: the protocol floor (bench/floor-server.ts, its own process),
 * the same five requests and webhook answered with only the key check and a trivial body. The
 * headline is the console's CPU per reviewed change over the floor's (median of the rounds, target
 * ≤ 1.25×; exit 1 when missed); the rates and the ratio to direct PATCHes are printed as information,
 * with the p99 time from the first commit to committed. Then, since a round of 500 PATCHes (≈ 80 ms) is shorter than the
 * console's once-a-second WAL checkpoint and its GC cycles, whether a round catches one decides its
 * rate (4,000 or 6,700/s): it also measures each path in windows of at least --steady-ms, the same
 * changes applied in passes, so both carry their share of the periodic work.
 *
 *   npm run bench:reviews [-- --changes 500 --concurrency 16 --rounds 9 --warmups 4 --steady-ms 1000 --profile DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sharedHttpClient } from '../controller/net/http-client.js';
import { processCpuMs } from './child-processes.js';

const { values } = parseArgs({
  options: {
    changes: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '16' },
    // 500 PATCHes take a tenth of a second at steady state: one round's ratio moved between 0.10 and
    // 0.26 within a run of five; the median of nine moves much less.
    rounds: { type: 'string', default: '9' },
    warmups: { type: 'string', default: '4' },
    /** Each path's window in the steady-state pass; 0 skips it. */
    'steady-ms': { type: 'string', default: '1000' },
    /** Writes a CPU profile of the console into this folder. */
    profile: { type: 'string' },
  },
});
const CHANGES = Number(values.changes);
const ROUNDS = Number(values.rounds);
const WARMUPS = Number(values.warmups);
const CONCURRENCY = Number(values.concurrency);
const STEADY_MS = Number(values['steady-ms']);
const ADMIN = 'console-bench-admin-key';
const WEBHOOK_KEY = 'bench-webhook-key';
const MAIN = fileURLToPath(new URL('../controller/main.ts', import.meta.url));
const FLOOR = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
const FLOOR_TARGET = 1.25;

type Json = Record<string, unknown> & { data?: Record<string, unknown> };

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

type Started = { pid: number | undefined; url: string; stop: () => Promise<void> };

/** Resolves once the child prints the URL it listens on; fails if it exits first. */
async function listening(child: ChildProcess, what: string): Promise<Started> {
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  child.removeAllListeners('exit');
  return { pid: child.pid, url, stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) };
}

async function startConsole(db: string): Promise<Started> {
  const profile = values.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values.profile];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', MAIN, 'serve', '--port', '0', '--db', db, '--webhook-timeout', '120000'], {
    env: { ...process.env, FLAGOPS_BOOTSTRAP_KEY: ADMIN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return listening(child, 'console');
}

/** The protocol floor (bench/floor-server.ts) in its own process, as the console runs in its own. */
async function startFloor(webhookUrl: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', FLOOR, webhookUrl, WEBHOOK_KEY, FLOOR_BOB, FLOOR_CAROL, FLOOR_VALIDATOR], { stdio: ['ignore', 'pipe', 'inherit'] });
  return listening(child, 'floor server');
}

let base = '';
async function api(method: string, path: string, body?: unknown, key = ADMIN, to = base): Promise<Json> {
  // The product's own kept-alive client, for both paths: with fetch the load generator spent more CPU
  // per request than the console serving it, so both runs measured mostly the client.
  const res = await sharedHttpClient.send({
    method,
    url: new URL(`${to}${path}`),
    headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = JSON.parse(res.text) as Json;
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.text}`);
  return json;
}

/** Runs task(i) for i < n with at most `limit` in flight; resolves with the wall time in ms. */
async function pool(n: number, limit: number, task: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return performance.now() - started;
}

const change = (i: number) => ({ rules: [{ name: 'rollout', passPercentage: (i % 99) + 1, conditions: [{ type: 'public' }] }] });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-reviews-'));
const validated = new Map<string, () => void>();
let validatorKey = '';
let consoleProcess: Awaited<ReturnType<typeof startConsole>> | undefined;
let floorProcess: Awaited<ReturnType<typeof startFloor>> | undefined;
let floorBase = '';
const [FLOOR_BOB, FLOOR_CAROL, FLOOR_VALIDATOR] = ['floor-bob-key', 'floor-carol-key', 'floor-validator-key'];

// The customer's system: answers the webhook at once, then approves through change_validation.
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    response.writeHead(request.headers['x-service-webhook-key'] === WEBHOOK_KEY ? 200 : 401).end();
    const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { review_id: string };
    const floor = request.url === '/floor';
    void api('POST', '/console/v1/change_validation', { reviewID: payload.review_id, validated: true, message: 'bench: approved' }, floor ? FLOOR_VALIDATOR : validatorKey, floor ? floorBase : base).then(() => validated.get(payload.review_id)?.());
  });
});

try {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  floorProcess = await startFloor(`${receiverUrl.replace(/\/hook$/, '')}/floor`);
  floorBase = floorProcess.url;
  const started = await startConsole(join(dir, 'console.db'));
  consoleProcess = started;
  base = started.url;
  const key = async (email: string, role = 'member') => ((await api('POST', '/console/v1/keys', { description: 'bench', userEmail: email, role })).data?.['key'] as string);
  const bob = await key('bob@bench.test');
  const carol = await key('carol@bench.test');
  validatorKey = await key('ci@bench.test', 'webhook_receiver');
  await api('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiverUrl, webhookKey: WEBHOOK_KEY });
  const gate = (prefix: string, round: number, i: number): string => `${prefix}_${round}_${i}`;
  await pool(CHANGES, CONCURRENCY, async (i) => {
    for (let round = 0; round < ROUNDS; round++) {
      await api('POST', '/console/v1/gates', { id: gate('direct', round, i), name: `direct ${round} ${i}` });
      await api('POST', '/console/v1/gates', { id: gate('review', round, i), name: `review ${round} ${i}` });
    }
    for (let w = 0; w < WARMUPS; w++) {
      await api('POST', '/console/v1/gates', { id: gate('warm_direct', w, i), name: `warm direct ${w} ${i}` });
      await api('POST', '/console/v1/gates', { id: gate('warm_review', w, i), name: `warm review ${w} ${i}` });
    }
  });

  const directChange = (id: string, i: number) => api('PATCH', `/console/v1/gates/${id}`, change(i), bob);
  /** One change through the whole review flow; the time from the first commit to committed. */
  async function reviewChange(id: string, i: number): Promise<number> {
    const path = `/console/v1/gates/${id}/reviews`;
    const reviewID = (await api('POST', path, { description: 'bench', change: change(i) }, bob)).data?.['reviewID'] as string;
    await api('PUT', `${path}/${reviewID}/approve`, undefined, carol);
    const decided = new Promise<void>((resolve) => validated.set(reviewID, resolve));
    const commitStart = performance.now();
    const first = await api('PUT', `${path}/${reviewID}/commit`, undefined, bob);
    if (first.data?.['status'] !== 'pending_webhook_validation') throw new Error(`review ${reviewID} is ${String(first.data?.['status'])}`);
    await decided;
    validated.delete(reviewID);
    const done = await api('PUT', `${path}/${reviewID}/commit`, undefined, bob);
    if (done.data?.['status'] !== 'committed') throw new Error(`review ${reviewID} is ${String(done.data?.['status'])}`);
    return performance.now() - commitStart;
  }

  /** The same five requests and webhook against the floor server. */
  async function floorChange(id: string, i: number): Promise<void> {
    const path = `/console/v1/gates/${id}/reviews`;
    const reviewID = (await api('POST', path, { description: 'bench', change: change(i) }, FLOOR_BOB, floorBase)).data?.['reviewID'] as string;
    await api('PUT', `${path}/${reviewID}/approve`, undefined, FLOOR_CAROL, floorBase);
    const decided = new Promise<void>((resolve) => validated.set(reviewID, resolve));
    await api('PUT', `${path}/${reviewID}/commit`, undefined, FLOOR_BOB, floorBase);
    await decided;
    validated.delete(reviewID);
    const done = await api('PUT', `${path}/${reviewID}/commit`, undefined, FLOOR_BOB, floorBase);
    if (done.data?.['status'] !== 'committed') throw new Error(`floor review ${reviewID} is ${String(done.data?.['status'])}`);
  }

  // Warm-up of every path (not measured): JIT, statement caches, connections.
  for (let w = 0; w < WARMUPS; w++) {
    await pool(CHANGES, CONCURRENCY, async (i) => void (await directChange(gate('warm_direct', w, i), i)));
    await pool(CHANGES, CONCURRENCY, async (i) => void (await reviewChange(gate('warm_review', w, i), i)));
    await pool(CHANGES, CONCURRENCY, async (i) => void (await floorChange(gate('floor', w, i), i)));
  }

  const cpu = () => ({ console: processCpuMs(started.pid) ?? NaN, own: ownCpuMs() });
  const rounds: { direct: number; review: number; floor: number; floorCpu: number; cpu: { direct: { console: number; client: number }; review: { console: number; client: number } } }[] = [];
  const commitToCommitted: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu0 = cpu();
    const directMs = await pool(CHANGES, CONCURRENCY, async (i) => void (await directChange(gate('direct', round, i), i)));
    const cpu1 = cpu();
    const reviewMs = await pool(CHANGES, CONCURRENCY, async (i) => void commitToCommitted.push(await reviewChange(gate('review', round, i), i)));
    const cpu2 = cpu();
    const floor0 = processCpuMs(floorProcess.pid) ?? NaN;
    const floorMs = await pool(CHANGES, CONCURRENCY, async (i) => void (await floorChange(gate('floor', round, i), i + 1)));
    const floorCpu = ((processCpuMs(floorProcess.pid) ?? NaN) - floor0) / CHANGES;
    const per = (a: { console: number; own: number }, b: { console: number; own: number }) => ({ console: (b.console - a.console) / CHANGES, client: (b.own - a.own) / CHANGES });
    rounds.push({ direct: (CHANGES / directMs) * 1000, review: (CHANGES / reviewMs) * 1000, floor: (CHANGES / floorMs) * 1000, floorCpu, cpu: { direct: per(cpu0, cpu1), review: per(cpu1, cpu2) } });
  }

  // Steady state: each path for at least STEADY_MS, in passes over the warm-up gates (pass p sets
  // what change(i + p) says, so every change changes something).
  const steady = async (apply: (i: number, pass: number) => Promise<unknown>): Promise<{ rate: number; console: number }> => {
    const cpu0 = processCpuMs(started.pid) ?? NaN;
    const t0 = performance.now();
    let passes = 0;
    while (performance.now() - t0 < STEADY_MS) {
      passes++;
      await pool(CHANGES, CONCURRENCY, async (i) => void (await apply(i, passes)));
    }
    const ms = performance.now() - t0;
    return { rate: ((passes * CHANGES) / ms) * 1000, console: ((processCpuMs(started.pid) ?? NaN) - cpu0) / (passes * CHANGES) };
  };
  const steadyDirect = STEADY_MS > 0 ? await steady((i, pass) => directChange(gate('warm_direct', 0, i), i + pass)) : undefined;
  const steadyReview = STEADY_MS > 0 ? await steady((i, pass) => reviewChange(gate('warm_review', 0, i), i + pass)) : undefined;

  // Same end state both ways.
  for (const round of [0, ROUNDS - 1]) {
    for (const i of [0, CHANGES - 1]) {
      const direct = (await api('GET', `/console/v1/gates/${gate('direct', round, i)}`)).data?.['rules'] as { passPercentage: number }[];
      const reviewed = (await api('GET', `/console/v1/gates/${gate('review', round, i)}`)).data?.['rules'] as { passPercentage: number }[];
      if (direct[0]?.passPercentage !== reviewed[0]?.passPercentage) throw new Error(`gate ${round}/${i} differs between the runs`);
    }
  }
  await started.stop();
  consoleProcess = undefined;

  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const sorted = [...commitToCommitted].sort((a, b) => a - b);
  console.log(`changes: ${CHANGES} per round, concurrency: ${CONCURRENCY}, rounds: ${ROUNDS} (after ${WARMUPS} unmeasured rounds of each)`);
  rounds.forEach((r, k) => {
    console.log(
      `round ${k + 1}: direct PATCH ${r.direct.toFixed(1)} changes/s, review + webhook ${r.review.toFixed(1)} changes/s, ratio ${(r.review / r.direct).toFixed(3)};` +
        ` CPU per change: direct ${r.cpu.direct.console.toFixed(2)} ms console + ${r.cpu.direct.client.toFixed(2)} ms client, review ${r.cpu.review.console.toFixed(2)} ms console + ${r.cpu.review.client.toFixed(2)} ms client and receiver`,
    );
  });
  const ratio = median(rounds.map((r) => r.review / r.direct));
  console.log(`direct PATCH:         ${median(rounds.map((r) => r.direct)).toFixed(1)} changes/s (median)`);
  console.log(`review + webhook:     ${median(rounds.map((r) => r.review)).toFixed(1)} changes/s (median)`);
  console.log(`protocol floor:       ${median(rounds.map((r) => r.floor)).toFixed(1)} changes/s (median), ${median(rounds.map((r) => r.floorCpu)).toFixed(3)} ms server CPU per change`);
  console.log(`ratio review/direct:  ${ratio.toFixed(3)} median of ${ROUNDS} rounds (information: a review is five requests and a webhook against one)`);
  const cpuRatio = median(rounds.map((r) => r.cpu.direct.console / r.cpu.review.console));
  console.log(`console CPU ratio direct/review: ${cpuRatio.toFixed(3)} (median)`);
  if (steadyDirect && steadyReview) {
    console.log(
      `steady state (windows of >= ${STEADY_MS} ms): direct PATCH ${steadyDirect.rate.toFixed(1)} changes/s (${steadyDirect.console.toFixed(3)} ms console CPU each),` +
        ` review + webhook ${steadyReview.rate.toFixed(1)} changes/s (${steadyReview.console.toFixed(3)} ms), ratio ${(steadyReview.rate / steadyDirect.rate).toFixed(3)}`,
    );
  }
  console.log(`commit → committed:   p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(1)} ms`);
  // Headline: the console's CPU per reviewed change over the floor's, both measured in every round.
  const floorRatio = median(rounds.map((r) => r.cpu.review.console / r.floorCpu));
  console.log(
    `review / protocol floor, server CPU per change: ${floorRatio.toFixed(2)}× (median of ${ROUNDS} rounds: ${median(rounds.map((r) => r.cpu.review.console)).toFixed(3)} ms console vs ${median(rounds.map((r) => r.floorCpu)).toFixed(3)} ms floor)` +
      ` target ≤ ${FLOOR_TARGET}× ${floorRatio <= FLOOR_TARGET ? 'MET' : 'MISSED'}`,
  );
  if (!(floorRatio <= FLOOR_TARGET)) process.exitCode = 1;
} finally {
  await consoleProcess?.stop();
  await floorProcess?.stop();
  receiver.close();
  sharedHttpClient.close();
  rmSync(dir, { recursive: true, force: true });
}
