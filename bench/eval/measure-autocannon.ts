import autocannon from 'autocannon';

export interface Measured {
  rps: number;
  p99: number;
  failed: number;
}

/**
 * A warm-up, then a measured autocannon run against `options.url`. `notModified`: the route answers
 * 304, which autocannon counts as non-2xx and which is then not a failure.
 */
export async function measureAutocannon(name: string, options: autocannon.Options, run: { connections: number; duration: number; warmup: number }, notModified = false): Promise<Measured> {
  await autocannon({ ...options, connections: run.connections, duration: run.warmup });
  const result = await autocannon({ ...options, connections: run.connections, duration: run.duration });
  const failed = result.errors + result.timeouts + (notModified ? 0 : result.non2xx);
  process.stderr.write(`  ${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms${failed > 0 ? `, ${failed} failed` : ''}\n`);
  return { rps: result.requests.average, p99: result.latency.p99, failed };
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
