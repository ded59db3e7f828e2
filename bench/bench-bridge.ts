/**
 * bench:bridge — verdict latency of the pre-commit bridge under bursts of webhook deliveries.
 *
 * A generated git repository of --entities entities (bench/generate-repo.ts); a console (the compiled
 * CLI, `flagops serve`, SQLite file, its own process) whose pre-commit webhook points at a bridge built
 * with createBridge in this process (as `flagops bridge` builds it), on that repository. Each burst:
 * --burst gate creates are submitted as reviews and approved (unmeasured), then all committed at once,
 * so the console sends --burst deliveries that are in flight together. Bursts, in order:
 *   1. head A, first read (the whole tree: one ls-tree, every blob)
 *      then --warmup-bursts bursts at head A, unmeasured (V8 settles the delivery paths)
 *   2. head A again (the snapshot is read; the head is resolved again)
 *   3. head B, a new commit changing 2 × --burst files (its first read: ls-tree and the changed blobs)
 *   4. head B again
 * Verdict latency of a delivery: from the bridge receiving it (fastify onRequest) to the bridge sending
 * its decision to change_validation; "acknowledged" adds the console's answer to that request. Git reads
 * are counted by a `git` shim in PATH that logs each subcommand the bridge runs.
 * Headline: p99 of the bursts after a head's first read (2 and 4) against --target-ms; exit 1 when missed
 * or when any verdict is not an approval.
 *
 * `--profile DIR` writes V8 CPU profiles: this process's (bridge and load generator) over the headline
 * bursts only, the console's over the whole run, and `windows.json`, the headline bursts' spans on the
 * profiles' clock (CLOCK_MONOTONIC, µs) to filter the console's samples by.
 *
 * `--timeline` prints, per burst, when the listings of reviews went out and came back, and quantiles
 * (0, 10, 25, 50, 75, 90, 100%) of when the commits were acknowledged, the deliveries arrived and the
 * decisions left, in ms from the first commit sent.
 *
 *   npm run bench:bridge [-- --entities 10000 --burst 200 --warmup-bursts 3 --target-ms 50 --no-build --profile DIR --timeline]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { createBridge } from '../controller/bridge/create-bridge.js';
import { sharedHttpClient, type SendHttp } from '../controller/net/http-client.js';
import { ConsoleClient } from '../controller/reconcile/console-client.js';
import { FsRepoReader } from '../controller/source/fs-repo-reader.js';
import { loadRepo } from '../controller/source/load-repo.js';
import { ChildProcesses, processCpuMs } from './child-processes.js';
import { generateRepo } from './generate-repo.js';

const { values } = parseArgs({
  options: {
    entities: { type: 'string', default: '10000' },
    burst: { type: 'string', default: '200' },
    'warmup-bursts': { type: 'string', default: '3' },
    'target-ms': { type: 'string', default: '50' },
    'no-build': { type: 'boolean', default: false },
    profile: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const N = Number(values.entities);
const BURST = Number(values.burst);
const WARMUP_BURSTS = Number(values['warmup-bursts']);
const TARGET_MS = Number(values['target-ms']);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = 'console-bench-bridge-admin';
const WEBHOOK_KEY = 'bench-bridge-webhook-key';
const children = new ChildProcesses(ROOT);

const ownCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const git = (repo: string, ...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

/** A `git` first in PATH that logs its subcommand, then runs the real git: counts what the bridge asks git. */
function gitShim(dir: string): { log: string; count: () => Map<string, number> } {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = join(dir, 'bin');
  const log = join(dir, 'git-calls.log');
  mkdirSync(bin);
  writeFileSync(log, '');
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor a; do case "$a" in -*) ;; *) echo "$a\${GIT_SHIM_ARGS:+ $*}" >> '${log}'; break;; esac; done\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  process.env['PATH'] = `${bin}:${process.env['PATH'] ?? ''}`;
  return {
    log,
    count: () => {
      const counts = new Map<string, number>();
      for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
      writeFileSync(log, '');
      return counts;
    },
  };
}

interface Burst {
  label: string;
  headline: boolean;
  verdictMs: number[];
  ackMs: number[];
  reviewReads: number;
  listings: number;
  wallMs: number;
  gitCalls: Map<string, number>;
  bridgeCpuMs: number;
  consoleCpuMs: number;
}

let exitCode = 0;
const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-bridge-'));
let closeBridge: (() => Promise<void>) | undefined;
try {
  if (!values['no-build']) {
    process.stderr.write('building (pass --no-build to skip)...\n');
    if (spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  }
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  generateRepo(repo, N);
  git(repo, 'init', '-q', '-b', 'main');
  // No automatic gc: after the first commit's 10k loose objects it would start in the background and
  // take a core from the bursts it overlaps.
  git(repo, 'config', 'gc.auto', '0');
  git(repo, 'config', 'maintenance.auto', 'false');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'generated repository');
  const loaded = await loadRepo(new FsRepoReader(repo));
  const gates = loaded.entities.filter((e) => e.folder === 'gates');
  const needed = (4 + WARMUP_BURSTS) * BURST;
  if (gates.length < needed) throw new Error(`${gates.length} gates in the repository: ${4 + WARMUP_BURSTS} bursts of ${BURST} need ${needed}`);
  process.stderr.write(`repository: ${loaded.entities.length} entities, ${gates.length} gates, committed\n`);

  const profileDir = values.profile;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const consoleProfile = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', 'console.cpuprofile'];
  const consoleProc = await children.start([...consoleProfile, join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
  const url = consoleProc.url;
  const consolePid = consoleProc.child.pid;
  const admin = new ConsoleClient({ baseUrl: url, apiKey: ADMIN });
  const key = async (email: string, role = 'member'): Promise<string> => String(((await admin.request('POST', '/console/v1/keys', { description: 'bench', userEmail: email, role })).data as Record<string, unknown>)['key']);
  const [submitterKey, approverKey, bridgeKey] = [await key('submitter@bench'), await key('approver@bench'), await key('bridge@bench', 'webhook_receiver')];
  const submitter = new ConsoleClient({ baseUrl: url, apiKey: submitterKey });
  const approver = new ConsoleClient({ baseUrl: url, apiKey: approverKey });
  // The gates reference segments: those are written directly, before the webhook is set.
  const segmentEntry = loaded.entities.filter((e) => e.folder === 'segments');
  for (const s of segmentEntry) await admin.request('POST', '/console/v1/segments', s.data);

  // The bridge, instrumented at its two ends: arrival of a delivery, departure of its decision.
  const shim = gitShim(dir);
  const arrived = new Map<string, number>();
  const decided = new Map<string, { sent: number; acknowledged: number; validated: boolean; message: string }>();
  const waiters = new Map<string, () => void>();
  /** The bridge's reads of reviews, for the descriptions the deliveries lack: one by one, and listings of those pending validation. */
  let reviewReads = 0;
  let listings = 0;
  let burstT0 = 0;
  const send: SendHttp = async (request) => {
    const body = request.body === undefined || !request.url.pathname.endsWith('/change_validation') ? undefined : (JSON.parse(request.body) as Record<string, unknown>);
    const decision = typeof body?.['validated'] === 'boolean';
    const sent = performance.now();
    const response = await sharedHttpClient.send(request);
    const read = request.method === 'GET' ? /\/reviews\/([^/]+)$/.exec(request.url.pathname)?.[1] : undefined;
    if (read !== undefined) reviewReads++;
    if (request.method === 'GET' && request.url.pathname === '/console/v1/reviews') {
      listings++;
      if (values.timeline) process.stderr.write(`    listing sent ${(sent - burstT0).toFixed(0)} answered ${(performance.now() - burstT0).toFixed(0)} items ${(JSON.parse(response.text) as { data: unknown[] }).data.length}\n`);
    }
    if (decision && body !== undefined) {
      const id = String(body['reviewID']);
      decided.set(id, { sent, acknowledged: performance.now(), validated: body['validated'] === true, message: String(body['message']) });
      waiters.get(id)?.();
    }
    return response;
  };
  const { app } = createBridge({
    repoDir: repo,
    branch: 'main',
    console: new ConsoleClient({ baseUrl: url, apiKey: bridgeKey, send }),
    webhookKey: WEBHOOK_KEY,
    failOpen: false,
    managedTag: 'flagops-managed',
    log: () => undefined,
  });
  app.addHook('onRequest', (request, _reply, done) => {
    (request as unknown as { arrivedAt: number }).arrivedAt = performance.now();
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const id = (request.body as { review_id?: unknown } | undefined)?.review_id;
    if (typeof id === 'string') arrived.set(id, (request as unknown as { arrivedAt: number }).arrivedAt);
    done();
  });
  const bridgeUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closeBridge = () => app.close();
  await admin.request('POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridgeUrl}/webhook`, webhookKey: WEBHOOK_KEY });

  const profiler = profileDir === undefined ? undefined : new Session();
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
  }
  const windows: { label: string; startUs: number; endUs: number }[] = [];

  /** Submits and approves the gates' creates (unmeasured), then commits them all at once and waits for every decision. */
  const burst = async (label: string, headline: boolean, files: typeof gates): Promise<Burst> => {
    const reviews: string[] = [];
    await Promise.all(
      files.map(async (g, i) => {
        const path = `/console/v1/gates/${g.id}`;
        const review = (await submitter.request('POST', `${path}/reviews`, { action: 'create', change: g.data, description: 'bench:bridge' })).data ?? {};
        const id = String(review['reviewID']);
        await approver.request('PUT', `${path}/reviews/${id}/approve`, { comment: 'bench' });
        reviews[i] = id;
      }),
    );
    shim.count();
    const reads0 = reviewReads;
    const listings0 = listings;
    const profiling = headline && profiler !== undefined;
    if (profiling) await profiler.post('Profiler.start');
    const cpu0 = { bridge: ownCpuMs(), console: processCpuMs(consolePid) ?? NaN };
    const t0 = performance.now();
    burstT0 = t0;
    const span0 = process.hrtime.bigint();
    const done = Promise.all(reviews.map((id) => new Promise<void>((resolve) => (decided.has(id) ? resolve() : waiters.set(id, resolve)))));
    const acks: number[] = [];
    await Promise.all(files.map((g, i) => submitter.request('PUT', `/console/v1/gates/${g.id}/reviews/${reviews[i]}/commit`, {}).then(() => acks.push(performance.now() - t0))));
    await done;
    const wallMs = performance.now() - t0;
    const cpu = { bridge: ownCpuMs() - cpu0.bridge, console: (processCpuMs(consolePid) ?? NaN) - cpu0.console };
    if (values.timeline) {
      const q = (xs: number[]): string => [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1].map((p) => quantile(xs, p).toFixed(0)).join(' ');
      process.stderr.write(`    commit acks ${q(acks)}\n    arrivals ${q(reviews.map((id) => (arrived.get(id) ?? NaN) - t0))}\n    decisions ${q(reviews.map((id) => (decided.get(id)?.sent ?? NaN) - t0))}\n`);
    }
    if (profiling && profileDir !== undefined) {
      windows.push({ label, startUs: Number(span0 / 1000n), endUs: Number(process.hrtime.bigint() / 1000n) });
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(join(profileDir, `bridge-${label.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
    }
    const verdictMs: number[] = [];
    const ackMs: number[] = [];
    for (const id of reviews) {
      const d = decided.get(id)!;
      const at = arrived.get(id);
      if (at === undefined) throw new Error(`review ${id}: decided, but its delivery never reached the bridge`);
      if (!d.validated) throw new Error(`review ${id} was rejected: ${d.message}`);
      verdictMs.push(d.sent - at);
      ackMs.push(d.acknowledged - at);
    }
    const b: Burst = { label, headline, verdictMs, ackMs, reviewReads: reviewReads - reads0, listings: listings - listings0, wallMs, gitCalls: shim.count(), bridgeCpuMs: cpu.bridge, consoleCpuMs: cpu.console };
    process.stderr.write(`  ${label}: p50 ${quantile(verdictMs, 0.5).toFixed(1)} ms, p99 ${quantile(verdictMs, 0.99).toFixed(1)} ms\n`);
    return b;
  };

  const bursts: Burst[] = [];
  bursts.push(await burst('head A, first read', false, gates.slice(0, BURST)));
  // A console and a bridge that have run for a while: the paths a delivery takes (commit, webhook,
  // decision) run only --burst times per burst, and V8 needs thousands of calls to settle them.
  for (let i = 0; i < WARMUP_BURSTS; i++) await burst(`warm-up ${i + 1} (unmeasured)`, false, gates.slice(gates.length - (i + 1) * BURST, gates.length - i * BURST));
  bursts.push(await burst('head A again', true, gates.slice(BURST, 2 * BURST)));
  // Head B: a commit changing the next 2 × BURST gates' descriptions.
  const changed = gates.slice(2 * BURST, 4 * BURST);
  for (const g of changed) {
    const path = join(repo, g.file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^description: .*$/m, `description: Changed at head B.`));
  }
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'head B');
  const changedNow = new Map((await loadRepo(new FsRepoReader(repo))).entities.filter((e) => e.folder === 'gates').map((e) => [e.id, e]));
  const atB = changed.map((g) => changedNow.get(g.id)!);
  bursts.push(await burst('head B (new), first read', false, atB.slice(0, BURST)));
  bursts.push(await burst('head B again', true, atB.slice(BURST)));

  if (profileDir !== undefined) writeFileSync(join(profileDir, 'windows.json'), JSON.stringify(windows, null, 2));
  const headline = bursts.filter((b) => b.headline).flatMap((b) => b.verdictMs);
  const p99 = quantile(headline, 0.99);
  const fmt = (x: number): string => x.toFixed(1).padStart(7);
  const lines = [
    `bench:bridge — ${loaded.entities.length} entities in git, bursts of ${BURST} pre-commit deliveries in flight at once; bridge in this process, console a child process`,
    `  ${'burst'.padEnd(26)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'ack p99'.padStart(7)} ${'reads'.padStart(9)} ${'wall ms'.padStart(7)} ${'bridge CPU/del'.padStart(14)} ${'console CPU/del'.padStart(15)}  git calls`,
    ...bursts.map(
      (b) =>
        `  ${b.label.padEnd(26)} ${fmt(quantile(b.verdictMs, 0.5))} ${fmt(quantile(b.verdictMs, 0.99))} ${fmt(Math.max(...b.verdictMs))} ${fmt(quantile(b.ackMs, 0.99))} ${`${b.listings} + ${b.reviewReads}`.padStart(9)} ${fmt(b.wallMs)} ${`${(b.bridgeCpuMs / BURST).toFixed(2)} ms`.padStart(14)} ${`${(b.consoleCpuMs / BURST).toFixed(2)} ms`.padStart(15)}  ${[...b.gitCalls].map(([cmd, n]) => `${cmd} ×${n}`).join(', ') || 'none'}`,
    ),
    `  (latency: delivery received by the bridge → its decision sent to change_validation; ack: → the console's answer to it;`,
    `   reads: the bridge's listings of the reviews pending validation + its GETs of one review, for the descriptions deliveries lack;`,
    `   wall: first commit sent → last decision; CPU per delivery: bridge = this process (the bench's own requests included), console = its process)`,
    `  verdict p99 after a head's first read: ${p99.toFixed(1)} ms / target ${TARGET_MS} ms = ${(p99 / TARGET_MS).toFixed(2)}× ${p99 <= TARGET_MS ? 'MET' : 'MISSED'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!(p99 <= TARGET_MS)) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench:bridge failed: ${(error as Error).stack ?? String(error)}\n`);
  exitCode = 1;
} finally {
  await closeBridge?.();
  await children.stopAll();
  sharedHttpClient.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
