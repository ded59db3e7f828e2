import { join } from 'node:path';
import pg from 'pg';
import type { ChildProcesses } from '../child-processes.js';
import type { BenchRow } from './bench-row.js';

type Api = (base: string, method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

export interface ReplicasSectionOptions {
  root: string;
  children: ChildProcesses;
  api: Api;
  adminKey: string;
  /** A PostgreSQL server (any database of it): the section creates and drops a scratch database. */
  pgUrl: string;
  writes: number;
}

/**
 * Two `flagops serve` replicas on one PostgreSQL database: each write (a gate turned on or off,
 * alternately on either replica) is followed by an OFREP evaluation of that gate on the other
 * replica, which must answer what the write set. Target: 0 stale of `writes`.
 */
export async function replicasSection(o: ReplicasSectionOptions): Promise<BenchRow[]> {
  const { api } = o;
  const admin = new pg.Client({ connectionString: o.pgUrl });
  await admin.connect();
  const scratch = `flagops_bench_eval_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${scratch}`);
  const url = new URL(o.pgUrl);
  url.pathname = `/${scratch}`;
  try {
    const serveArgs = [join(o.root, 'bin', 'flagops.js'), 'serve', '--port', '0', '--db', url.toString()];
    const a = await o.children.start(serveArgs, { FLAGOPS_BOOTSTRAP_KEY: o.adminKey }, /listening on (http:\/\/\S+)/);
    const b = await o.children.start(serveArgs, { FLAGOPS_BOOTSTRAP_KEY: o.adminKey }, /listening on (http:\/\/\S+)/);
    await api(a.url, 'POST', '/console/v1/gates', { id: 'replica_gate', name: 'replica gate', isEnabled: false, rules: [{ name: 'everyone', passPercentage: 100, conditions: [{ type: 'public' }] }] });
    const key = String(((await api(a.url, 'POST', '/console/v1/keys', { description: 'bench', type: 'SERVER' }))['data'] as Record<string, unknown>)['key']);
    const evaluate = async (base: string): Promise<unknown> => {
      const res = await fetch(`${base}/ofrep/v1/evaluate/flags/replica_gate`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: '{"context":{"targetingKey":"user-1"}}' });
      const body = (await res.json()) as { value?: unknown };
      if (res.status !== 200) throw new Error(`OFREP answered ${res.status}: ${JSON.stringify(body)}`);
      return body.value;
    };
    // Both replicas have compiled the specs once: every later evaluation follows a write.
    await evaluate(a.url);
    await evaluate(b.url);
    let stale = 0;
    const started = performance.now();
    for (let i = 0; i < o.writes; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const enabled = i % 2 === 0;
      await api(writer.url, 'PATCH', '/console/v1/gates/replica_gate', { isEnabled: enabled });
      if ((await evaluate(reader.url)) !== enabled) stale += 1;
    }
    const perPair = (performance.now() - started) / o.writes;
    process.stderr.write(`  ${o.writes} writes, each evaluated on the other replica: ${stale} stale; ${perPair.toFixed(1)} ms per write and evaluation\n`);
    return [{ section: 'replicas', measure: 'PostgreSQL, two replicas: a write on one, then an evaluation on the other', figure: `${stale} stale of ${o.writes}`, target: '0 stale', ok: stale === 0 }];
  } finally {
    await o.children.stopAll();
    await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
    await admin.end();
  }
}
