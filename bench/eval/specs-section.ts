import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcesses, Server } from '../child-processes.js';
import { median } from '../console-bench-helpers.js';
import type { BenchRow } from './bench-row.js';
import { cpuFigure, measureAutocannon } from './measure-autocannon.js';

type Api = (base: string, method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

export interface SpecsSectionOptions {
  root: string;
  dir: string;
  children: ChildProcesses;
  api: Api;
  adminKey: string;
  entities: number;
  rebuilds: number;
  rounds: number;
  run: { connections: number; duration: number; warmup: number };
}

const UNCHANGED_RATIO_TARGET = 0.9;
const REBUILD_MS_TARGET = 100;

/** Runs `task` over `items`, `parallel` at a time. */
async function inParallelOver<T>(items: readonly T[], parallel: number, task: (item: T) => Promise<unknown>): Promise<void> {
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
async function populate(api: Api, base: string, total: number): Promise<void> {
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
  await inParallelOver(index(segments), 8, (i) =>
    api(base, 'POST', '/console/v1/segments', i % 2 === 0 ? { id: `seg_${i}`, name: `seg ${i}`, type: 'id_list', ids: index(20).map((j) => `user_${i}_${j}`) } : { id: `seg_${i}`, name: `seg ${i}`, type: 'rule_based', rules: [rule('staff', 100, [email])] }),
  );
  await inParallelOver(index(gates), 8, (i) =>
    api(base, 'POST', '/console/v1/gates', {
      id: `gate_${i}`,
      name: `gate ${i}`,
      rules: [rule('staff', 100, [email]), rule('segment', 100, [{ type: 'passes_segment', targetValue: [`seg_${i % segments}`] }]), rule('country', 50, [{ type: 'country', operator: 'any', targetValue: ['DE', 'FR'] }]), rule('rollout', 20, [{ type: 'public' }])],
    }),
  );
  await inParallelOver(index(configs), 8, (i) =>
    api(base, 'POST', '/console/v1/dynamic_configs', { id: `config_${i}`, name: `config ${i}`, defaultValue: { limit: 10, label: `config ${i}` }, rules: [{ ...rule('staff', 100, [email]), returnValue: { limit: 100 } }] }),
  );
  await inParallelOver(index(layers), 8, (i) => api(base, 'POST', '/console/v1/layers', { id: `layer_${i}`, name: `layer ${i}`, parameters: [{ name: 'color', type: 'string', defaultValue: 'blue' }] }));
  await inParallelOver(index(experiments), 8, async (i) => {
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
  await inParallelOver(index(holdouts), 4, (i) => api(base, 'POST', '/console/v1/holdouts', { id: `holdout_${i}`, name: `holdout ${i}`, passPercentage: 2, gateIDs: [`gate_${i}`], layerIDs: [`layer_${i % layers}`] }));
}

/**
 * Config specs of `entities` entities on `flagops serve` (SQLite file), for a SERVER key:
 * (a) a bare Fastify route answering the same bytes as (b): the baseline;
 * (b) GET /v1/download_config_specs/{key}.json?sinceTime=<time> (has_updates false): ≥ 0.9 × (a);
 * (c) a write (PATCH of a gate), then the full download: the rebuild (load + compile, as the
 *     console's Server-Timing header reports it): ≤ 100 ms (median).
 * The ratio is the median of rounds, each on a new bare server and a new console (same database):
 * two processes of the same program differ by up to a tenth in CPU per request for as long as they
 * run, so rounds on new processes measure the programs rather than one draw of processes.
 */
export async function specsSection(o: SpecsSectionOptions): Promise<BenchRow[]> {
  const { root, dir, children, api } = o;
  const startConsole = (): Promise<Server> => children.start([join(root, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'specs.db')], { FLAGOPS_BOOTSTRAP_KEY: o.adminKey }, /listening on (http:\/\/\S+)/);
  const console_ = await startConsole();
  const base = console_.url;
  const started = Date.now();
  await populate(api, base, o.entities);
  process.stderr.write(`  populated in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  const key = String(((await api(base, 'POST', '/console/v1/keys', { description: 'bench', type: 'SERVER', environments: ['production'] }))['data'] as Record<string, unknown>)['key']);
  const specsPath = `/v1/download_config_specs/${key}.json`;
  const specsUrl = `${base}${specsPath}`;

  // (c) first: each round a write, then the full download the SDK would fetch next. The console says
  // what the rebuild took (Server-Timing: reading the entities, compiling them and their JSON); the
  // wall time of the download adds moving the specs over HTTP, shown for information.
  const rebuilds: number[] = [];
  const downloads: number[] = [];
  let bytes = 0;
  await fetch(specsUrl).then((r) => r.text());
  for (let i = 0; i < o.rebuilds; i++) {
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
    `  rebuild after a write: median ${median(rebuilds).toFixed(1)} ms, max ${Math.max(...rebuilds).toFixed(1)} ms; whole download median ${median(downloads).toFixed(1)} ms (${specs.feature_gates.length} gates, ${specs.dynamic_configs.length} configs, ${specs.layer_configs.length} layers; ${(bytes / 1e6).toFixed(1)} MB)\n`,
  );

  // (a) and (b): the answer to an SDK that is up to date.
  const unchangedPath = `${specsPath}?sinceTime=${specs.time}`;
  const unchangedBody = await fetch(`${base}${unchangedPath}`).then((r) => r.text());
  if ((JSON.parse(unchangedBody) as { has_updates?: unknown }).has_updates !== false) throw new Error(`expected has_updates false, got ${unchangedBody}`);
  const payloadFile = join(dir, 'specs-payload.json');
  writeFileSync(payloadFile, unchangedBody);
  await children.stop(console_);
  const rounds: number[] = [];
  const cpu: { bare: (number | undefined)[]; console: (number | undefined)[] } = { bare: [], console: [] };
  let failed = 0;
  for (let round = 1; round <= o.rounds; round++) {
    const bare = await children.start(['--import', 'tsx', join(root, 'bench', 'bare-server.ts'), payloadFile], {}, /listening on (http:\/\/\S+)/);
    const fresh = await startConsole();
    // The first download compiles the specs (Fastify's route); the lane answers the polls after it.
    const answer = await fetch(`${fresh.url}${unchangedPath}`).then((r) => r.text());
    if (answer !== unchangedBody) throw new Error(`round ${round}: the console restarted answers ${answer}, not ${unchangedBody}`);
    // The same query string on both sides: Fastify parses it for either route.
    const a = await measureAutocannon(`round ${round} bare route`, { url: `${bare.url}/bare?sinceTime=${specs.time}` }, o.run, false, bare.child.pid);
    const b = await measureAutocannon(`round ${round} download_config_specs, unchanged`, { url: `${fresh.url}${unchangedPath}` }, o.run, false, fresh.child.pid);
    failed += b.failed;
    rounds.push(b.rps / a.rps);
    cpu.bare.push(a.cpuPerRequestUs);
    cpu.console.push(b.cpuPerRequestUs);
    await Promise.all([children.stop(bare), children.stop(fresh)]);
  }
  const ratio = median(rounds);
  return [
    {
      section: 'specs',
      measure: `config specs of ${o.entities} entities (${(bytes / 1e6).toFixed(1)} MB), unchanged (has_updates false) / bare route`,
      figure: `${ratio.toFixed(2)} (rounds ${rounds.map((r) => r.toFixed(2)).join(', ')}${cpuFigure(cpu.bare, cpu.console, ['bare', 'console'])})${failed > 0 ? `, ${failed} failed` : ''}`,
      target: `≥ ${UNCHANGED_RATIO_TARGET}`,
      ok: ratio >= UNCHANGED_RATIO_TARGET && failed === 0,
    },
    {
      section: 'specs',
      measure: 'rebuilt after a write (Server-Timing: load + compile)',
      figure: `median ${median(rebuilds).toFixed(1)} ms, max ${Math.max(...rebuilds).toFixed(1)} ms; download with it ${median(downloads).toFixed(1)} ms`,
      target: `≤ ${REBUILD_MS_TARGET} ms`,
      ok: median(rebuilds) <= REBUILD_MS_TARGET,
    },
  ];
}
