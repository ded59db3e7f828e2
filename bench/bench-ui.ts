/**
 * The web console's weight and speed, in Debian's headless Chromium against `flagops serve`:
 *   - gzip size of the JavaScript and CSS the page loads          — target ≤ 150 KB together
 *   - time until the first page of a list of 10,000 gates shows   — target ≤ 1 s (median)
 *     (navigation start to the rows and pager on screen), beside the same page showing an empty list
 *     in the same run, as a ratio: what the 10,000 gates cost over the page itself.
 * Exits 1 when a target is missed.
 *
 *   npm run bench:ui [-- --runs 5 --gates 10000 --no-build]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../controller/test-support/chromium.js';
import { findChromium } from '../controller/test-support/find-chromium.js';
import { ChildProcesses } from './child-processes.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    gates: { type: 'string', default: '10000' },
    'no-build': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const GATES = Number(values.gates);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'dist', 'web');
const ADMIN = 'console-bench-ui-admin-key';
const SIZE_TARGET_KB = 150;
const FIRST_LIST_TARGET_MS = 1000;
/** The page keeps the key here (web/src/session.ts). */
const SESSION_KEY = 'flagops.consoleKey';

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** gzip -9 bytes of every script and stylesheet index.html loads. */
function bundleSizes(): { js: number; css: number; files: string[] } {
  const html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let js = 0;
  let css = 0;
  for (const file of files) {
    const size = gzipSync(readFileSync(join(WEB, file)), { level: 9 }).length;
    if (file.endsWith('.js')) js += size;
    else css += size;
  }
  return { js, css, files };
}

async function main(): Promise<number> {
  if (!values['no-build']) {
    process.stderr.write('building (npm run build; pass --no-build to skip)...\n');
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) return 1;
  }
  let sizes: ReturnType<typeof bundleSizes>;
  try {
    sizes = bundleSizes();
  } catch (error) {
    process.stderr.write(`the web console is not built (${(error as Error).message}); run npm run build\n`);
    return 1;
  }

  const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-ui-'));
  const children = new ChildProcesses(ROOT);
  const found = findChromium(process.env);
  if (found.path === undefined) throw new Error(`bench:ui needs a browser: ${found.reason}`);
  const chromium = await launchChromium(found.path);
  try {
    const server = await children.start([join(ROOT, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'console.db')], { FLAGOPS_BOOTSTRAP_KEY: ADMIN }, /listening on (http:\/\/\S+)/);
    process.stderr.write(`creating ${GATES} gates...\n`);
    const seedStart = Date.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < GATES) {
        const i = next++;
        const res = await fetch(`${server.url}/console/v1/gates`, {
          method: 'POST',
          headers: { 'SERVICE-API-KEY': ADMIN, 'content-type': 'application/json' },
          body: JSON.stringify({ id: `gate_${String(i).padStart(5, '0')}`, name: `Gate ${i}`, description: `Benchmark gate ${i}`, tags: i % 10 === 0 ? ['flagops-managed'] : [], rules: [{ name: 'ramp', passPercentage: i % 100, conditions: [{ type: 'public' }] }] }),
        });
        if (res.status !== 201) throw new Error(`creating gate ${i}: HTTP ${res.status} ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    process.stderr.write(`  ${GATES} gates in ${((Date.now() - seedStart) / 1000).toFixed(1)} s\n`);

    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(([name, key]) => (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem(name, key), [SESSION_KEY, ADMIN] as const);
    /** Milliseconds from navigation start until the list's pager (drawn with its rows) is on the page. */
    const shown = async (path: string): Promise<number> => {
      const page = await context.newPage();
      try {
        await page.goto(`${server.url}${path}`);
        const handle = await page.waitForFunction(
          () => {
            const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
            return doc.querySelector('nav.pager') ? (globalThis as unknown as { performance: { now(): number } }).performance.now() : false;
          },
          undefined,
          { timeout: 30_000, polling: 'raf' },
        );
        return (await handle.jsonValue()) as number;
      } finally {
        await page.close();
      }
    };
    // Holdouts: none exist, so the same page shows an empty list.
    await shown('/entities/holdouts');
    await shown('/entities/gates');
    const empty: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      empty.push(await shown('/entities/holdouts'));
      full.push(await shown('/entities/gates'));
    }
    const emptyMs = median(empty);
    const fullMs = median(full);
    const totalKb = (sizes.js + sizes.css) / 1024;
    const sizeOk = totalKb <= SIZE_TARGET_KB;
    const timeOk = fullMs <= FIRST_LIST_TARGET_MS;
    const lines = [
      '',
      `web console bundle (gzip -9): JS ${(sizes.js / 1024).toFixed(1)} KB + CSS ${(sizes.css / 1024).toFixed(1)} KB = ${totalKb.toFixed(1)} KB (target ≤ ${SIZE_TARGET_KB} KB) ${sizeOk ? 'ok' : 'MISSED'}`,
      `first page of ${GATES} gates shown: ${fullMs.toFixed(0)} ms median of ${RUNS} (target ≤ ${FIRST_LIST_TARGET_MS} ms) ${timeOk ? 'ok' : 'MISSED'}`,
      `empty list page shown: ${emptyMs.toFixed(0)} ms median; ratio ${(fullMs / emptyMs).toFixed(2)}× (runs: ${full.map((x) => x.toFixed(0)).join(', ')} vs ${empty.map((x) => x.toFixed(0)).join(', ')})`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    return sizeOk && timeOk ? 0 : 1;
  } finally {
    await chromium.close();
    await children.stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:ui failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
