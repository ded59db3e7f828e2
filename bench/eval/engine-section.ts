import { performance } from 'node:perf_hooks';
import { hashIdForIdList } from '../../controller/core/eval/bucket.js';
import { SpecEvaluator } from '../../controller/core/eval/evaluate-spec.js';
import { generateUsers, HAND_MADE_ID_LISTS, handMadeSpecs } from '../../controller/test-support/hand-made-specs.js';
import { startOfflineSdk } from '../../controller/test-support/statsig-sdk.js';
import type { BenchRow } from './bench-row.js';

/**
 * The evaluation engine in process against the official `statsig-node` SDK evaluating the same
 * config specs for the same users in the same run: a gate with 5 rules (segment, email, countries,
 * versions, percentage) and an experiment in a layer under a holdout. Both sides get the same users
 * in the same order, alternating rounds so neither profits from a warmer machine. Target: ≥ 1.0×
 * the SDK's evaluations/s for each.
 */
export async function engineSection(options: { users: number; rounds: number }): Promise<BenchRow[]> {
  const specs = handMadeSpecs();
  const users = generateUsers(options.users, 7);
  const lists = new Map(Object.entries(HAND_MADE_ID_LISTS).map(([n, ids]) => [n, new Set(ids.map(hashIdForIdList))]));
  const engine = new SpecEvaluator(specs, { idListContains: (l, id) => lists.get(l)?.has(hashIdForIdList(id)) ?? false });
  const sdk = await startOfflineSdk(specs, HAND_MADE_ID_LISTS);
  const cases: { name: string; engine: (u: object) => unknown; sdk: (u: object) => unknown }[] = [
    { name: 'gate with 5 rules', engine: (u) => engine.checkGate('five_rules', u).value, sdk: (u) => sdk.getFeatureGateWithExposureLoggingDisabledSync(u, 'five_rules').value },
    { name: 'experiment in a layer under a holdout', engine: (u) => engine.getLayer('checkout_layer', u).jsonValue, sdk: (u) => sdk.getLayerWithExposureLoggingDisabledSync(u, 'checkout_layer')._value },
  ];
  const rows: BenchRow[] = [];
  try {
    for (const c of cases) {
      let engineMs = 0;
      let sdkMs = 0;
      // One unmeasured pass each warms the JIT (and both sides' caches alike).
      for (const u of users) {
        c.engine(u);
        c.sdk({ ...u });
      }
      for (let r = 0; r < options.rounds; r++) {
        const copies = users.map((u) => ({ ...u }));
        let t = performance.now();
        for (const u of copies) c.sdk(u);
        sdkMs += performance.now() - t;
        t = performance.now();
        for (const u of users) c.engine(u);
        engineMs += performance.now() - t;
      }
      const n = users.length * options.rounds;
      const ratio = sdkMs / engineMs;
      process.stderr.write(`  ${c.name}: engine ${Math.round((n / engineMs) * 1000)}/s, statsig-node ${Math.round((n / sdkMs) * 1000)}/s\n`);
      rows.push({ section: 'engine', measure: `${c.name}: engine / statsig-node evaluations per second`, figure: `${ratio.toFixed(2)}×`, target: '≥ 1.0×', ok: ratio >= 1.0 });
    }
  } finally {
    await sdk.shutdownAsync();
  }
  return rows;
}
