/**
 * Evaluation serving, ratios measured in one run (exits 1 on a miss):
 *   Config specs of --entities entities (gates, dynamic configs, segments, layers with running
 *   experiments, holdouts) on `flagops serve` (SQLite file), for a SERVER key:
 *   (a) a bare Fastify route answering the same bytes as (b)                       — the baseline
 *   (b) GET /v1/download_config_specs/{key}.json?sinceTime=<time> (has_updates false) — target ≥ 0.9 × (a)
 *   (c) a write (PATCH of a gate), then the full download: the rebuild (load + compile, as the
 *       console's Server-Timing header reports it)                                     — target ≤ 100 ms (median)
 * The console and the bare route run in child processes (the compiled CLI: built first unless
 * --no-build), autocannon here, so load generator and servers don't share a core. The ratio is the
 * median of rounds alternating between (a) and (b).
 *
 *   npm run bench:eval [-- --entities 10000 --duration 3 --warmup 1 --connections 10 --ratio-rounds 5 --rebuilds 10 --no-build]
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
    entities: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    'ratio-rounds': { type: 'string', default: '5' },
    rebuilds: { type: 'string', default: '10' },
    'no-build': { type: 'boolean', default: false },
  },
});
const ENTITIES = Number(values.entities);
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const RATIO_ROUNDS = Number(values['ratio-rounds']);
const REBUILDS = Number(values.rebuilds);
const ADMIN = 'console-bench-eval-admin-key';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const UNCHANGED_RATIO_TARGET = 0.9;
const REBUILD_MS_TARGET = 100;

const children = new ChildProcesses(ROOT);

const api = adminApi(ADMIN);

/** Runs `task` over `items`, `parallel` at a time. */
async function inParallel<T>(items: readonly T[], parallel: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

/**
 * The entity mix of a large flag repository: per 100 entities 60 gates, 25 dynamic configs, 10
 * segments, 4 experiments (5 to a layer, running) with their layers, and holdouts for the rest.
 */
async function populate(base: string, total: number): Promise<void> {
  const layers = Math.max(1, Math.round(total * 0.008));
  const experiments = layers * 5;
  const holdouts = Math.max(1, Math.round(total * 0.002));
  const segments = Math.round(total * 0.1);
  const configs = Math.round(total * 0.25);
  const gates = Math.max(1, total - layers - experiments - holdouts - segments - configs);
  const rule = (name: string, pass: number, conditions: unknown[]) => ({ name, passPercentage: pass, conditions });
  const email = { type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] };
  const index = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  process.stderr.write(`creating ${gates} gates, ${configs} dynamic configs, ${segments} segments, ${layers} layers, ${experiments} experiments, ${holdouts} holdouts...\n`);
  await inParallel(index(segments), 8, (i) =>
    api(base, 'POST', '/console/v1/segments', i % 2 === 0 ? { id: `seg_${i}`, name: `seg ${i}`, type: 'id_list', ids: index(20).map((j) => `user_${i}_${j}`) } : { id: `seg_${i}`, name: `seg ${i}`, type: 'rule_based', rules: [rule('staff', 100, [email])] }),
  );
  await inParallel(index(gates), 8, (i) =>
    api(base, 'POST', '/console/v1/gates', {
      id: `gate_${i}`,
      name: `gate ${i}`,
      rules: [rule('staff', 100, [email]), rule('segment', 100, [{ type: 'passes_segment', targetValue: [`seg_${i % segments}`] }]), rule('country', 50, [{ type: 'country', operator: 'any', targetValue: ['DE', 'FR'] }]), rule('rollout', 20, [{ type: 'public' }])],
    }),
  );
  await inParallel(index(configs), 8, (i) =>
    api(base, 'POST', '/console/v1/dynamic_configs', { id: `config_${i}`, name: `config ${i}`, defaultValue: { limit: 10, label: `config ${i}` }, rules: [{ ...rule('staff', 100, [email]), returnValue: { limit: 100 } }] }),
  );
  await inParallel(index(layers), 8, (i) => api(base, 'POST', '/console/v1/layers', { id: `layer_${i}`, name: `layer ${i}`, parameters: [{ name: 'color', type: 'string', defaultValue: 'blue' }] }));
  await inParallel(index(experiments), 8, async (i) => {
    const id = `exp_${i}`;
    await api(base, 'POST', '/console/v1/experiments', {
      id,
      name: `exp ${i}`,
      layerID: `layer_${Math.floor(i / 5)}`,
      allocation: 20,
      groups: [
        { name: 'Control', size: 50, parameterValues: { color: 'blue' } },
        { name: 'Test', size: 50, parameterValues: { color: 'green' } },
      ],
    });
    await api(base, 'PUT', `/console/v1/experiments/${id}/start`);
  });
  await inParallel(index(holdouts), 4, (i) => api(base, 'POST', '/console/v1/holdouts', { id: `holdout_${i}`, name: `holdout ${i}`, passPercentage: 2, gateIDs: [`gate_${i}`], layerIDs: [`layer_${i % layers}`] }));
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
}

async function measure(name: string, options: autocannon.Options): Promise<Measured> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP });
  const run = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  const result = { rps: run.requests.average, p99: run.latency.p99, non2xx: run.non2xx + run.errors + run.timeouts };
  process.stderr.write(`  ${name}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms${result.non2xx > 0 ? `, ${result.non2xx} failed` : ''}\n`);
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-eval-'));
let exitCode = 0;
try {
  buildCli(ROOT, values['no-build'] === true);
  const console_ = await children.start([join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const base = console_.url;
  const started = Date.now();
  await populate(base, ENTITIES);
  process.stderr.write(`  populated in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  const key = String(((await api(base, 'POST', '/console/v1/keys', { description: 'bench', type: 'SERVER', environments: ['production'] }))['data'] as Record<string, unknown>)['key']);
  const specsUrl = `${base}/v1/download_config_specs/${key}.json`;

  // (c) first: each round a write, then the full download the SDK would fetch next. The console says
  // what the rebuild took (Server-Timing: reading the entities, compiling them and their JSON); the
  // wall time of the download adds moving the specs over HTTP, shown for information.
  const rebuilds: number[] = [];
  const downloads: number[] = [];
  let bytes = 0;
  await fetch(specsUrl).then((r) => r.text());
  for (let i = 0; i < REBUILDS; i++) {
    await api(base, 'PATCH', `/console/v1/gates/gate_${i}`, { description: `bench write ${i}` });
    const t0 = performance.now();
    const res = await fetch(specsUrl);
    const body = await res.text();
    downloads.push(performance.now() - t0);
    const timing = res.headers.get('server-timing') ?? '';
    const durations = [...timing.matchAll(/dur=([\d.]+)/g)].map((m) => Number(m[1]));
    if (durations.length !== 2) throw new Error(`expected Server-Timing load and compile, got '${timing}'`);
    rebuilds.push(durations.reduce((a, b) => a + b, 0));
    bytes = body.length;
  }
  const specs = JSON.parse(await fetch(specsUrl).then((r) => r.text())) as { time: number; feature_gates: unknown[]; dynamic_configs: unknown[]; layer_configs: unknown[] };
  process.stderr.write(
    `  (c) rebuild after a write: median ${median(rebuilds).toFixed(1)} ms, max ${Math.max(...rebuilds).toFixed(1)} ms; whole download median ${median(downloads).toFixed(1)} ms (${specs.feature_gates.length} gates, ${specs.dynamic_configs.length} configs, ${specs.layer_configs.length} layers; ${(bytes / 1e6).toFixed(1)} MB)\n`,
  );

  // (a) and (b): the answer to an SDK that is up to date.
  const unchangedUrl = `${specsUrl}?sinceTime=${specs.time}`;
  const unchangedBody = await fetch(unchangedUrl).then((r) => r.text());
  if (JSON.parse(unchangedBody).has_updates !== false) throw new Error(`expected has_updates false, got ${unchangedBody}`);
  const payloadFile = join(dir, 'payload.json');
  writeFileSync(payloadFile, unchangedBody);
  const bare = await children.start(['--import', 'tsx', join(ROOT, 'bench', 'bare-server.ts'), payloadFile], {}, /listening on (http:\/\/\S+)/);
  const rounds: number[] = [];
  let failed = 0;
  for (let round = 1; round <= RATIO_ROUNDS; round++) {
    // The same query string on both sides: Fastify parses it for either route.
    const a = await measure(`round ${round} (a) bare route`, { url: `${bare.url}/bare?sinceTime=${specs.time}` });
    const b = await measure(`round ${round} (b) download_config_specs, unchanged`, { url: unchangedUrl });
    failed += b.non2xx;
    rounds.push(b.rps / a.rps);
  }
  const ratio = median(rounds);
  const ratioOk = ratio >= UNCHANGED_RATIO_TARGET && failed === 0;
  const rebuildOk = median(rebuilds) <= REBUILD_MS_TARGET;
  const line = (name: string, figure: string, target: string, ok: boolean): string => `| ${name} | ${figure} | ${target} | ${ok ? 'met' : '**missed**'} |`;
  process.stdout.write(
    [
      `\nconfig specs of ${ENTITIES} entities (${(bytes / 1e6).toFixed(1)} MB):`,
      '| measure | figure | target | |',
      '|---|---|---|---|',
      line('unchanged specs (has_updates false) / bare route', `${ratio.toFixed(2)} (rounds ${rounds.map((r) => r.toFixed(2)).join(', ')})${failed > 0 ? `, ${failed} failed` : ''}`, `≥ ${UNCHANGED_RATIO_TARGET}`, ratioOk),
      line('rebuilt after a write (Server-Timing)', `median ${median(rebuilds).toFixed(1)} ms, max ${Math.max(...rebuilds).toFixed(1)} ms; download with it ${median(downloads).toFixed(1)} ms`, `≤ ${REBUILD_MS_TARGET} ms`, rebuildOk),
      '',
    ].join('\n'),
  );
  if (!ratioOk || !rebuildOk) exitCode = 1;
} catch (error) {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await children.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

