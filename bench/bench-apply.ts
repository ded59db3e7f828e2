/**
 * `flagops apply` end to end against the same changes as direct writes, measured in the same run:
 *   baseline  N gates created with POST /console/v1/gates (same concurrency as apply)
 *   apply     the same N gates from a git repository: one review each, approved by a second key,
 *             committed (the console holds the commit through the pre-commit webhook to
 *             `flagops bridge`: git check at the branch head, policies, change_validation), then a
 *             re-plan.                                                          target ratio ≥ 0.25
 * Both paths first run unmeasured warm-up batches of N gates in the same processes, until their cost per
 * entity stops falling: V8 needs thousands of calls to settle. The direct create costs the console
 * 0.55 ms for its first two thousand calls, 0.28 ms for the third and 0.21 ms from the fourth on, so a
 * single warm-up batch measured a half-warm baseline (docs/benchmarks.md, "Fifth round"); apply (about
 * four console requests per entity) settles after two applies, a third changes nothing. The console and the bridge run as
 * child processes (the compiled CLI); apply runs here. Each round starts every process afresh; the
 * result is the median of the rounds' ratios (on a shared machine one round's ratio moves by ±20 %).
 * CPU per entity of each process is printed with the rates.
 *
 *   npm run bench:apply [-- --entities 1000 --concurrency 64 --rounds 3 --direct-warmups 3 --apply-warmups 2 --no-build --profile DIR]
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
    rounds: { type: 'string', default: '3' },
    'direct-warmups': { type: 'string', default: '3' },
    'apply-warmups': { type: 'string', default: '2' },
    'no-build': { type: 'boolean', default: false },
    /** Writes CPU profiles of the console and the bridge (apply phase) into this folder. */
    profile: { type: 'string' },
  },
});
const N = Number(values.entities);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const DIRECT_WARMUPS = Number(values['direct-warmups']);
const APPLY_WARMUPS = Number(values['apply-warmups']);
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

function gateFiles(repo: string, prefix: string): void {
  for (let i = 0; i < N; i++) writeFileSync(join(repo, 'gates', `${gateId(prefix, i)}.yaml`), gateFile(i, prefix));
}

interface Round {
  directRate: number;
  applyRate: number;
  ratio: number;
  directCpu: { console: number; client: number };
  applyCpu: { console: number; bridge: number; client: number };
  spans: Record<string, number[]>;
}

const gates = ENTITY_SCHEMAS.find((e) => e.folder === 'gates')!;

/** One round on fresh processes and a fresh repository: warm-ups, the baseline, then apply. */
async function round(dir: string, profile: boolean): Promise<Round> {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'gates'), { recursive: true });
  writeFileSync(join(repo, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\nbridge: { maxPassPercentageStep: 100 }\n');
  // The first commits: N warm-up gates each, applied unmeasured (V8 needs thousands of calls to
  // settle; the direct path gets the same). Then the N gates measured.
  const git = simpleGit(repo);
  await git.init(['-b', 'main']).addConfig('user.email', 'bench@example.com').addConfig('user.name', 'bench');
  const warmCommits: Map<string, string>[] = [];
  for (let w = 0; w < APPLY_WARMUPS; w++) {
    const before = new Set((await loadRepo(new FsRepoReader(repo))).entities.map((e) => e.file));
    gateFiles(repo, `warm${w}_gate`);
    const added = (await loadRepo(new FsRepoReader(repo))).entities.filter((e) => !before.has(e.file));
    warmCommits.push(new Map(added.map((e) => [e.file, readFileSync(join(repo, e.file), 'utf8')])));
  }
  gateFiles(repo, 'bench_gate');
  const entities = (await loadRepo(new FsRepoReader(repo))).entities.filter((e) => e.id.startsWith('bench_gate_'));
  const benchFiles = entities.map((e) => e.file);
  const held = new Map(benchFiles.map((f) => [f, readFileSync(join(repo, f), 'utf8')]));
  for (const f of [...benchFiles, ...warmCommits.flatMap((c) => [...c.keys()])]) rmSync(join(repo, f));

  // Baseline: the same gates as direct writes, after the warm-up gates, on its own console.
  const baseConsole = await start(['serve', '--port', '0', '--db', join(dir, 'direct.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const direct = new ConsoleClient({ baseUrl: baseConsole.url, apiKey: ADMIN });
  for (let w = 0; w < DIRECT_WARMUPS; w++) await runAll(entities, async (e) => void (await direct.createEntity(gates, { ...e.data, id: `warm${w}_${e.id}`, name: `warm${w}_${e.id}` })));
  const cpu0 = { console: processCpuMs(baseConsole.pid) ?? NaN, client: ownCpuMs() };
  const t0 = performance.now();
  await runAll(entities, async (e) => void (await direct.createEntity(gates, e.data)));
  const directMs = performance.now() - t0;
  const directCpu = { console: (processCpuMs(baseConsole.pid) ?? NaN) - cpu0.console, client: ownCpuMs() - cpu0.client };
  const directCount = (await direct.request('GET', '/console/v1/gates', undefined, { query: { limit: '1' } })).pagination?.totalItems;
  if (directCount !== (DIRECT_WARMUPS + 1) * N) throw new Error(`direct writes: ${directCount} gates, expected ${(DIRECT_WARMUPS + 1) * N}`);
  await stopAll();

  // End to end: reviews, approval, webhook, bridge git check, validation, commit.
  const profileArgs = profile && values.profile !== undefined ? ['--cpu-prof', '--cpu-prof-dir', values.profile] : [];
  const applyConsole = await start(['serve', '--port', '0', '--db', join(dir, 'apply.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/, profileArgs);
  const { url } = applyConsole;
  const admin = new ConsoleClient({ baseUrl: url, apiKey: ADMIN });
  const key = async (email: string, role = 'member'): Promise<string> => String(((await admin.request('POST', '/console/v1/keys', { description: 'bench', userEmail: email, role })).data as Record<string, unknown>)['key']);
  const [submitterKey, approverKey, bridgeKey] = [await key('flagops@bench'), await key('approver@bench'), await key('bridge@bench', 'webhook_receiver')];
  const bridge = await start(['bridge', '--repo', repo, '--port', '0', '--console', url], { FLAGOPS_API_KEY: bridgeKey, FLAGOPS_WEBHOOK_KEY: WEBHOOK_KEY }, /listening on (http:\/\/\S+)/, profileArgs);
  await admin.request('POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridge.url}/webhook`, webhookKey: WEBHOOK_KEY });
  const applyOnce = (): ReturnType<typeof applyRepo> =>
    applyRepo({
      desired: new FsRepoReader(repo),
      client: new ConsoleClient({ baseUrl: url, apiKey: submitterKey }),
      approver: new ConsoleClient({ baseUrl: url, apiKey: approverKey }),
      concurrency: CONCURRENCY,
      pollIntervalMs: 20,
    });
  /** Commits the files; the bridge resolves the branch head for each decision, so apply may follow at once. */
  const commitFiles = async (files: Map<string, string>, message: string): Promise<void> => {
    for (const [f, text] of files) writeFileSync(join(repo, f), text);
    await git.add(['-A']);
    await git.commit(message);
  };
  // Warm-up: the warm-up commits' gates, one apply each, with the bench gates not yet in the tree.
  for (const [w, files] of warmCommits.entries()) {
    await commitFiles(files, `warm-up gates ${w + 1}`);
    if (!(await applyOnce()).ok) throw new Error('warm-up apply failed');
  }
  await commitFiles(held, 'bench gates');
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
  await stopAll();

  const spans = { approveAndCommit: [] as number[], deliver: [] as number[], decide: [] as number[], commitAfterDecision: [] as number[] };
  for (const r of reviews) {
    const v = r['validation'] as Record<string, number>;
    spans.approveAndCommit.push(v['startedTime']! - Number(r['createdTime']));
    spans.deliver.push(v['deliveredTime']! - v['startedTime']!);
    spans.decide.push(v['decidedTime']! - v['startedTime']!);
    spans.commitAfterDecision.push(Number(r['lastModifiedTime']) - v['decidedTime']!);
  }
  const directRate = (N / directMs) * 1000;
  const applyRate = (N / applyMs) * 1000;
  return {
    directRate,
    applyRate,
    ratio: applyRate / directRate,
    directCpu,
    applyCpu,
    spans,
  };
}

let exitCode = 0;
const dirs: string[] = [];
try {
  if (!values['no-build']) {
    process.stderr.write('building (pass --no-build to skip)...\n');
    if (spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  }
  const rounds: Round[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-apply-'));
    dirs.push(dir);
    // Only the first round is profiled (one profile per process is enough to read).
    rounds.push(await round(dir, k === 0));
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const p = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
  const all = (name: string): number[] => rounds.flatMap((r) => r.spans[name] ?? []);
  const spanLines = Object.keys(rounds[0]?.spans ?? {}).map((name) => `    ${name.padEnd(22)} p50 ${String(p(all(name), 0.5)).padStart(5)} ms   p99 ${String(p(all(name), 0.99)).padStart(5)} ms`);
  const ratio = median(rounds.map((r) => r.ratio));
  const lines = [
    `bench:apply — ${N} gate creates, concurrency ${CONCURRENCY}, ${ROUNDS} rounds (each after ${DIRECT_WARMUPS} warm-up batches of direct creates and ${APPLY_WARMUPS} warm-up applies), console and bridge as child processes`,
    ...rounds.map(
      (r, k) =>
        `  round ${k + 1}: direct ${r.directRate.toFixed(0).padStart(5)} entities/s, apply ${r.applyRate.toFixed(0).padStart(4)} entities/s, ratio ${r.ratio.toFixed(3)};` +
        ` CPU per entity: direct ${(r.directCpu.console / N).toFixed(2)} ms console + ${(r.directCpu.client / N).toFixed(2)} ms client,` +
        ` apply ${(r.applyCpu.console / N).toFixed(2)} ms console + ${(r.applyCpu.bridge / N).toFixed(2)} ms bridge + ${(r.applyCpu.client / N).toFixed(2)} ms apply`,
    ),
    `  direct writes (POST /gates)             ${median(rounds.map((r) => r.directRate)).toFixed(0).padStart(7)} entities/s  (median)`,
    `  apply end to end (review, approve, webhook, bridge git check, validation, commit, re-plan)`,
    `                                          ${median(rounds.map((r) => r.applyRate)).toFixed(0).padStart(7)} entities/s  (median)`,
    `  ratio apply / direct                    ${ratio.toFixed(3).padStart(7)}   median of ${ROUNDS} rounds, target ≥ ${TARGET} ${ratio >= TARGET ? 'MET' : 'MISSED'}`,
    `  nothing lost: every round ${N} committed, ${N} reviews validated by the bridge, re-plan empty`,
    '  time per review (console timestamps, all rounds):',
    ...spanLines,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // Like bench:reviews and bench:plan: a missed target is a failed run for scripts.
  if (ratio < TARGET) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench:apply failed: ${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await stopAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
