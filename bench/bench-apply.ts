/**
 * `flagops apply` end to end against the same changes as direct writes, measured in the same run:
 *   baseline  N gates created with POST /console/v1/gates (same concurrency as apply)
 *   apply     the same N gates from a git repository: one review each, approved by a second key,
 *             committed, pre-commit webhook to `flagops bridge` (git check at the branch head,
 *             policies), change_validation, commit again, then a re-plan.      target ratio ≥ 0.25
 * Both paths first run an unmeasured batch of N warm-up gates in the same processes (V8 settles after
 * thousands of calls). The console and the bridge run as child processes (the compiled CLI); apply
 * runs here. CPU per entity of each process is printed with the rates.
 *
 *   npm run bench:apply [-- --entities 1000 --concurrency 64 --no-build --profile DIR]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { simpleGit } from 'simple-git';
import { applyRepo } from '../controller/reconcile/apply-service.js';
import { ConsoleClient } from '../controller/reconcile/console-client.js';
import { FsRepoReader } from '../controller/source/fs-repo-reader.js';
import { loadRepo } from '../controller/source/load-repo.js';
import { ENTITY_SCHEMAS } from '../schemas/index.js';
import { ChildProcesses, processCpuMs } from './child-processes.js';

const { values } = parseArgs({
  options: {
    entities: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    'no-build': { type: 'boolean', default: false },
    /** Writes CPU profiles of the console and the bridge (apply phase) into this folder. */
    profile: { type: 'string' },
  },
});
const N = Number(values.entities);
const CONCURRENCY = Number(values.concurrency);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = 'console-bench-apply-admin';
const WEBHOOK_KEY = 'bench-apply-webhook-key';
const TARGET = 0.25;
const children = new ChildProcesses(ROOT);
const start = (args: string[], env: Record<string, string>, ready: RegExp, nodeArgs: string[] = []): Promise<{ url: string; pid: number | undefined }> =>
  children.start([...nodeArgs, join(ROOT, 'bin', 'flagops.js'), ...args], env, ready).then(({ url, child }) => ({ url, pid: child.pid }));
const ownCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const stopAll = (): Promise<void> => children.stopAll();

async function runAll<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const gateId = (prefix: string, i: number): string => `${prefix}_${String(i).padStart(5, '0')}`;

function gateFile(i: number, prefix = 'bench_gate'): string {
  const id = gateId(prefix, i);
  return `id: ${id}
name: ${id}
description: Benchmark gate ${i}
tags: [bench]
rules:
  - name: staff
    passPercentage: 100
    conditions: [{ type: email, operator: str_contains_any, targetValue: ["@example.com"] }]
  - name: ramp
    passPercentage: ${i % 50}
    conditions: [{ type: public }]
`;
}

const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-apply-'));
let exitCode = 0;
try {
  if (!values['no-build']) {
    process.stderr.write('building (pass --no-build to skip)...\n');
    if (spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  }
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'gates'), { recursive: true });
  writeFileSync(join(repo, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\nbridge: { maxPassPercentageStep: 100 }\n');
  // First commit: N warm-up gates, applied unmeasured (V8 needs thousands of calls to settle; the
  // direct path gets the same). Second commit: the N gates measured.
  for (let i = 0; i < N; i++) writeFileSync(join(repo, 'gates', `${gateId('warm_gate', i)}.yaml`), gateFile(i, 'warm_gate'));
  const git = simpleGit(repo);
  await git.init(['-b', 'main']).addConfig('user.email', 'bench@example.com').addConfig('user.name', 'bench');
  await git.add(['-A']);
  await git.commit('warm-up gates');
  const warmEntities = (await loadRepo(new FsRepoReader(repo))).entities;
  const gates = ENTITY_SCHEMAS.find((e) => e.folder === 'gates')!;

  // Baseline: the same gates as direct writes on a fresh console, after the warm-up gates.
  const baseConsole = await start(['serve', '--port', '0', '--db', join(dir, 'direct.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const direct = new ConsoleClient({ baseUrl: baseConsole.url, apiKey: ADMIN });
  await runAll(warmEntities, async (e) => void (await direct.createEntity(gates, e.data)));
  for (let i = 0; i < N; i++) writeFileSync(join(repo, 'gates', `${gateId('bench_gate', i)}.yaml`), gateFile(i));
  const entities = (await loadRepo(new FsRepoReader(repo))).entities.filter((e) => e.id.startsWith('bench_gate_'));
  const directCpu0 = { console: processCpuMs(baseConsole.pid), client: ownCpuMs() };
  const t0 = performance.now();
  await runAll(entities, async (e) => void (await direct.createEntity(gates, e.data)));
  const directMs = performance.now() - t0;
  const directCpu = { console: (processCpuMs(baseConsole.pid) ?? NaN) - (directCpu0.console ?? NaN), client: ownCpuMs() - directCpu0.client };
  const directCount = (await direct.request('GET', '/console/v1/gates', undefined, { query: { limit: '1' } })).pagination?.totalItems;
  if (directCount !== 2 * N) throw new Error(`direct writes: ${directCount} gates, expected ${2 * N}`);
  await stopAll();

  // End to end: reviews, approval, webhook, bridge git check, validation, commit.
  const profile = values.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values.profile];
  const applyConsole = await start(['serve', '--port', '0', '--db', join(dir, 'apply.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/, profile);
  const { url } = applyConsole;
  const admin = new ConsoleClient({ baseUrl: url, apiKey: ADMIN });
  const key = async (email: string): Promise<string> => String(((await admin.request('POST', '/console/v1/keys', { description: 'bench', userEmail: email, role: 'member' })).data as Record<string, unknown>)['key']);
  const [submitterKey, approverKey, bridgeKey] = [await key('flagops@bench'), await key('approver@bench'), await key('bridge@bench')];
  const bridge = await start(['bridge', '--repo', repo, '--port', '0', '--console', url], { FLAGOPS_API_KEY: bridgeKey, FLAGOPS_WEBHOOK_KEY: WEBHOOK_KEY }, /listening on (http:\/\/\S+)/, profile);
  await admin.request('POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridge.url}/webhook`, webhookKey: WEBHOOK_KEY });
  const applyOnce = (): ReturnType<typeof applyRepo> =>
    applyRepo({
      desired: new FsRepoReader(repo),
      client: new ConsoleClient({ baseUrl: url, apiKey: submitterKey }),
      approver: new ConsoleClient({ baseUrl: url, apiKey: approverKey }),
      concurrency: CONCURRENCY,
      pollIntervalMs: 20,
    });
  // Warm-up: the first commit's gates, with the bench gates not yet in the working tree.
  const benchFiles = entities.map((e) => e.file);
  const held = new Map(benchFiles.map((f) => [f, readFileSync(join(repo, f), 'utf8')]));
  for (const f of benchFiles) rmSync(join(repo, f));
  const warm = await applyOnce();
  if (!warm.ok) throw new Error('warm-up apply failed');
  for (const [f, text] of held) writeFileSync(join(repo, f), text);
  await git.add(['-A']);
  await git.commit('bench gates');
  // The bridge re-resolves the branch head at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const applyCpu0 = { console: processCpuMs(applyConsole.pid), bridge: processCpuMs(bridge.pid), client: ownCpuMs() };
  const t1 = performance.now();
  const report = await applyOnce();
  const applyMs = performance.now() - t1;
  const applyCpu = {
    console: (processCpuMs(applyConsole.pid) ?? NaN) - (applyCpu0.console ?? NaN),
    bridge: (processCpuMs(bridge.pid) ?? NaN) - (applyCpu0.bridge ?? NaN),
    client: ownCpuMs() - applyCpu0.client,
  };
  const committed = report.outcomes.filter((o) => o.status === 'committed').length;
  // Where a review's time goes: submit → validation started (commit) → delivered → decided → committed.
  const reviews = (await admin.listAll<Record<string, unknown>>('/console/v1/reviews?status=committed')).filter((r) => String(r['configName']).startsWith('bench_gate_'));
  const validated = reviews.filter((r) => (r['validation'] as { validated?: unknown } | null)?.validated === true).length;
  if (committed !== N || !report.ok || report.replan.changes.length !== 0 || validated !== N) {
    throw new Error(`apply: ${committed}/${N} committed, ${validated} committed reviews, re-plan ${report.replan.changes.length} changes`);
  }

  const spans = { approveAndCommit: [] as number[], deliver: [] as number[], decide: [] as number[], commitAfterDecision: [] as number[] };
  for (const r of reviews) {
    const v = r['validation'] as Record<string, number>;
    spans.approveAndCommit.push(v['startedTime']! - Number(r['createdTime']));
    spans.deliver.push(v['deliveredTime']! - v['startedTime']!);
    spans.decide.push(v['decidedTime']! - v['startedTime']!);
    spans.commitAfterDecision.push(Number(r['lastModifiedTime']) - v['decidedTime']!);
  }
  const p = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
  const spanLines = Object.entries(spans).map(([name, xs]) => `    ${name.padEnd(22)} p50 ${String(p(xs, 0.5)).padStart(5)} ms   p99 ${String(p(xs, 0.99)).padStart(5)} ms`);

  const directRate = (N / directMs) * 1000;
  const applyRate = (N / applyMs) * 1000;
  const ratio = applyRate / directRate;
  const lines = [
    `bench:apply — ${N} gate creates, concurrency ${CONCURRENCY}, console and bridge as child processes`,
    `  direct writes (POST /gates)             ${directRate.toFixed(0).padStart(7)} entities/s  (${(directMs / 1000).toFixed(2)} s)`,
    `  apply end to end (review, approve, webhook, bridge git check, validation, commit, re-plan)`,
    `                                          ${applyRate.toFixed(0).padStart(7)} entities/s  (${(applyMs / 1000).toFixed(2)} s)`,
    `  ratio apply / direct                    ${ratio.toFixed(3).padStart(7)}   target ≥ ${TARGET} ${ratio >= TARGET ? 'MET' : 'MISSED'}`,
    `  nothing lost: ${committed} committed, ${validated} reviews validated by the bridge, re-plan empty`,
    `  CPU per entity: direct ${(directCpu.console / N).toFixed(2)} ms console + ${(directCpu.client / N).toFixed(2)} ms client;` +
      ` apply ${(applyCpu.console / N).toFixed(2)} ms console + ${(applyCpu.bridge / N).toFixed(2)} ms bridge + ${(applyCpu.client / N).toFixed(2)} ms apply`,
    '  time per review (console timestamps):',
    ...spanLines,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  process.stderr.write(`bench:apply failed: ${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
