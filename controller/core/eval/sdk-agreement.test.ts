import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashIdForIdList } from './bucket.js';
import { SpecEvaluator } from './evaluate-spec.js';
import { generateUsers, HAND_MADE_ID_LISTS, handMadeSpecs } from '../../test-support/hand-made-specs.js';
import { sdkIpToCountry, sdkUserAgentParser, startOfflineSdk } from '../../test-support/statsig-sdk.js';

type Sdk = Awaited<ReturnType<typeof startOfflineSdk>>;

const specs = handMadeSpecs();
const users = generateUsers(1200);
const hashedLists = new Map(Object.entries(HAND_MADE_ID_LISTS).map(([name, ids]) => [name, new Set(ids.map(hashIdForIdList))]));
const engine = new SpecEvaluator(specs, {
  idListContains: (list, id) => hashedLists.get(list)?.has(hashIdForIdList(id)) ?? false,
  parseUserAgent: sdkUserAgentParser(),
  ipToCountry: sdkIpToCountry(),
});

let sdk: Sdk;
beforeAll(async () => {
  sdk = await startOfflineSdk(specs, HAND_MADE_ID_LISTS);
});
afterAll(async () => {
  await sdk.shutdownAsync();
});

describe('the engine agrees with statsig-node on hand-made specs', () => {
  it('answers every gate alike for every user', () => {
    const mismatches: string[] = [];
    const seen = new Map<string, Set<string>>();
    for (const user of users) {
      for (const g of specs.feature_gates) {
        const mine = engine.checkGate(g.name, user);
        const theirs = sdk.getFeatureGateWithExposureLoggingDisabledSync({ ...user }, g.name);
        if (mine.value !== theirs.value || mine.ruleID !== theirs.ruleID) {
          mismatches.push(`${g.name} ${JSON.stringify(user)}: engine ${mine.value}/${mine.ruleID} (${mine.reason}), sdk ${theirs.value}/${theirs.ruleID}`);
        }
        const outcomes = seen.get(g.name) ?? new Set();
        outcomes.add(`${mine.reason}:${mine.ruleID}:${mine.value}`);
        seen.set(g.name, outcomes);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    // The users exercise the rules: each gate gives more than one answer, except the ones that cannot.
    for (const [name, outcomes] of seen) {
      if (['disabled_gate', 'unsupported_via_gate', 'apps'].includes(name)) continue;
      expect(outcomes.size, name).toBeGreaterThan(1);
    }
  });

  it('answers every dynamic config and experiment alike for every user', () => {
    const mismatches: string[] = [];
    for (const user of users) {
      for (const c of specs.dynamic_configs) {
        const mine = engine.getConfig(c.name, user);
        const theirs = c.entity === 'experiment'
          ? sdk.getExperimentWithExposureLoggingDisabledSync({ ...user }, c.name)
          : sdk.getConfigWithExposureLoggingDisabledSync({ ...user }, c.name);
        const same = JSON.stringify(mine.jsonValue) === JSON.stringify(theirs.value) && mine.ruleID === theirs.getRuleID() && mine.groupName === theirs.getGroupName();
        if (!same) mismatches.push(`${c.name} ${JSON.stringify(user)}: engine ${JSON.stringify(mine.jsonValue)}/${mine.ruleID}/${mine.groupName}, sdk ${JSON.stringify(theirs.value)}/${theirs.getRuleID()}/${theirs.getGroupName()}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('answers the layer alike, including the experiment each unit is allocated to', () => {
    const mismatches: string[] = [];
    const delegates = new Set<string | null>();
    for (const user of users) {
      const mine = engine.getLayer('checkout_layer', user);
      const theirs = sdk.getLayerWithExposureLoggingDisabledSync({ ...user }, 'checkout_layer');
      delegates.add(mine.configDelegate);
      const same = JSON.stringify(mine.jsonValue) === JSON.stringify(theirs._value) && mine.ruleID === theirs.getRuleID()
        && mine.groupName === theirs.getGroupName() && (mine.configDelegate ?? '') === (theirs.getAllocatedExperimentName() ?? '');
      if (!same) mismatches.push(`${JSON.stringify(user)}: engine ${JSON.stringify(mine.jsonValue)}/${mine.ruleID}/${mine.configDelegate}, sdk ${JSON.stringify(theirs._value)}/${theirs.getRuleID()}/${theirs.getAllocatedExperimentName()}`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect([...delegates].sort()).toEqual(['checkout_exp', 'checkout_exp_two', null].sort());
  });

  it('covers every operator the engine supports', async () => {
    const { SUPPORTED_OPERATORS } = await import('./operators.js');
    const used = new Set<string>();
    for (const s of [...specs.feature_gates, ...specs.dynamic_configs, ...specs.layer_configs]) {
      for (const r of s.rules) for (const c of r.conditions) if (c.operator) used.add(c.operator);
    }
    expect([...SUPPORTED_OPERATORS].filter((op) => !used.has(op))).toEqual([]);
  });
});
