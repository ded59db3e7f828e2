/**
 * Reviews vs direct writes. Starts a console (`flagops serve` from source, SQLite file, its own
 * process) and a local webhook receiver, then applies the same N changes twice: as direct PATCHes,
 * and as reviews (submit → approve → commit → webhook → change_validation → commit). Prints both
 * rates, their ratio (target ≥ 0.25) and the p99 time from the first commit to committed.
 *
 *   npm run bench:reviews [-- --changes 500 --concurrency 16]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processCpuMs } from './child-processes.js';

const { values } = parseArgs({ options: { changes: { type: 'string', default: '500' }, concurrency: { type: 'string', default: '16' } } });
const CHANGES = Number(values.changes);
const CONCURRENCY = Number(values.concurrency);
const ADMIN = 'console-bench-admin-key';
const WEBHOOK_KEY = 'bench-webhook-key';
const MAIN = fileURLToPath(new URL('../controller/main.ts', import.meta.url));

type Json = Record<string, unknown> & { data?: Record<string, unknown> };

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function startConsole(db: string): Promise<{ pid: number | undefined; url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--port', '0', '--db', db, '--webhook-timeout', '120000'], {
    env: { ...process.env, FLAGOPS_BOOTSTRAP_KEY: ADMIN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`console exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  child.removeAllListeners('exit');
  return { pid: child.pid, url, stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) };
}

let base = '';
async function api(method: string, path: string, body?: unknown, key = ADMIN): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
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

// The customer's system: answers the webhook at once, then approves through change_validation.
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    response.writeHead(request.headers['x-service-webhook-key'] === WEBHOOK_KEY ? 200 : 401).end();
    const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { review_id: string };
    void api('POST', '/console/v1/change_validation', { reviewID: payload.review_id, validated: true, message: 'bench: approved' }, validatorKey).then(() => validated.get(payload.review_id)?.());
  });
});

try {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const started = await startConsole(join(dir, 'console.db'));
  consoleProcess = started;
  base = started.url;
  const key = async (email: string) => ((await api('POST', '/console/v1/keys', { description: 'bench', userEmail: email, role: 'member' })).data?.['key'] as string);
  const bob = await key('bob@bench.test');
  const carol = await key('carol@bench.test');
  validatorKey = await key('ci@bench.test');
  await api('POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiverUrl, webhookKey: WEBHOOK_KEY });
  await pool(CHANGES, CONCURRENCY, async (i) => {
    await api('POST', '/console/v1/gates', { id: `direct_${i}`, name: `direct ${i}` });
    await api('POST', '/console/v1/gates', { id: `review_${i}`, name: `review ${i}` });
  });
  // Warm-up: JIT, statement caches, connections.
  await pool(50, CONCURRENCY, async (i) => void (await api('PATCH', `/console/v1/gates/direct_${i}`, { description: 'warm' }, bob)));

  const cpu = () => ({ console: processCpuMs(started.pid), own: ownCpuMs() });
  const cpu0 = cpu();
  const directMs = await pool(CHANGES, CONCURRENCY, async (i) => void (await api('PATCH', `/console/v1/gates/direct_${i}`, change(i), bob)));
  const cpu1 = cpu();

  const commitToCommitted: number[] = [];
  const reviewMs = await pool(CHANGES, CONCURRENCY, async (i) => {
    const path = `/console/v1/gates/review_${i}/reviews`;
    const id = (await api('POST', path, { description: 'bench', change: change(i) }, bob)).data?.['reviewID'] as string;
    await api('PUT', `${path}/${id}/approve`, undefined, carol);
    const decided = new Promise<void>((resolve) => validated.set(id, resolve));
    const commitStart = performance.now();
    const first = await api('PUT', `${path}/${id}/commit`, undefined, bob);
    if (first.data?.['status'] !== 'pending_webhook_validation') throw new Error(`review ${id} is ${String(first.data?.['status'])}`);
    await decided;
    validated.delete(id);
    const done = await api('PUT', `${path}/${id}/commit`, undefined, bob);
    if (done.data?.['status'] !== 'committed') throw new Error(`review ${id} is ${String(done.data?.['status'])}`);
    commitToCommitted.push(performance.now() - commitStart);
  });

  const cpu2 = cpu();
  // Same end state both ways.
  for (const i of [0, CHANGES - 1]) {
    const direct = (await api('GET', `/console/v1/gates/direct_${i}`)).data?.['rules'] as { passPercentage: number }[];
    const reviewed = (await api('GET', `/console/v1/gates/review_${i}`)).data?.['rules'] as { passPercentage: number }[];
    if (direct[0]?.passPercentage !== reviewed[0]?.passPercentage) throw new Error(`gate ${i} differs between the runs`);
  }
  await started.stop();
  consoleProcess = undefined;

  const directRate = (CHANGES / directMs) * 1000;
  const reviewRate = (CHANGES / reviewMs) * 1000;
  const sorted = [...commitToCommitted].sort((a, b) => a - b);
  const ratio = reviewRate / directRate;
  console.log(`changes: ${CHANGES}, concurrency: ${CONCURRENCY}`);
  console.log(`direct PATCH:         ${directRate.toFixed(1)} changes/s (${directMs.toFixed(0)} ms)`);
  console.log(`review + webhook:     ${reviewRate.toFixed(1)} changes/s (${reviewMs.toFixed(0)} ms)`);
  console.log(`ratio review/direct:  ${ratio.toFixed(3)} (target >= 0.25: ${ratio >= 0.25 ? 'met' : 'NOT met'})`);
  if (cpu0.console !== undefined && cpu1.console !== undefined && cpu2.console !== undefined) {
    const perChange = (console0: number, console1: number, own0: number, own1: number) => ({ console: (console1 - console0) / CHANGES, client: (own1 - own0) / CHANGES });
    const d = perChange(cpu0.console, cpu1.console, cpu0.own, cpu1.own);
    const r = perChange(cpu1.console, cpu2.console, cpu1.own, cpu2.own);
    console.log(`CPU per change:       direct ${d.console.toFixed(2)} ms console + ${d.client.toFixed(2)} ms client; review ${r.console.toFixed(2)} ms console + ${r.client.toFixed(2)} ms client and receiver`);
    console.log(`CPU ratio direct/review: ${((d.console + d.client) / (r.console + r.client)).toFixed(3)} (console alone ${(d.console / r.console).toFixed(3)})`);
  }
  console.log(`commit → committed:   p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(1)} ms`);
} finally {
  await consoleProcess?.stop();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
