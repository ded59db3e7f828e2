/**
 * bench:eval — every target of evaluation serving, measured in one run; exits 1 on a miss.
 *   engine    the engine in process / the official statsig-node SDK on the same specs and users   ≥ 1.0× each
 *   specs     config specs of --entities entities: unchanged / a bare route                       ≥ 0.9
 *             rebuilt after a write                                                                ≤ 100 ms
 *   ofrep     OFREP single evaluation / a bare route                                               ≥ 0.8
 *             bulk of --flags flags for one user                                                   p99 ≤ 10 ms
 *             bulk 304 / a bare 304                                                                ≥ 0.9
 *   replicas  two PostgreSQL replicas: a write on one, the next evaluation on the other            0 stale of --writes
 * Servers run in child processes (the compiled CLI: built first unless --no-build), autocannon here,
 * so load generator and servers don't share a core; ratios are medians of alternating rounds.
 * The replicas section needs PostgreSQL (--pg-url, default the local server); --only picks sections.
 *
 *   npm run bench:eval [-- --only engine,specs,ofrep,replicas --entities 10000 --flags 1000 --writes 500
 *                          --duration 3 --warmup 1 --connections 10 --rounds 5 --users 10000 --bulk-requests 300
 *                          --bulk-warmup 50 --pg-url URL --no-build]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ChildProcesses } from './child-processes.js';
import { adminApi, buildCli } from './console-bench-helpers.js';
import { renderRows, type BenchRow } from './eval/bench-row.js';
import { engineSection } from './eval/engine-section.js';
import { ofrepSection } from './eval/ofrep-section.js';
import { replicasSection } from './eval/replicas-section.js';
import { specsSection } from './eval/specs-section.js';

const SECTIONS = ['engine', 'specs', 'ofrep', 'replicas'] as const;

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: SECTIONS.join(',') },
    entities: { type: 'string', default: '10000' },
    flags: { type: 'string', default: '1000' },
    writes: { type: 'string', default: '500' },
    users: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    rebuilds: { type: 'string', default: '10' },
    'bulk-requests': { type: 'string', default: '300' },
    'bulk-warmup': { type: 'string', default: '50' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-build': { type: 'boolean', default: false },
  },
});
const only = new Set(values.only.split(',').map((s) => s.trim()));
for (const name of only) if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`--only: unknown section '${name}' (sections: ${SECTIONS.join(', ')})`);
const number = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
};

const ADMIN = 'console-bench-eval-admin-key';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const children = new ChildProcesses(ROOT);
const api = adminApi(ADMIN);
const run = { connections: number('connections'), duration: number('duration'), warmup: number('warmup') };
const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-eval-'));
const rows: BenchRow[] = [];
let exitCode = 0;
try {
  if (only.has('specs') || only.has('ofrep') || only.has('replicas')) buildCli(ROOT, values['no-build'] === true);
  if (only.has('engine')) {
    process.stderr.write('engine: in process, against statsig-node\n');
    rows.push(...(await engineSection({ users: number('users'), rounds: number('rounds') })));
  }
  if (only.has('specs')) {
    process.stderr.write('specs: GET /v1/download_config_specs\n');
    rows.push(...(await specsSection({ root: ROOT, dir, children, api, adminKey: ADMIN, entities: number('entities'), rebuilds: number('rebuilds'), rounds: number('rounds'), run })));
    await children.stopAll();
  }
  if (only.has('ofrep')) {
    process.stderr.write('ofrep: POST /ofrep/v1/evaluate/flags\n');
    rows.push(...(await ofrepSection({ root: ROOT, dir, children, api, adminKey: ADMIN, flags: number('flags'), rounds: number('rounds'), bulkRequests: number('bulk-requests'), bulkWarmup: number('bulk-warmup'), run })));
    await children.stopAll();
  }
  if (only.has('replicas')) {
    process.stderr.write('replicas: two consoles on one PostgreSQL database\n');
    rows.push(...(await replicasSection({ root: ROOT, children, api, adminKey: ADMIN, pgUrl: values['pg-url'], writes: number('writes') })));
  }
  process.stdout.write(`\n${renderRows(rows)}\n`);
  if (rows.some((r) => !r.ok)) exitCode = 1;
} catch (error) {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await children.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
