import autocannon from 'autocannon';
import { processCpuMs } from '../child-processes.js';

export interface Measured {
  rps: number;
  p99: number;
  failed: number;
  /** The server's CPU time (user and system) per request, µs, when its pid was given (Linux). */
  cpuPerRequestUs: number | undefined;
}

/**
 * A warm-up, then a measured autocannon run against `options.url`. `notModified`: the route answers
 * 304, which autocannon counts as non-2xx and which is then not a failure. With the server's `pid`,
 * also its CPU per request: a figure a busy machine disturbs less than the rates.
 */
export async function measureAutocannon(name: string, options: autocannon.Options, run: { connections: number; duration: number; warmup: number }, notModified = false, pid?: number): Promise<Measured> {
  await autocannon({ ...options, connections: run.connections, duration: run.warmup });
  const cpuBefore = processCpuMs(pid);
  const result = await autocannon({ ...options, connections: run.connections, duration: run.duration });
  const cpuAfter = processCpuMs(pid);
  const cpuPerRequestUs = cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0 ? ((cpuAfter - cpuBefore) * 1000) / result.requests.total : undefined;
  const failed = result.errors + result.timeouts + (notModified ? 0 : result.non2xx);
  const cpu = cpuPerRequestUs === undefined ? '' : `, server CPU ${cpuPerRequestUs.toFixed(1)} µs/request`;
  process.stderr.write(`  ${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms${cpu}${failed > 0 ? `, ${failed} failed` : ''}\n`);
  return { rps: result.requests.average, p99: result.latency.p99, failed, cpuPerRequestUs };
}

/** `median CPU µs/request of a, of b` for a figure, or '' when either is unknown. */
export function cpuFigure(a: readonly (number | undefined)[], b: readonly (number | undefined)[], names: [string, string]): string {
  const known = (xs: readonly (number | undefined)[]): number[] => xs.filter((x): x is number => x !== undefined).sort((x, y) => x - y);
  const [ka, kb] = [known(a), known(b)];
  if (ka.length === 0 || kb.length === 0) return '';
  const mid = (xs: number[]): number => xs[Math.floor(xs.length / 2)] as number;
  return `; server CPU per request ${mid(kb).toFixed(1)} µs (${names[1]}) vs ${mid(ka).toFixed(1)} µs (${names[0]})`;
}

/** Runs `task` for 0..count-1, `parallel` at a time. */
export async function inParallel(count: number, parallel: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
