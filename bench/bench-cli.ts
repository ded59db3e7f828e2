/**
 * bench:cli — startup of the built CLI (bin/flagops.js, so `npm run build` first): the wall time of
 * `flagops --help` and of `flagops validate config-repo-template` as a ratio to `node -e 0` measured
 * in the same run. The three are run in turn, round after round, so a machine that is busier for a
 * while weighs on all of them alike; each figure is the median of its runs.
 *
 * Targets: --help at most 3× node's own start, validate at most 6×. Exits 1 when a median misses.
 *
 * Usage: npm run bench:cli [-- --runs 15]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/flagops.js', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../config-repo-template', import.meta.url));

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const runs = Number(arg('runs', '15'));
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('bench:cli: --runs must be a positive integer\n');
  process.exit(1);
}
if (!existsSync(fileURLToPath(new URL('../dist/controller/main.js', import.meta.url)))) {
  process.stderr.write('bench:cli: the CLI is not built; run `npm run build` first.\n');
  process.exit(1);
}

interface Case {
  label: string;
  args: string[];
  /** Multiple of `node -e 0` the median may take; undefined for the baseline itself. */
  target?: number;
  times: number[];
}

const cases: Case[] = [
  { label: 'node -e 0', args: ['-e', '0'], times: [] },
  { label: 'flagops --help', args: [BIN, '--help'], target: 3, times: [] },
  { label: 'flagops validate config-repo-template', args: [BIN, 'validate', TEMPLATE], target: 6, times: [] },
];

function timeOnce(c: Case): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, c.args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${c.label} exited with ${result.status}:\n${result.stderr.toString()}`);
  return ms;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

// One unmeasured round: the first start of each reads its files from disk, not from the page cache.
for (const c of cases) timeOnce(c);
for (let round = 0; round < runs; round++) for (const c of cases) c.times.push(timeOnce(c));

const baseline = median(cases[0]?.times ?? []);
let missed = 0;
process.stdout.write(`bench:cli — median of ${runs} runs each, node ${process.version}\n\n`);
for (const c of cases) {
  const ms = median(c.times);
  const ratio = ms / baseline;
  let verdict = '(baseline)';
  if (c.target !== undefined) {
    const ok = ratio <= c.target;
    if (!ok) missed++;
    verdict = `${ratio.toFixed(2)}× node (target ≤ ${c.target}×) ${ok ? 'ok' : 'MISSED'}`;
  }
  process.stdout.write(`  ${c.label.padEnd(40)} ${ms.toFixed(0).padStart(5)} ms  ${verdict}\n`);
}
if (missed > 0) {
  process.stdout.write(`\n${missed} target(s) missed.\n`);
  process.exitCode = 1;
}
