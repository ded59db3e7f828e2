import { createHash } from 'node:crypto';
import { StatsigServer, type StatsigUser } from 'statsig-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../repo-entity.js';
import { compileConfigSpecs, compileConfigSpecsJson, SpecMemo, type CompileOptions, type CompileSource } from './compile-config-specs.js';
import type { ConfigSpecs } from './config-spec-types.js';

/**
 * The compiled specs are checked by the real `statsig-node` SDK, bootstrapped with them in local
 * mode (no network): what the SDK answers is what an app pointed at the console gets.
 */
const servers: StatsigServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.shutdown();
});

async function sdkFor(specs: ConfigSpecs, environment?: string): Promise<StatsigServer> {
  const server = new StatsigServer('secret-compile-test', {
    localMode: true,
    bootstrapValues: JSON.stringify(specs),
    disableAllLogging: true,
    initStrategyForIP3Country: 'none',
    ...(environment ? { environment: { tier: environment } } : {}),
  });
  servers.push(server);
  await server.initializeAsync();
  return server;
}

const OPTIONS: CompileOptions = { environments: [], targetApps: [], time: 1_700_000_000_000 };
const EMPTY: CompileSource = { gates: [], dynamicConfigs: [], segments: [], experiments: [], layers: [], holdouts: [] };
const users = (n: number, prefix = 'u'): StatsigUser[] => Array.from({ length: n }, (_, i) => ({ userID: `${prefix}${i}` }));
const publicRule = (id: string, passPercentage = 100, extra: JsonObject = {}): JsonObject => ({ id, name: id, passPercentage, conditions: [{ type: 'public' }], ...extra });

/** The bucketing docs/design.md describes ("Evaluation"), computed independently of both the compiler and the SDK. */
function bucket(input: string, of: number): number {
  return Number(createHash('sha256').update(input).digest().readBigUInt64BE(0) % BigInt(of));
}

describe('compileConfigSpecs, evaluated by statsig-node', () => {
  it('gates: conditions, segments, overrides, disabled and archived gates', async () => {
    const source: CompileSource = {
      ...EMPTY,
      segments: [
        { id: 'staff', type: 'rule_based', idType: 'userID', rules: [{ id: 'r1', name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] },
        { id: 'beta', type: 'id_list', idType: 'userID', ids: ['b1', 'B2'], rules: [] },
      ],
      gates: [
        { id: 'staff_only', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }] }] },
        { id: 'beta_only', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'beta', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['beta'] }] }] },
        { id: 'not_staff', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'x', passPercentage: 100, conditions: [{ type: 'fails_segment', targetValue: ['staff'] }] }] },
        { id: 'rich', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'ltv', passPercentage: 100, conditions: [{ type: 'custom_field', field: 'ltv', operator: 'gt', targetValue: 1000 }] }] },
        { id: 'new_app', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'v', passPercentage: 100, conditions: [{ type: 'app_version', operator: 'version_gte', targetValue: ['2.1.0'] }] }] },
        { id: 'in_de', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'de', passPercentage: 100, conditions: [{ type: 'country', operator: 'any', targetValue: ['DE'] }] }] },
        { id: 'off', isEnabled: false, idType: 'userID', rules: [publicRule('r1')] },
        { id: 'gone', isEnabled: true, status: 'Archived', idType: 'userID', rules: [publicRule('r1')] },
        {
          id: 'overridden',
          isEnabled: true,
          idType: 'userID',
          rules: [publicRule('r1', 0)],
          overrides: { passingUserIDs: ['vip'], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [{ environment: 'staging', passingIDs: ['tester'], failingIDs: [] }] },
        },
        { id: 'company_gate', isEnabled: true, idType: 'companyID', rules: [{ id: 'r1', name: 'acme', passPercentage: 100, conditions: [{ type: 'unit_id', operator: 'any', targetValue: ['acme'] }] }] },
      ],
    };
    const sdk = await sdkFor(compileConfigSpecs(source, OPTIONS));
    expect(sdk.checkGateSync({ userID: '1', email: 'a@acme.example' }, 'staff_only')).toBe(true);
    expect(sdk.checkGateSync({ userID: '1', email: 'a@other.example' }, 'staff_only')).toBe(false);
    expect(sdk.checkGateSync({ userID: '1', email: 'a@other.example' }, 'not_staff')).toBe(true);
    expect(sdk.checkGateSync({ userID: 'b1' }, 'beta_only')).toBe(true);
    // An id list matches ids exactly.
    expect(sdk.checkGateSync({ userID: 'b2' }, 'beta_only')).toBe(false);
    expect(sdk.checkGateSync({ userID: 'B2' }, 'beta_only')).toBe(true);
    expect(sdk.checkGateSync({ userID: '1', custom: { ltv: 1500 } }, 'rich')).toBe(true);
    expect(sdk.checkGateSync({ userID: '1', custom: { ltv: 10 } }, 'rich')).toBe(false);
    expect(sdk.checkGateSync({ userID: '1', appVersion: '2.10.0' }, 'new_app')).toBe(true);
    expect(sdk.checkGateSync({ userID: '1', appVersion: '2.0.9' }, 'new_app')).toBe(false);
    expect(sdk.checkGateSync({ userID: '1', country: 'DE' }, 'in_de')).toBe(true);
    expect(sdk.checkGateSync({ userID: '1' }, 'off')).toBe(false);
    expect(sdk.getFeatureGateSync({ userID: '1' }, 'gone').evaluationDetails?.reason).toBe('Unrecognized');
    expect(sdk.checkGateSync({ userID: 'vip' }, 'overridden')).toBe(true);
    expect(sdk.checkGateSync({ userID: 'tester' }, 'overridden')).toBe(false);
    expect(sdk.checkGateSync({ userID: 'x', customIDs: { companyID: 'acme' } }, 'company_gate')).toBe(true);
    expect(sdk.checkGateSync({ userID: 'acme' }, 'company_gate')).toBe(false);
    const staging = await sdkFor(compileConfigSpecs(source, OPTIONS), 'staging');
    expect(staging.checkGateSync({ userID: 'tester' }, 'overridden')).toBe(true);
  });

  it('buckets a unit as sha256(salt.ruleSalt.unitID) says, with salts that survive a rename and a reorder', async () => {
    const gate = (rules: JsonObject[], name = 'Rollout'): JsonObject => ({ id: 'rollout', name, isEnabled: true, idType: 'userID', rules });
    const first = compileConfigSpecs({ ...EMPTY, gates: [gate([publicRule('keep', 30)])] }, OPTIONS);
    const spec = first.feature_gates[0];
    const sdk = await sdkFor(first);
    const expected = users(2000).map((u) => bucket(`${spec?.salt}.keep.${u.userID}`, 10000) < 3000);
    expect(users(2000).map((u) => sdk.checkGateSync(u, 'rollout'))).toEqual(expected);
    const share = expected.filter(Boolean).length / expected.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
    // Renamed gate and rule, another rule in front that no one matches: the same units pass.
    const moved = compileConfigSpecs(
      { ...EMPTY, gates: [gate([{ id: 'other', name: 'nobody', passPercentage: 100, conditions: [{ type: 'user_id', operator: 'any', targetValue: ['nobody'] }] }, { ...publicRule('keep', 30), name: 'renamed' }], 'Renamed')] },
      OPTIONS,
    );
    const again = await sdkFor(moved);
    expect(users(2000).map((u) => again.checkGateSync(u, 'rollout'))).toEqual(expected);
  });

  it('a condition the SDK cannot evaluate makes the rule unsupported, never an answer', async () => {
    const source: CompileSource = {
      ...EMPTY,
      gates: [
        { id: 'odd', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'x', passPercentage: 100, conditions: [{ type: 'some_future_type', operator: 'any', targetValue: ['a'] }] }] },
        { id: 'odd_op', isEnabled: true, idType: 'userID', rules: [{ id: 'r1', name: 'x', passPercentage: 100, conditions: [{ type: 'email', operator: 'sounds_like', targetValue: ['a'] }] }] },
      ],
    };
    const sdk = await sdkFor(compileConfigSpecs(source, OPTIONS));
    for (const name of ['odd', 'odd_op']) {
      const result = sdk.getFeatureGateSync({ userID: '1', email: 'a' }, name);
      expect(result.value).toBe(false);
      expect(result.evaluationDetails?.reason).toBe('Unsupported');
    }
  });

  it('rule environments: a key of one environment fixes it; otherwise the SDK tier decides', async () => {
    const source: CompileSource = { ...EMPTY, gates: [{ id: 'staging_only', isEnabled: true, idType: 'userID', rules: [publicRule('r1', 100, { environments: ['staging'] })] }] };
    // The SDK writes the environment into the user object it is given: each check gets a fresh one.
    const u = (): StatsigUser => ({ userID: '1' });
    expect((await sdkFor(compileConfigSpecs(source, { ...OPTIONS, environments: ['staging'] }))).checkGateSync(u(), 'staging_only')).toBe(true);
    expect((await sdkFor(compileConfigSpecs(source, { ...OPTIONS, environments: ['production'] }))).checkGateSync(u(), 'staging_only')).toBe(false);
    // The key's environment wins over what the app claims.
    expect((await sdkFor(compileConfigSpecs(source, { ...OPTIONS, environments: ['production'] }), 'staging')).checkGateSync(u(), 'staging_only')).toBe(false);
    const open = compileConfigSpecs(source, OPTIONS);
    expect((await sdkFor(open)).checkGateSync(u(), 'staging_only')).toBe(false);
    expect((await sdkFor(open, 'staging')).checkGateSync(u(), 'staging_only')).toBe(true);
    const two = compileConfigSpecs(source, { ...OPTIONS, environments: ['production', 'development'] });
    expect((await sdkFor(two, 'staging')).checkGateSync(u(), 'staging_only')).toBe(false);
  });

  it('target apps: a key sees the entities of its apps and those of none', () => {
    const source: CompileSource = {
      ...EMPTY,
      gates: [
        { id: 'web_gate', isEnabled: true, idType: 'userID', rules: [], targetApps: ['web'] },
        { id: 'ios_gate', isEnabled: true, idType: 'userID', rules: [], targetApps: ['ios'] },
        { id: 'any_gate', isEnabled: true, idType: 'userID', rules: [] },
      ],
    };
    const names = (targetApps: string[]): string[] => compileConfigSpecs(source, { ...OPTIONS, targetApps }).feature_gates.map((g) => g.name);
    expect(names(['web'])).toEqual(['web_gate', 'any_gate']);
    expect(names([])).toEqual(['web_gate', 'ios_gate', 'any_gate']);
    expect(compileConfigSpecs(source, { ...OPTIONS, targetApps: ['web'] }).app_id).toBe('web');
  });

  it('dynamic configs: rules, variants split by bucket, the default', async () => {
    const source: CompileSource = {
      ...EMPTY,
      dynamicConfigs: [
        {
          id: 'pricing',
          isEnabled: true,
          idType: 'userID',
          defaultValue: { price: 10 },
          rules: [
            { id: 'de', name: 'de', passPercentage: 100, conditions: [{ type: 'country', operator: 'any', targetValue: ['DE'] }], returnValue: { price: 9 } },
            {
              id: 'split',
              name: 'split',
              passPercentage: 50,
              conditions: [{ type: 'public' }],
              variants: [
                { id: 'a', name: 'A', passPercentage: 50, returnValue: { price: 11 } },
                { id: 'b', name: 'B', passPercentage: 50, returnValue: { price: 12 } },
              ],
            },
          ],
        },
      ],
    };
    const sdk = await sdkFor(compileConfigSpecs(source, OPTIONS));
    expect(sdk.getConfigSync({ userID: '1', country: 'DE' }, 'pricing').value).toEqual({ price: 9 });
    const counts = new Map<number, number>();
    for (const u of users(4000)) {
      const price = sdk.getConfigSync(u, 'pricing').get('price', 0);
      counts.set(price, (counts.get(price) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([10, 11, 12]);
    expect(counts.get(10)).toBeGreaterThan(1800);
    expect(counts.get(10)).toBeLessThan(2200);
    expect(counts.get(11)).toBeGreaterThan(850);
    expect(counts.get(12)).toBeGreaterThan(850);
  });

  const experiment = (id: string, extra: JsonObject = {}): JsonObject => ({
    id,
    idType: 'userID',
    status: 'active',
    startTime: 1000,
    allocation: 100,
    controlGroupID: 'c',
    groups: [
      { id: 'c', name: 'Control', size: 50, parameterValues: { color: 'blue' } },
      { id: 't', name: 'Test', size: 50, parameterValues: { color: 'green' } },
    ],
    ...extra,
  });

  it('experiments: only running ones assign; shipped give the launched group, others the control', async () => {
    const source: CompileSource = {
      ...EMPTY,
      experiments: [
        experiment('running', { allocation: 40, userIDOverrides: [{ groupID: 't', ids: ['forced'] }] }),
        experiment('setup', { status: 'setup', startTime: undefined }),
        experiment('shipped', { status: 'decision_made', launchedGroupID: 't' }),
        experiment('abandoned', { status: 'abandoned' }),
      ],
    };
    const sdk = await sdkFor(compileConfigSpecs(source, OPTIONS));
    const groups = new Map<string, number>();
    for (const u of users(3000)) {
      const result = sdk.getExperimentSync(u, 'running');
      const key = `${result.getGroupName() ?? 'none'}:${String(result.get('color', ''))}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
      expect(sdk.getExperimentSync(u, 'setup').value).toEqual({ color: 'blue' });
      expect(sdk.getExperimentSync(u, 'abandoned').value).toEqual({ color: 'blue' });
      expect(sdk.getExperimentSync(u, 'shipped').value).toEqual({ color: 'green' });
    }
    // 40% allocated, split evenly; the rest get the control's values outside the experiment.
    expect(groups.get('none:blue')).toBeGreaterThan(1650);
    expect(groups.get('none:blue')).toBeLessThan(1950);
    expect(groups.get('Control:blue')).toBeGreaterThan(450);
    expect(groups.get('Test:green')).toBeGreaterThan(450);
    expect(sdk.getExperimentSync({ userID: 'forced' }, 'running').value).toEqual({ color: 'green' });
    expect(sdk.getExperimentSync({ userID: 'forced' }, 'running').getGroupName()).toBe('Test');
  });

  it('experiments run in production and the non-production environments they name', async () => {
    const source: CompileSource = { ...EMPTY, experiments: [experiment('prod_only'), experiment('staging_too', { enabledNonProdEnvironments: ['staging'] })] };
    const inGroup = (sdk: StatsigServer, name: string): number => users(200).filter((x) => sdk.getExperimentSync(x, name).getGroupName() !== null).length;
    const fixedStaging = await sdkFor(compileConfigSpecs(source, { ...OPTIONS, environments: ['staging'] }));
    expect(inGroup(fixedStaging, 'prod_only')).toBe(0);
    expect(inGroup(fixedStaging, 'staging_too')).toBe(200);
    const active = (specs: ConfigSpecs, name: string): boolean | undefined => specs.dynamic_configs.find((c) => c.name === name)?.isActive;
    const staging = compileConfigSpecs(source, { ...OPTIONS, environments: ['staging'] });
    expect([active(staging, 'prod_only'), active(staging, 'staging_too')]).toEqual([false, true]);
    const open = compileConfigSpecs(source, OPTIONS);
    expect([active(open, 'prod_only'), active(open, 'staging_too')]).toEqual([true, true]);
    expect(inGroup(await sdkFor(open), 'prod_only')).toBe(200);
    expect(inGroup(await sdkFor(open, 'production'), 'prod_only')).toBe(200);
    expect(inGroup(await sdkFor(open, 'staging'), 'prod_only')).toBe(0);
    expect(inGroup(await sdkFor(open, 'staging'), 'staging_too')).toBe(200);
  });

  it('layers: experiments share the layer exclusively; the layer serves the defaults elsewhere', async () => {
    const layer = { id: 'checkout', idType: 'userID', parameters: [{ name: 'color', type: 'string', defaultValue: 'grey' }, { name: 'one_page', type: 'boolean', defaultValue: false }] };
    const source: CompileSource = {
      ...EMPTY,
      layers: [layer],
      experiments: [
        experiment('colors', { layerID: 'checkout', allocation: 40, startTime: 1000 }),
        experiment('pages', {
          layerID: 'checkout',
          allocation: 50,
          startTime: 2000,
          groups: [
            { id: 'c2', name: 'Control', size: 50, parameterValues: { one_page: false } },
            { id: 't2', name: 'One page', size: 50, parameterValues: { one_page: true } },
          ],
          controlGroupID: 'c2',
        }),
      ],
    };
    const specs = compileConfigSpecs(source, OPTIONS);
    expect(specs.layers).toEqual({ checkout: ['colors', 'pages'] });
    const sdk = await sdkFor(specs);
    let colors = 0;
    let pages = 0;
    for (const u of users(3000)) {
      const inColors = sdk.getExperimentSync(u, 'colors').getGroupName() !== null;
      const inPages = sdk.getExperimentSync(u, 'pages').getGroupName() !== null;
      expect(inColors && inPages).toBe(false);
      const layerValue = sdk.getLayerSync(u, 'checkout');
      if (inColors) {
        colors++;
        expect(layerValue.get('color', '')).toBe(sdk.getExperimentSync(u, 'colors').get('color', ''));
        expect(layerValue.get('one_page', true)).toBe(false);
      } else if (inPages) {
        pages++;
        expect(layerValue.get('one_page', false)).toBe(sdk.getExperimentSync(u, 'pages').get('one_page', false));
        expect(layerValue.get('color', '')).toBe('grey');
      } else {
        expect(layerValue.get('color', '')).toBe('grey');
        expect(layerValue.get('one_page', true)).toBe(false);
      }
    }
    expect(colors / 3000).toBeGreaterThan(0.35);
    expect(colors / 3000).toBeLessThan(0.45);
    expect(pages / 3000).toBeGreaterThan(0.45);
    expect(pages / 3000).toBeLessThan(0.55);
    // Ship "colors": the layer now serves its launched group to everyone outside a running experiment;
    // "pages" keeps exactly the units it had.
    const shipped = compileConfigSpecs(
      { ...source, experiments: [{ ...(source.experiments[0] as JsonObject), status: 'decision_made', launchedGroupID: 't', endTime: 3000 }, source.experiments[1] as JsonObject] },
      OPTIONS,
    );
    const after = await sdkFor(shipped);
    for (const u of users(1000)) {
      expect(after.getExperimentSync(u, 'pages').getGroupName()).toBe(sdk.getExperimentSync(u, 'pages').getGroupName());
      if (after.getExperimentSync(u, 'pages').getGroupName() === null) expect(after.getLayerSync(u, 'checkout').get('color', '')).toBe('green');
    }
  });

  it('holdouts hold a share of units out of the gates, experiments and layers they name', async () => {
    const source: CompileSource = {
      ...EMPTY,
      gates: [{ id: 'launch', isEnabled: true, idType: 'userID', rules: [publicRule('r1')] }],
      experiments: [experiment('exp')],
      holdouts: [{ id: 'h', isEnabled: true, idType: 'userID', passPercentage: 10, gateIDs: ['launch'], experimentIDs: ['exp'], layerIDs: [] }],
    };
    const sdk = await sdkFor(compileConfigSpecs(source, OPTIONS));
    let held = 0;
    for (const u of users(3000)) {
      const out = sdk.checkGateSync(u, 'holdout:h');
      if (out) held++;
      expect(sdk.checkGateSync(u, 'launch')).toBe(!out);
      expect(sdk.getExperimentSync(u, 'exp').getGroupName() === null).toBe(out);
    }
    expect(held / 3000).toBeGreaterThan(0.07);
    expect(held / 3000).toBeLessThan(0.13);
  });
});

describe('compileConfigSpecsJson', () => {
  const gate = (id: string, passPercentage = 100): JsonObject => ({ id, isEnabled: true, idType: 'userID', rules: [publicRule('r1', passPercentage)] });
  const source = (): CompileSource => ({
    ...EMPTY,
    gates: [gate('a'), gate('b')],
    dynamicConfigs: [{ id: 'c', isEnabled: true, idType: 'userID', defaultValue: { x: 1 }, rules: [] }],
    segments: [{ id: 's', type: 'id_list', idType: 'userID', ids: ['1'] }],
    holdouts: [{ id: 'h', isEnabled: true, idType: 'userID', passPercentage: 5, gateIDs: ['a'], experimentIDs: [], layerIDs: [] }],
  });

  it('gives the JSON of the same specs, reusing the specs of the entities that did not change', () => {
    const memo = new SpecMemo();
    const first = source();
    const one = compileConfigSpecsJson(first, OPTIONS, memo);
    expect(JSON.parse(one.json.toString())).toEqual(compileConfigSpecs(first, OPTIONS));
    // b written (a new object), a and c as they were.
    const second: CompileSource = { ...first, gates: [first.gates[0] as JsonObject, gate('b', 10)] };
    const two = compileConfigSpecsJson(second, OPTIONS, memo);
    expect(JSON.parse(two.json.toString())).toEqual(compileConfigSpecs(second, OPTIONS));
    expect(two.specs.feature_gates[0]).toBe(one.specs.feature_gates[0]);
    expect(two.specs.feature_gates[1]).not.toBe(one.specs.feature_gates[1]);
    expect(two.specs.dynamic_configs[0]).toBe(one.specs.dynamic_configs[0]);
    // A holdout written: every gate is compiled again (holdouts go into gates).
    const third: CompileSource = { ...second, holdouts: [{ ...(first.holdouts[0] as JsonObject), gateIDs: ['b'] }] };
    const three = compileConfigSpecsJson(third, OPTIONS, memo);
    expect(JSON.parse(three.json.toString())).toEqual(compileConfigSpecs(third, OPTIONS));
    expect(three.specs.feature_gates[0]).not.toBe(two.specs.feature_gates[0]);
    // Another key scope: compiled for it, not taken from the other's.
    const staging = compileConfigSpecsJson(third, { ...OPTIONS, environments: ['staging'] }, memo);
    expect(JSON.parse(staging.json.toString())).toEqual(compileConfigSpecs(third, { ...OPTIONS, environments: ['staging'] }));
  });
});

describe('compileConfigSpecsJson, experiments and layers', () => {
  it('reuses them while their layer and its experiments are unchanged, and recompiles them with it', () => {
    const memo = new SpecMemo();
    const layer = { id: 'checkout', idType: 'userID', parameters: [{ name: 'color', type: 'string', defaultValue: 'grey' }] };
    const inLayer = (id: string, extra: JsonObject = {}): JsonObject => ({
      id,
      idType: 'userID',
      status: 'active',
      startTime: 1,
      layerID: 'checkout',
      allocation: 30,
      groups: [{ id: `${id}_c`, name: 'Control', size: 100, parameterValues: { color: 'blue' } }],
      inlineTargetingRules: [{ id: 'r', name: 'all', passPercentage: 100, conditions: [{ type: 'public' }] }],
      ...extra,
    });
    const alone = { id: 'alone', idType: 'userID', status: 'active', startTime: 1, allocation: 100, groups: [{ id: 'g', name: 'Control', size: 100, parameterValues: {} }] };
    const first: CompileSource = { ...EMPTY, layers: [layer], experiments: [inLayer('a'), inLayer('b', { startTime: 2 }), alone] };
    const one = compileConfigSpecsJson(first, OPTIONS, memo);
    expect(JSON.parse(one.json.toString())).toEqual(compileConfigSpecs(first, OPTIONS));
    const same = compileConfigSpecsJson({ ...first, experiments: [...first.experiments] }, OPTIONS, memo);
    expect(same.specs.dynamic_configs).toEqual(one.specs.dynamic_configs);
    same.specs.dynamic_configs.forEach((spec, i) => expect(spec).toBe(one.specs.dynamic_configs[i]));
    expect(same.specs.layer_configs[0]).toBe(one.specs.layer_configs[0]);
    expect(same.specs.feature_gates.map((g) => g.name)).toEqual(one.specs.feature_gates.map((g) => g.name));
    // b concludes: a and the layer are compiled again (the layer's defaults and buckets may change), "alone" is not.
    const second: CompileSource = { ...first, experiments: [first.experiments[0] as JsonObject, inLayer('b', { startTime: 2, status: 'decision_made', launchedGroupID: 'b_c', endTime: 3 }), alone] };
    const two = compileConfigSpecsJson(second, OPTIONS, memo);
    expect(JSON.parse(two.json.toString())).toEqual(compileConfigSpecs(second, OPTIONS));
    expect(two.specs.dynamic_configs[0]).not.toBe(one.specs.dynamic_configs[0]);
    expect(two.specs.dynamic_configs[2]).toBe(one.specs.dynamic_configs[2]);
    expect(two.specs.layer_configs[0]).not.toBe(one.specs.layer_configs[0]);
  });
});
