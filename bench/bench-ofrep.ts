/**
 * bench:ofrep — OpenFeature (OFREP) evaluation on `flagops serve` (SQLite file), ratios in one run
 * (exits 1 on a miss), against bare Fastify POST routes answering the same bytes:
 *   (a) single evaluation POST /ofrep/v1/evaluate/flags/{key} / bare route      — target ≥ 0.8
 *   (b) bulk evaluation of --flags flags for one user: p99 latency              — target ≤ 10 ms
 *   (c) bulk with If-None-Match (304) / bare route answering 304                 — target ≥ 0.9
 * The console and the bare routes run in child processes (the compiled CLI: built first unless
 * --no-build), autocannon here; ratios are medians of rounds alternating between the two.
 *
 *   npm run bench:ofrep [-- --flags 1000 --duration 3 --warmup 1 --connections 10 --rounds 3 --no-build]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ChildProcesses } from './child-processes.js';
import { adminApi, buildCli, median } from './console-bench-helpers.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    'no-build': { type: 'boolean', default: false },
  },
});
const FLAGS = Number(values.flags);
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const ADMIN = 'console-bench-ofrep-admin-key';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const children = new ChildProcesses(ROOT);

const api = adminApi(ADMIN);

async function inParallel(count: number, parallel: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await task(next++);
  }));
}

/** `notModified`: the route answers 304, which autocannon counts as non-2xx. */
async function measure(name: string, options: autocannon.Options, notModified = false): Promise<{ rps: number; p99: number; failed: number }> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP });
  const run = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  const failed = run.errors + run.timeouts + (notModified ? 0 : run.non2xx);
  process.stderr.write(`  ${name}: ${Math.round(run.requests.average)} req/s, p99 ${run.latency.p99} ms${failed > 0 ? `, ${failed} failed` : ''}\n`);
  return { rps: run.requests.average, p99: run.latency.p99, failed };
}

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-ofrep-'));
let exitCode = 0;
try {
  buildCli(ROOT, values['no-build'] === true);
  const console_ = await children.start([join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const base = console_.url;
  process.stderr.write(`creating ${FLAGS} flags (gates with a segment, e-mail, country and percentage rules; every tenth a dynamic config)...\n`);
  await api(base, 'POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'rule_based', rules: [{ name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] });
  await inParallel(FLAGS, 8, (i) =>
    i % 10 === 9
      ? api(base, 'POST', '/console/v1/dynamic_configs', { id: `config_${i}`, name: `config ${i}`, defaultValue: { limit: 10 }, rules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }], returnValue: { limit: 100 } }] })
      : api(base, 'POST', '/console/v1/gates', {
          id: `gate_${i}`,
          name: `gate ${i}`,
          rules: [
            { name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }] },
            { name: 'email', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@partner.example'] }] },
            { name: 'country', passPercentage: 50, conditions: [{ type: 'country', operator: 'any', targetValue: ['DE', 'FR'] }] },
            { name: 'rollout', passPercentage: 20, conditions: [{ type: 'public' }] },
          ],
        }),
  );
  const key = String(((await api(base, 'POST', '/console/v1/keys', { description: 'bench', type: 'SERVER' }))['data'] as Record<string, unknown>)['key']);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const body = JSON.stringify({ context: { targetingKey: 'user-42', email: 'bob@other.example', country: 'DE', plan: 'gold' } });
  const singleUrl = `${base}/ofrep/v1/evaluate/flags/gate_1`;
  const bulkUrl = `${base}/ofrep/v1/evaluate/flags`;
  const single = await fetch(singleUrl, { method: 'POST', headers, body });
  const singleBody = await single.text();
  if (single.status !== 200) throw new Error(`single evaluation answered ${single.status}: ${singleBody}`);
  const bulk = await fetch(bulkUrl, { method: 'POST', headers, body });
  const bulkBody = await bulk.text();
  const etag = bulk.headers.get('etag') ?? '';
  const flagCount = (JSON.parse(bulkBody) as { flags: unknown[] }).flags.length;
  if (bulk.status !== 200 || flagCount < FLAGS) throw new Error(`bulk answered ${bulk.status} with ${flagCount} flags`);
  const notModified = await fetch(bulkUrl, { method: 'POST', headers: { ...headers, 'if-none-match': etag }, body });
  if (notModified.status !== 304) throw new Error(`If-None-Match answered ${notModified.status}`);

  const singleFile = join(dir, 'single.json');
  writeFileSync(singleFile, singleBody);
  const bareSingle = await children.start(['--import', 'tsx', join(ROOT, 'bench', 'bare-post-server.ts'), singleFile], {}, /listening on (http:\/\/\S+)/);
  const bare304 = await children.start(['--import', 'tsx', join(ROOT, 'bench', 'bare-post-server.ts'), singleFile, '304'], {}, /listening on (http:\/\/\S+)/);

  const singleRatios: number[] = [];
  const notModifiedRatios: number[] = [];
  let failed = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const a = await measure(`round ${round} bare route`, { url: `${bareSingle.url}/bare`, method: 'POST', headers, body });
    const b = await measure(`round ${round} OFREP single`, { url: singleUrl, method: 'POST', headers, body });
    singleRatios.push(b.rps / a.rps);
    const c = await measure(`round ${round} bare 304`, { url: `${bare304.url}/bare`, method: 'POST', headers, body }, true);
    const d = await measure(`round ${round} OFREP bulk 304`, { url: bulkUrl, method: 'POST', headers: { ...headers, 'if-none-match': etag }, body }, true);
    notModifiedRatios.push(d.rps / c.rps);
    failed += b.failed + d.failed;
  }
  // Bulk latency for one user at a time, each request a new context (nothing kept answers it).
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const res = await fetch(bulkUrl, { method: 'POST', headers, body: JSON.stringify({ context: { targetingKey: `user-${i}`, email: 'bob@other.example', country: i % 2 ? 'DE' : 'US' } }) });
    await res.text();
    latencies.push(performance.now() - t0);
  }
  latencies.sort((x, y) => x - y);
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
  const singleRatio = median(singleRatios);
  const nmRatio = median(notModifiedRatios);
  const line = (name: string, figure: string, target: string, ok: boolean): string => `| ${name} | ${figure} | ${target} | ${ok ? 'met' : '**missed**'} |`;
  const okSingle = singleRatio >= 0.8 && failed === 0;
  const okBulk = p99 <= 10;
  const okNm = nmRatio >= 0.9;
  process.stdout.write(
    [
      `\nOFREP on ${flagCount} flags:`,
      '| measure | figure | target | |',
      '|---|---|---|---|',
      line('single evaluation / bare route', `${singleRatio.toFixed(2)} (rounds ${singleRatios.map((r) => r.toFixed(2)).join(', ')})`, '≥ 0.8', okSingle),
      line(`bulk, ${flagCount} flags for one user (new context each)`, `p99 ${p99.toFixed(1)} ms, median ${median(latencies).toFixed(1)} ms`, 'p99 ≤ 10 ms', okBulk),
      line('bulk 304 (If-None-Match) / bare 304', `${nmRatio.toFixed(2)} (rounds ${notModifiedRatios.map((r) => r.toFixed(2)).join(', ')})`, '≥ 0.9', okNm),
      '',
    ].join('\n'),
  );
  if (!okSingle || !okBulk || !okNm) exitCode = 1;
} catch (error) {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await children.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
