/**
 * bench:plan — validate + plan of generated config repositories (1,000, 10,000 and 20,000 entities)
 * against a console holding the same entities, 10% of them changed.
 *
 * Per size: this process generates the repository; a console child seeds an in-process console
 * through its entity service (one transaction, no HTTP) and serves it on 127.0.0.1:0; a planner child
 * measures, in turns on the same files, a bare load (read every file, js-yaml `load` it) and the real
 * thing (`flagops plan`: read, parse — a line reader of block YAML for clean files, js-yaml for other
 * clean ones, `yaml` with positions for the rest and wherever an issue is placed —, validate every
 * schema, rule and reference, read the console over HTTP, normalise, diff), after `--warmups`
 * unmeasured runs of each, and after each measured plan the same plan once more just after a write
 * has moved the console's data mark (its read caches dropped: information); a child of its own times
 * the bare `yaml.parse` load (information). The memory target is measured in a process that runs one plan and
 * nothing else, as `flagops plan` does (the timing child's peak RSS, with its baselines and repeated
 * runs, is printed beside it); the console lives in its own process, as it does in production.
 *
 * Usage: npm run bench:plan [-- --sizes 1000,10000,20000 --runs 3 --warmups 1] [--cpu-prof DIR]
 * `--cpu-prof DIR` writes the planner child's V8 CPU profile (bare loads and plans alike) to DIR.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load as loadJsYaml } from 'js-yaml';
import { parse as parseYaml } from 'yaml';
import { ENTITY_SCHEMAS } from '../schemas/index.js';
import { generateRepo } from './generate-repo.js';
import { createConsole } from '../controller/compose.js';
import { SYSTEM_ACTOR, type Actor } from '../controller/console/permissions.js';
import { ConsoleClient } from '../controller/reconcile/console-client.js';
import { planAgainstConsole } from '../controller/reconcile/plan-service.js';
import { FsRepoReader } from '../controller/source/fs-repo-reader.js';
import { loadRepo, readRepoConfig } from '../controller/source/load-repo.js';

const KEY = 'console-bench-plan-key';
const SELF = fileURLToPath(import.meta.url);
const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};

// ---------------------------------------------------------------- console child

/** Seeds a console with the repository's entities, every tenth changed, and serves it until killed. */
async function runConsole(dir: string): Promise<void> {
  const repo = await loadRepo(new FsRepoReader(dir));
  const errors = repo.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`generated repository is invalid: ${JSON.stringify(errors.slice(0, 3))}`);
  const instance = createConsole({ db: ':memory:', bootstrapKey: KEY, logger: false });
  // Written as the bench key's user: the plan then sees flagops' own changes (updates), not drift.
  const actor: Actor = { ...SYSTEM_ACTOR, userEmail: 'admin@localhost' };
  let changed = 0;
  await instance.app.ready();
  await instance.store.transaction(async (tx) => {
    let n = 0;
    for (const entry of ENTITY_SCHEMAS) {
      const service = instance.services.get(entry.kind);
      if (!service) throw new Error(`no service for ${entry.kind}`);
      for (const entity of repo.entities.filter((e) => e.folder === entry.folder)) {
        // Every tenth entity differs in the console: the plan must find exactly these.
        const body = n++ % 10 === 0 ? { ...entity.data, description: `changed in the console ${n}` } : entity.data;
        if (body !== entity.data) changed++;
        await service.write(await service.prepare({ type: 'create', body }, actor, tx), actor, tx);
      }
    }
  });
  const url = await instance.app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ url, changed })}\n`);
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await instance.close();
}

// ---------------------------------------------------------------- planner child

/** The baselines: `yaml` (a plan's parser of files with issues: positions, messages) and js-yaml. */
const BARE_PARSERS = {
  yaml: (text: string): unknown => parseYaml(text),
  jsYaml: (text: string): unknown => loadJsYaml(text, { schema: CORE_SCHEMA }),
} as const;

async function bareParse(dir: string, parse: (text: string) => unknown): Promise<number> {
  const paths: string[] = [];
  for (const entry of ENTITY_SCHEMAS) {
    for (const name of await readdir(join(dir, entry.folder)).catch(() => [])) paths.push(join(dir, entry.folder, name));
  }
  // Read the way the loader reads (synchronously), so the ratio compares the work, not the I/O style.
  let parsed = 0;
  for (const path of paths) if (parse(readFileSync(path, 'utf8')) !== null) parsed++;
  return parsed;
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * The plan and the bare js-yaml load (the headline's two sides), a run of each in turn, in one process.
 * The bare `yaml.parse` baseline, for information, runs in a process of its own: its garbage (a
 * heap of ≈ 300 MB at 10,000 files) would otherwise be collected inside the timings that follow it.
 */
async function runPlanner(dir: string, url: string, runs: number, warmups: number): Promise<void> {
  const bareFast: number[] = [];
  const plans: number[] = [];
  const coldPlans: number[] = [];
  const planCpu: number[] = [];
  const bareFastCpu: number[] = [];
  let summary: Record<string, number> = {};
  // Warm-up runs (both sides, unmeasured) first: module loading and the compiler's first passes are
  // a fresh process's cost, not the plan's, and the console child answers its first lists cold.
  for (let run = -warmups; run < runs; run++) {
    let t = performance.now();
    let cpu = process.cpuUsage();
    const parsed = await bareParse(dir, BARE_PARSERS.jsYaml);
    bareFast.push(performance.now() - t);
    bareFastCpu.push(cpuMs(cpu));
    t = performance.now();
    cpu = process.cpuUsage();
    const reader = new FsRepoReader(dir);
    const config = await readRepoConfig(reader);
    const client = new ConsoleClient({ baseUrl: url, apiKey: KEY });
    const { plan } = await planAgainstConsole({ desired: reader, client, desiredLabel: config.console.url });
    const planMs = performance.now() - t;
    const planCpuMs = cpuMs(cpu);
    summary = { ...plan.summary, parsed };
    if (run < 0) {
      bareFast.pop();
      bareFastCpu.pop();
      continue;
    }
    plans.push(planMs);
    planCpu.push(planCpuMs);
    // Information: the same plan just after a write has moved the console's data mark (a gate created
    // and deleted again: no entity the plan compares changes), so the console builds every list page
    // again, as the first plan after an apply finds it.
    await client.request('POST', '/console/v1/gates', { id: 'bench_cold_probe', name: 'bench cold probe' });
    await client.request('DELETE', '/console/v1/gates/bench_cold_probe');
    t = performance.now();
    const cold = await planAgainstConsole({ desired: reader, client, desiredLabel: config.console.url });
    coldPlans.push(performance.now() - t);
    if (cold.plan.summary.update !== plan.summary.update) throw new Error('the plan against a cold console differs');
  }
  const result = { bareFastMs: median(bareFast), planMs: median(plans), coldPlanMs: median(coldPlans), bareFastCpuMs: median(bareFastCpu), planCpuMs: median(planCpu), maxRssMB: process.resourceUsage().maxRSS / 1024, summary };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** The bare `yaml.parse` load of the same files, `runs` times (information: the parser of files with issues). */
async function runBareYaml(dir: string, runs: number): Promise<void> {
  const bare: number[] = [];
  const bareCpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    await bareParse(dir, BARE_PARSERS.yaml);
    bare.push(performance.now() - t);
    bareCpu.push(cpuMs(cpu));
  }
  process.stdout.write(`${JSON.stringify({ bareMs: median(bare), bareCpuMs: median(bareCpu) })}\n`);
}

/** One plan, as `flagops plan` runs it, for its peak RSS. */
async function runPlanOnce(dir: string, url: string): Promise<void> {
  const reader = new FsRepoReader(dir);
  const config = await readRepoConfig(reader);
  const client = new ConsoleClient({ baseUrl: url, apiKey: KEY });
  await planAgainstConsole({ desired: reader, client, desiredLabel: config.console.url });
  process.stdout.write(`${JSON.stringify({ planRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

// ---------------------------------------------------------------- parent

function child(args: string[], nodeFlags: string[] = []): { line: Promise<string>; kill: () => void; done: Promise<void> } {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const line = new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    proc.once('exit', (code) => reject(new Error(`bench child ${args[1]} exited with ${code}`)));
  });
  const done = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { line, kill: () => proc.kill('SIGTERM'), done };
}

interface Row {
  size: number;
  planMs: number;
  /** The plan just after a write moved the console's data mark (information). */
  coldPlanMs: number;
  bareMs: number;
  bareFastMs: number;
  planCpuMs: number;
  bareCpuMs: number;
  bareFastCpuMs: number;
  maxRssMB: number;
  /** Peak RSS of a process that runs one plan and nothing else. */
  planRssMB: number;
  updates: number;
  expected: number;
}

async function main(): Promise<void> {
  const sizes = arg('sizes', '1000,10000,20000').split(',').map(Number);
  const runs = Number(arg('runs', '3'));
  const warmups = Number(arg('warmups', '1'));
  const profileDir = arg('cpu-prof', '');
  const plannerFlags = profileDir === '' ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  const rows: Row[] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `flagops-bench-plan-${size}-`));
    try {
      generateRepo(dir, size);
      const consoleChild = child(['--role', 'console', '--dir', dir]);
      const { url, changed } = JSON.parse(await consoleChild.line) as { url: string; changed: number };
      try {
        const planner = child(['--role', 'planner', '--dir', dir, '--url', url, '--runs', String(runs), '--warmups', String(warmups)], plannerFlags);
        const result = JSON.parse(await planner.line) as Omit<Row, 'size' | 'updates' | 'expected' | 'bareMs' | 'bareCpuMs'> & { summary: Record<string, number> };
        await planner.done;
        const yamlChild = child(['--role', 'bare-yaml', '--dir', dir, '--runs', String(runs)]);
        const yamlTimes = JSON.parse(await yamlChild.line) as Pick<Row, 'bareMs' | 'bareCpuMs'>;
        await yamlChild.done;
        const { summary, ...planTimes } = result;
        const times = { ...planTimes, ...yamlTimes };
        // The memory target is `flagops plan`'s: one plan in a process of its own, without the timing
        // child's baselines and repeated runs, whose garbage the heap keeps around.
        const once = child(['--role', 'plan-once', '--dir', dir, '--url', url]);
        const { planRssMB } = JSON.parse(await once.line) as { planRssMB: number };
        await once.done;
        rows.push({ size, ...times, planRssMB, updates: summary['update'] ?? 0, expected: changed });
        const last = rows.at(-1) as Row;
        process.stderr.write(`  ${size} entities: plan ${last.planMs.toFixed(0)} ms, bare parse ${last.bareMs.toFixed(0)} ms (js-yaml ${last.bareFastMs.toFixed(0)} ms), ${last.updates} updates\n`);
      } finally {
        consoleChild.kill();
        await consoleChild.done;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const pad = (s: string, n: number): string => s.padStart(n);
  console.log(`\nbench:plan — validate + plan over HTTP vs a bare YAML parse of the same files (median of ${runs} runs)\n`);
  console.log(
    `${pad('entities', 9)} ${pad('validate+plan', 14)} ${pad('cold console', 13)} ${pad('bare yaml', 11)} ${pad('ratio', 6)} ${pad('bare js-yaml', 13)} ${pad('ratio', 6)} ${pad('µs/entity', 10)} ${pad('plan CPU', 9)} ${pad('parse CPU', 10)} ${pad('js-yaml CPU', 12)} ${pad('peak RSS', 9)} ${pad('1 plan RSS', 11)} ${pad('updates found', 14)}`,
  );
  for (const r of rows) {
    console.log(
      `${pad(String(r.size), 9)} ${pad(`${r.planMs.toFixed(0)} ms`, 14)} ${pad(`${r.coldPlanMs.toFixed(0)} ms`, 13)} ${pad(`${r.bareMs.toFixed(0)} ms`, 11)} ${pad(`${(r.planMs / r.bareMs).toFixed(2)}×`, 6)} ${pad(`${r.bareFastMs.toFixed(0)} ms`, 13)} ${pad(`${(r.planMs / r.bareFastMs).toFixed(2)}×`, 6)} ${pad(((r.planMs * 1000) / r.size).toFixed(0), 10)} ${pad(`${r.planCpuMs.toFixed(0)} ms`, 9)} ${pad(`${r.bareCpuMs.toFixed(0)} ms`, 10)} ${pad(`${r.bareFastCpuMs.toFixed(0)} ms`, 12)} ${pad(`${r.maxRssMB.toFixed(0)} MB`, 9)} ${pad(`${r.planRssMB.toFixed(0)} MB`, 11)} ${pad(`${r.updates}/${r.expected}`, 14)}`,
    );
  }
  console.log('(wall-clock times, file reads included; CPU = user+system time of the planner process: the console serves from its own process;');
  console.log(' parse CPU is the yaml.parse baseline\'s. Clean files take the plan\'s line reader of block YAML (js-yaml, then yaml, for the rest);');
  console.log(' cold console: the same plan just after a write moved the console\'s data mark, so that it builds every list page again instead of');
  console.log(' answering from its read cache, as the first plan after an apply finds it: information, not a target)');
  const at = (n: number): Row | undefined => rows.find((r) => r.size === n);
  const r10 = at(10000);
  const r20 = at(20000);
  const checks: [string, boolean][] = [];
  if (r10) {
    checks.push([`10,000 entities in ≤ 1 s: ${(r10.planMs / 1000).toFixed(2)} s`, r10.planMs <= 1000]);
    checks.push([`≤ 2.5× a bare js-yaml load of the same files: ${(r10.planMs / r10.bareFastMs).toFixed(2)}× (headline; CPU ${(r10.planCpuMs / r10.bareFastCpuMs).toFixed(2)}×; ${(r10.planMs / r10.bareMs).toFixed(2)}× the bare yaml.parse)`, r10.planMs <= 2.5 * r10.bareFastMs]);
  }
  if (r20) checks.push([`20,000 entities: peak RSS of one plan ≤ 400 MB: ${r20.planRssMB.toFixed(0)} MB (the timing child, ${runs} plans and the baselines: ${r20.maxRssMB.toFixed(0)} MB)`, r20.planRssMB <= 400]);
  for (const r of rows) checks.push([`${r.size}: the plan finds the ${r.expected} changed entities`, r.updates === r.expected]);
  console.log('');
  for (const [label, ok] of checks) console.log(`${ok ? 'ok  ' : 'MISS'} ${label}`);
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
}


if (process.argv[1] !== undefined && fileURLToPath(`file://${process.argv[1]}`) === SELF) {
  const role = arg('role', 'parent');
  if (role === 'console') await runConsole(arg('dir', ''));
  else if (role === 'planner') await runPlanner(arg('dir', ''), arg('url', ''), Number(arg('runs', '3')), Number(arg('warmups', '1')));
  else if (role === 'plan-once') await runPlanOnce(arg('dir', ''), arg('url', ''));
  else if (role === 'bare-yaml') await runBareYaml(arg('dir', ''), Number(arg('runs', '3')));
  else await main();
}
