import { writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { ChildProcesses, Server } from '../child-processes.js';
import { median } from '../console-bench-helpers.js';
import type { BenchRow } from './bench-row.js';
import { LeanHttpClient } from './lean-http-client.js';
import { cpuFigure, inParallel, measureAutocannon } from './measure-autocannon.js';

type Api = (base: string, method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

export interface OfrepSectionOptions {
  root: string;
  dir: string;
  children: ChildProcesses;
  api: Api;
  adminKey: string;
  flags: number;
  rounds: number;
  /** Bulk requests timed one after another, each for a new context. */
  bulkRequests: number;
  /** Bulk requests sent before those, unmeasured. */
  bulkWarmup: number;
  run: { connections: number; duration: number; warmup: number };
}

/**
 * OpenFeature (OFREP) evaluation on `flagops serve` (SQLite file), against bare Fastify POST routes
 * answering the same bytes:
 * - single evaluation POST /ofrep/v1/evaluate/flags/{key} / bare route: ≥ 0.8;
 * - bulk evaluation of `flags` flags for one user (a new context each time), timed with a lean client
 *   that reads into one buffer (LeanHttpClient), so the client's own collections don't count as the
 *   server's latency: p99 ≤ 10 ms; the same timed with Node's HTTP client and with fetch is shown beside;
 * - bulk with If-None-Match (304) / bare route answering 304: ≥ 0.9.
 * Ratios are medians of rounds, each on new bare servers and a new console (same database): two
 * processes of the same program differ by up to a tenth in CPU per request for as long as they run.
 */
export async function ofrepSection(o: OfrepSectionOptions): Promise<BenchRow[]> {
  const { root, dir, children, api } = o;
  const startConsole = (): Promise<Server> => children.start([join(root, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', join(dir, 'ofrep.db')], { FLAGOPS_BOOTSTRAP_KEY: o.adminKey }, /listening on (http:\/\/\S+)/);
  const console_ = await startConsole();
  const base = console_.url;
  process.stderr.write(`creating ${o.flags} flags (gates with a segment, e-mail, country and percentage rules; every tenth a dynamic config)...\n`);
  await api(base, 'POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'rule_based', rules: [{ name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] });
  await inParallel(o.flags, 8, (i) =>
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
  const singlePath = '/ofrep/v1/evaluate/flags/gate_1';
  const bulkPath = '/ofrep/v1/evaluate/flags';
  // What a console started on the database answers before it is measured: the single evaluation, the
  // bulk (every flag evaluated once, as applications' bulk requests have by the time singles are
  // timed) and the bulk's 304, whose tag it returns.
  const prime = async (url: string): Promise<{ singleBody: string; flagCount: number; etag: string }> => {
    const single = await fetch(`${url}${singlePath}`, { method: 'POST', headers, body });
    const singleBody = await single.text();
    if (single.status !== 200) throw new Error(`single evaluation answered ${single.status}: ${singleBody}`);
    const bulk = await fetch(`${url}${bulkPath}`, { method: 'POST', headers, body });
    const bulkBody = await bulk.text();
    const etag = bulk.headers.get('etag') ?? '';
    const flagCount = (JSON.parse(bulkBody) as { flags: unknown[] }).flags.length;
    if (bulk.status !== 200 || flagCount < o.flags) throw new Error(`bulk answered ${bulk.status} with ${flagCount} flags`);
    const notModified = await fetch(`${url}${bulkPath}`, { method: 'POST', headers: { ...headers, 'if-none-match': etag }, body });
    if (notModified.status !== 304) throw new Error(`If-None-Match answered ${notModified.status}`);
    return { singleBody, flagCount, etag };
  };
  const { singleBody, flagCount, etag } = await prime(base);
  await children.stop(console_);

  const singleFile = join(dir, 'ofrep-single.json');
  writeFileSync(singleFile, singleBody);
  const singleRatios: number[] = [];
  const notModifiedRatios: number[] = [];
  const cpu: Record<'bare' | 'single' | 'bare304' | 'bulk304', (number | undefined)[]> = { bare: [], single: [], bare304: [], bulk304: [] };
  let failed = 0;
  for (let round = 1; round <= o.rounds; round++) {
    const bareSingle = await children.start(['--import', 'tsx', join(root, 'bench', 'bare-post-server.ts'), singleFile], {}, /listening on (http:\/\/\S+)/);
    const bare304 = await children.start(['--import', 'tsx', join(root, 'bench', 'bare-post-server.ts'), singleFile, '304'], {}, /listening on (http:\/\/\S+)/);
    const fresh = await startConsole();
    const primed = await prime(fresh.url);
    if (primed.singleBody !== singleBody || primed.etag !== etag) throw new Error(`round ${round}: the console restarted answers otherwise`);
    const a = await measureAutocannon(`round ${round} bare route`, { url: `${bareSingle.url}/bare`, method: 'POST', headers, body }, o.run, false, bareSingle.child.pid);
    const b = await measureAutocannon(`round ${round} OFREP single`, { url: `${fresh.url}${singlePath}`, method: 'POST', headers, body }, o.run, false, fresh.child.pid);
    singleRatios.push(b.rps / a.rps);
    const c = await measureAutocannon(`round ${round} bare 304`, { url: `${bare304.url}/bare`, method: 'POST', headers, body }, o.run, true, bare304.child.pid);
    const d = await measureAutocannon(`round ${round} OFREP bulk 304`, { url: `${fresh.url}${bulkPath}`, method: 'POST', headers: { ...headers, 'if-none-match': etag }, body }, o.run, true, fresh.child.pid);
    notModifiedRatios.push(d.rps / c.rps);
    failed += b.failed + d.failed;
    cpu.bare.push(a.cpuPerRequestUs);
    cpu.single.push(b.cpuPerRequestUs);
    cpu.bare304.push(c.cpuPerRequestUs);
    cpu.bulk304.push(d.cpuPerRequestUs);
    await Promise.all([children.stop(bareSingle), children.stop(bare304), children.stop(fresh)]);
  }
  const bulkUrl = `${(await startConsole()).url}${bulkPath}`;
  // Bulk latency for one user at a time, each request a new context (nothing kept answers it), after
  // unmeasured ones that warm the evaluation path up as autocannon's warm-up does the other routes.
  // Timed with Node's HTTP client on one kept-alive connection, as autocannon times the other rows;
  // `fetch` (undici, in this process that has just run autocannon) is timed too, for comparison: it
  // adds milliseconds of its own at the tail when it reads a 110 KB body.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const bulkUrlParts = new URL(bulkUrl);
  const bodyFor = (user: string, country: string): string => JSON.stringify({ context: { targetingKey: user, email: 'bob@other.example', country } });
  const bulkHttp = (user: string, country: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const payload = bodyFor(user, country);
      const t0 = performance.now();
      const req = httpRequest({ host: bulkUrlParts.hostname, port: bulkUrlParts.port, path: bulkUrlParts.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`bulk answered ${res.statusCode}`));
        res.on('data', () => undefined);
        res.on('end', () => resolve(performance.now() - t0));
      });
      req.on('error', reject);
      req.end(payload);
    });
  const bulkFetch = async (user: string, country: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(bulkUrl, { method: 'POST', headers, body: bodyFor(user, country) });
    await res.text();
    return performance.now() - t0;
  };
  const timeBulk = async (bulkFor: (user: string, country: string) => Promise<number>, label: string): Promise<number[]> => {
    for (let i = 0; i < o.bulkWarmup; i++) await bulkFor(`${label}-warm-up-${i}`, i % 2 ? 'DE' : 'US');
    const times: number[] = [];
    for (let i = 0; i < o.bulkRequests; i++) times.push(await bulkFor(`${label}-user-${i}`, i % 2 ? 'DE' : 'US'));
    return times.sort((x, y) => x - y);
  };
  const lean = new LeanHttpClient(bulkUrlParts.hostname, Number(bulkUrlParts.port));
  const bulkLean = async (user: string, country: string): Promise<number> => {
    const payload = bodyFor(user, country);
    const request = `POST ${bulkUrlParts.pathname} HTTP/1.1\r\nhost: ${bulkUrlParts.host}\r\ncontent-type: application/json\r\nauthorization: Bearer ${key}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
    const t0 = performance.now();
    const res = await lean.send(request);
    const elapsed = performance.now() - t0;
    if (res.status !== 200) throw new Error(`bulk answered ${res.status}`);
    return elapsed;
  };
  const latencies = await timeBulk(bulkLean, 'lean');
  lean.close();
  const httpLatencies = await timeBulk(bulkHttp, 'http');
  agent.destroy();
  const fetched = await timeBulk(bulkFetch, 'fetch');
  const p99Of = (sorted: number[]): number => sorted[Math.floor(sorted.length * 0.99)] ?? NaN;
  const p99 = p99Of(latencies);
  const singleRatio = median(singleRatios);
  const nmRatio = median(notModifiedRatios);
  const rounds = (xs: number[], cpuOf: string): string => `(rounds ${xs.map((r) => r.toFixed(2)).join(', ')}${cpuOf})`;
  return [
    { section: 'ofrep', measure: 'single evaluation / bare route', figure: `${singleRatio.toFixed(2)} ${rounds(singleRatios, cpuFigure(cpu.bare, cpu.single, ['bare', 'console']))}${failed > 0 ? `, ${failed} failed` : ''}`, target: '≥ 0.8', ok: singleRatio >= 0.8 && failed === 0 },
    {
      section: 'ofrep',
      measure: `bulk, ${flagCount} flags for one user (a new context each, ${o.bulkRequests} requests)`,
      figure: `p99 ${p99.toFixed(1)} ms, median ${median(latencies).toFixed(1)} ms (with Node's http client: p99 ${p99Of(httpLatencies).toFixed(1)} ms, median ${median(httpLatencies).toFixed(1)} ms; with fetch: p99 ${p99Of(fetched).toFixed(1)} ms, median ${median(fetched).toFixed(1)} ms)`,
      target: 'p99 ≤ 10 ms',
      ok: p99 <= 10,
    },
    { section: 'ofrep', measure: 'bulk 304 (If-None-Match) / bare 304', figure: `${nmRatio.toFixed(2)} ${rounds(notModifiedRatios, cpuFigure(cpu.bare304, cpu.bulk304, ['bare', 'console']))}`, target: '≥ 0.9', ok: nmRatio >= 0.9 },
  ];
}
