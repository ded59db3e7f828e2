import autocannon from 'autocannon';

/** The probe's target: p99 of a plain GET while the heavy lists run. */
export const NEIGHBOUR_PROBE_P99_TARGET_MS = 50;

export interface NeighbourResult {
  gates: number;
  heavyUrl: string;
  heavy: { rps: number; p50: number; p99: number; ok: number; non2xx: number };
  probe: { count: number; p50: number; p99: number; max: number; non2xx: number };
  ok: boolean;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/** Creates `count` gates, every other one tagged `big`, `concurrency` requests at a time. */
export async function seedGates(base: string, key: string, count: number, concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${base}/console/v1/gates`, {
        method: 'POST',
        headers: { 'SERVICE-API-KEY': key, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `neighbour_${i}`, name: `neighbour ${i}`, description: `gate ${i} of the neighbour round`, tags: i % 2 === 0 ? ['big', 'bench'] : ['bench'] }),
      });
      if (res.status !== 201) throw new Error(`seeding gate ${i}: HTTP ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * The "neighbour" round: `clients` connections run the heaviest list query the API allows (a filtered
 * page of 1,000 gates, which reads the whole kind) for `durationS` seconds, while a probe sends one
 * `GET /gates/{id}` at a time and measures each. The probe's p99 must stay within the target: one
 * key's heavy lists must not starve everyone else's reads.
 */
export async function neighbourRound(base: string, key: string, options: { gates: number; clients: number; durationS: number }): Promise<NeighbourResult> {
  const heavyUrl = `${base}/console/v1/gates?limit=1000&tags=big`;
  const probeUrl = `${base}/console/v1/gates/neighbour_1`;
  const headers = { 'SERVICE-API-KEY': key };
  // Warm-up, not measured: the first list of a kind parses it once (the store then keeps it).
  for (let i = 0; i < 3; i++) await (await fetch(heavyUrl, { headers })).arrayBuffer();
  let probing = true;
  const latencies: number[] = [];
  let probeNon2xx = 0;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      const res = await fetch(probeUrl, { headers });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status !== 200) probeNon2xx++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const heavy = await autocannon({ url: heavyUrl, headers, connections: options.clients, duration: options.durationS });
  probing = false;
  await probe;
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  return {
    gates: options.gates,
    heavyUrl,
    heavy: { rps: heavy.requests.average, p50: heavy.latency.p50, p99: heavy.latency.p99, ok: heavy['2xx'], non2xx: heavy.non2xx },
    probe: { count: sorted.length, p50: quantile(sorted, 0.5), p99, max: sorted.at(-1) ?? NaN, non2xx: probeNon2xx },
    ok: p99 <= NEIGHBOUR_PROBE_P99_TARGET_MS && probeNon2xx === 0 && heavy.non2xx === 0 && sorted.length > 0,
  };
}

export function describeNeighbour(result: NeighbourResult): string {
  const { probe, heavy } = result;
  return (
    `neighbour: GET /gates/{id} while ${result.heavyUrl.replace(/^https?:\/\/[^/]+/, '')} runs on 20 connections, ${result.gates} gates: ` +
    `probe p50 ${probe.p50.toFixed(1)} ms, p99 ${probe.p99.toFixed(1)} ms, max ${probe.max.toFixed(1)} ms over ${probe.count} requests (target p99 ≤ ${NEIGHBOUR_PROBE_P99_TARGET_MS} ms) ${result.ok ? 'ok' : 'MISSED'}; ` +
    `information: the filtered list ${Math.round(heavy.rps)} req/s, p50 ${heavy.p50} ms, p99 ${heavy.p99} ms (${heavy.ok} 2xx, ${heavy.non2xx} other)`
  );
}
