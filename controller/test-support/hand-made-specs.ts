import type { ConfigSpec, ConfigSpecs, SpecCondition, SpecRule } from '../core/eval/config-spec-types.js';
import type { EvalUser } from '../core/eval/eval-user.js';

/**
 * Config specs written by hand to cover every condition type and operator the Statsig SDK knows
 * (plus ones it does not), experiments in a layer under a holdout, segments, id lists and target
 * apps; and users drawn from pools that make each condition go both ways. Tests compare the engine
 * with `statsig-node` on them; the benchmark times both.
 */

function cond(type: string, operator: string | null, targetValue: unknown, field: string | null = null, extra: Partial<SpecCondition> = {}): SpecCondition {
  return { type, operator, targetValue, field, additionalValues: null, idType: 'userID', ...extra };
}

let ruleSeq = 0;
function rule(name: string, conditions: SpecCondition[], passPercentage = 100, returnValue: unknown = true, extra: Partial<SpecRule> = {}): SpecRule {
  ruleSeq += 1;
  return { name, id: `rule_${ruleSeq}`, salt: `salt_${ruleSeq}`, passPercentage, conditions, returnValue, idType: 'userID', ...extra };
}

function gate(name: string, rules: SpecRule[], extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return { name, type: 'feature_gate', salt: `${name}_salt`, enabled: true, defaultValue: false, idType: 'userID', rules, entity: 'feature_gate', ...extra };
}

function config(name: string, rules: SpecRule[], defaultValue: unknown, extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return { name, type: 'dynamic_config', salt: `${name}_salt`, enabled: true, defaultValue, idType: 'userID', rules, entity: 'dynamic_config', ...extra };
}

const ua = (field: string) => field;

export function handMadeSpecs(): ConfigSpecs {
  ruleSeq = 0;
  const gates: ConfigSpec[] = [
    gate('public_half', [rule('half', [cond('public', null, null)], 50)]),
    gate('email_ops', [
      rule('ends', [cond('user_field', 'str_ends_with_any', ['@acme.example', '@ACME.ORG'], 'email')], 80),
      rule('starts', [cond('user_field', 'str_starts_with_any', ['admin', 'Root'], 'email')]),
      rule('contains', [cond('user_field', 'str_contains_any', ['test', '+'], 'email')], 30),
      rule('contains_none', [cond('user_field', 'str_contains_none', ['x', 'q'], 'email'), cond('user_field', 'any', ['bob@other.example', 'CAROL@other.example'], 'email')]),
      rule('none', [cond('user_field', 'none', ['dave@other.example'], 'email'), cond('user_field', 'any_case_sensitive', ['Erin@other.example'], 'email')]),
      rule('none_cs', [cond('user_field', 'none_case_sensitive', ['frank@other.example'], 'email'), cond('user_field', 'str_matches', '^[a-f].*@other', 'email')], 60),
      rule('bad_regex', [cond('user_field', 'str_matches', '([', 'email')]),
    ]),
    gate('numbers', [
      rule('gt', [cond('user_field', 'gt', 60, 'age')]),
      rule('gte_lte', [cond('user_field', 'gte', '18', 'age'), cond('user_field', 'lte', 30, 'age')], 70),
      rule('lt', [cond('user_field', 'lt', 13, 'age')]),
      rule('eq', [cond('user_field', 'eq', 42, 'age')]),
      rule('neq', [cond('user_field', 'neq', 'gold', 'plan'), cond('user_field', 'any', ['silver', 'bronze'], 'plan')], 25),
      rule('eq_str', [cond('user_field', 'eq', 'gold', 'plan')]),
    ]),
    gate('versions', [
      rule('gt', [cond('user_field', 'version_gt', '3.0', 'appVersion')]),
      rule('gte', [cond('user_field', 'version_gte', '2.5.0', 'appVersion')], 50),
      rule('eq', [cond('user_field', 'version_eq', '2.0', 'appVersion')]),
      rule('neq_lt', [cond('user_field', 'version_neq', '1.0.0', 'appVersion'), cond('user_field', 'version_lt', '2', 'appVersion')]),
      rule('lte', [cond('user_field', 'version_lte', '1.0.0-beta', 'appVersion')], 90),
    ]),
    gate('dates', [
      rule('before', [cond('user_field', 'before', '2024-01-01T00:00:00Z', 'signupAt')]),
      rule('after', [cond('user_field', 'after', 1735689600, 'signupAt')], 50),
      rule('on', [cond('user_field', 'on', '2024-06-15T12:00:00Z', 'signupAt')]),
      rule('now', [cond('current_time', 'after', 1600000000000, null), cond('user_field', 'any', ['beta'], 'cohort')]),
      rule('now_before', [cond('current_time', 'before', 1600000000, null)]),
    ]),
    gate('arrays', [
      rule('any', [cond('user_field', 'array_contains_any', ['red', 3], 'tags')]),
      rule('all', [cond('user_field', 'array_contains_all', ['blue', 'green'], 'tags')], 40),
      rule('none', [cond('user_field', 'array_contains_none', ['black'], 'tags'), cond('user_field', 'not_array_contains_all', ['blue', 'white'], 'tags')], 20),
    ]),
    gate('geo', [
      rule('country', [cond('ip_based', 'any', ['US', 'de'], 'country')]),
      rule('locale', [cond('user_field', 'str_starts_with_any', ['fr', 'es'], 'locale')], 50),
      rule('country_field', [cond('user_field', 'none', ['US', 'DE', 'FR'], 'country'), cond('user_field', 'neq', null, 'country')]),
    ]),
    gate('agents', [
      rule('browser', [cond('ua_based', 'any', ['Chrome', 'Mobile Safari'], ua('browser_name'))]),
      rule('os', [cond('ua_based', 'any', ['Mac OS X', 'iOS'], ua('os_name')), cond('ua_based', 'version_gte', '14', ua('os_version'))], 75),
      rule('browser_version', [cond('ua_based', 'version_gt', '100', ua('browserVersion'))]),
    ]),
    gate('tiers', [
      rule('prod', [cond('environment_field', 'any', ['production'], 'tier')]),
      rule('staging', [cond('environment_field', 'any', ['staging'], 'tier')], 50),
    ]),
    gate('companies', [
      rule('listed', [cond('unit_id', 'any', ['c1', 'c2'], null, { idType: 'companyID' })], 100, true, { idType: 'companyID' }),
      rule('bucket', [cond('user_bucket', 'lt', 300, null, { idType: 'companyID', additionalValues: { salt: 'companies_bucket' } })], 50, true, { idType: 'companyID' }),
    ], { idType: 'companyID' }),
    gate('segment:beta_testers', [
      rule('list', [cond('unit_id', 'in_segment_list', 'vip_users', null)]),
      rule('emails', [cond('user_field', 'str_ends_with_any', ['@beta.example'], 'email')]),
    ], { entity: 'segment' }),
    gate('segment:not_listed', [rule('list', [cond('unit_id', 'not_in_segment_list', 'vip_users', null), cond('user_field', 'gte', 50, 'age')])], { entity: 'segment' }),
    gate('gates_of_gates', [
      rule('seg', [cond('pass_gate', null, 'segment:beta_testers', null)]),
      rule('fail', [cond('fail_gate', null, 'numbers', null), cond('pass_gate', null, 'public_half', null)], 50),
      rule('multi', [cond('multi_pass_gate', null, ['versions', 'arrays'], null)]),
      rule('multi_fail', [cond('multi_fail_gate', null, ['tiers', 'geo'], null)], 30),
      rule('missing', [cond('pass_gate', null, 'no_such_gate', null)]),
    ]),
    gate('not_listed_gate', [rule('seg', [cond('pass_gate', null, 'segment:not_listed', null)])]),
    gate('apps', [rule('app', [cond('target_app', 'any', ['web'], null)])]),
    gate('unsupported_type', [
      rule('first', [cond('user_field', 'any', ['gold'], 'plan')]),
      rule('mystery', [cond('mystery_field', 'any', ['x'], 'email')]),
    ]),
    gate('unsupported_operator', [
      rule('first', [cond('user_field', 'any', ['silver'], 'plan')]),
      rule('fancy', [cond('user_field', 'fancy_op', ['x'], 'email'), cond('public', null, null)]),
    ]),
    gate('unsupported_via_gate', [rule('via', [cond('fail_gate', null, 'unsupported_type', null)])]),
    gate('disabled_gate', [rule('all', [cond('public', null, null)])], { enabled: false }),
    gate('custom_unit_percentage', [rule('half', [cond('public', null, null)], 50, true, { idType: 'companyID' })], { idType: 'companyID' }),
    gate('five_rules', [
      rule('segment', [cond('pass_gate', null, 'segment:beta_testers', null)]),
      rule('staff', [cond('user_field', 'str_ends_with_any', ['@acme.example'], 'email')]),
      rule('countries', [cond('user_field', 'any', ['NZ', 'AU', 'CA'], 'country')], 50),
      rule('new_versions', [cond('user_field', 'version_gte', '3.0.0', 'appVersion')], 20),
      rule('everyone', [cond('public', null, null)], 10),
    ]),
    gate('holdout:global', [rule('held', [cond('public', null, null)], 10)], { entity: 'holdout' }),
    gate('checkout_targeting', [rule('grown_ups', [cond('user_field', 'gte', 18, 'age')])]),
  ];

  const layerSalt = 'checkout_layer_salt';
  const expBuckets = Array.from({ length: 600 }, (_, i) => i);
  const defaults = { color: 'grey', size: 1 };
  const experiment = config('checkout_exp', [
    rule('holdout', [cond('pass_gate', null, 'holdout:global', null)], 0, defaults),
    rule('layerAssignment', [cond('user_bucket', 'none', expBuckets, null, { additionalValues: { salt: layerSalt } })], 0, defaults),
    rule('targetingGate', [cond('fail_gate', null, 'checkout_targeting', null)], 0, defaults, { id: 'targetingGate' }),
    rule('Control', [cond('user_bucket', 'lt', 500, null, { additionalValues: { salt: 'checkout_exp_groups' } })], 100, { color: 'grey', size: 1 }, { groupName: 'Control', isExperimentGroup: true }),
    rule('Test', [cond('user_bucket', 'lt', 1000, null, { additionalValues: { salt: 'checkout_exp_groups' } })], 100, { color: 'green', size: 2 }, { groupName: 'Test', isExperimentGroup: true }),
  ], defaults, { entity: 'experiment', isActive: true, hasSharedParams: true, explicitParameters: ['color', 'size'] });
  const otherExperiment = config('checkout_exp_two', [
    rule('Control', [cond('user_bucket', 'lt', 300, null, { additionalValues: { salt: 'exp_two_groups' } })], 100, { color: 'grey', size: 1 }, { groupName: 'Control', isExperimentGroup: true }),
    rule('Bold', [cond('user_bucket', 'lt', 1000, null, { additionalValues: { salt: 'exp_two_groups' } })], 100, { color: 'red', size: 1 }, { groupName: 'Bold', isExperimentGroup: true }),
  ], defaults, { entity: 'experiment', isActive: true, hasSharedParams: true, explicitParameters: ['color'] });
  const configs: ConfigSpec[] = [
    config('pricing', [
      rule('staff', [cond('user_field', 'str_ends_with_any', ['@acme.example'], 'email')], 100, { price: 0, label: 'staff' }),
      rule('eu', [cond('user_field', 'any', ['DE', 'FR', 'ES'], 'country')], 50, { price: 9, currency: 'EUR' }),
      rule('beta', [cond('pass_gate', null, 'segment:beta_testers', null)], 100, { price: 5 }),
    ], { price: 10, currency: 'USD' }),
    config('companies_config', [rule('half', [cond('public', null, null)], 50, { tier: 'b' }, { idType: 'companyID' })], { tier: 'a' }, { idType: 'companyID' }),
    config('disabled_config', [rule('all', [cond('public', null, null)], 100, { on: true })], { on: false }, { enabled: false }),
    experiment,
    otherExperiment,
  ];
  const layer: ConfigSpec = {
    name: 'checkout_layer', type: 'dynamic_config', salt: layerSalt, enabled: true, defaultValue: defaults, idType: 'userID', entity: 'layer',
    rules: [
      rule('exp_one', [cond('user_bucket', 'any', expBuckets, null, { additionalValues: { salt: layerSalt } })], 100, defaults, { configDelegate: 'checkout_exp' }),
      rule('exp_two', [cond('user_bucket', 'lt', 900, null, { additionalValues: { salt: layerSalt } })], 100, defaults, { configDelegate: 'checkout_exp_two' }),
      rule('gone', [cond('user_bucket', 'lt', 950, null, { additionalValues: { salt: layerSalt } })], 100, { color: 'blue', size: 3 }, { configDelegate: 'no_such_experiment' }),
    ],
  };
  return {
    has_updates: true,
    time: 1700000000000,
    feature_gates: gates,
    dynamic_configs: configs,
    layer_configs: [layer],
    layers: { checkout_layer: ['checkout_exp', 'checkout_exp_two'] },
    app_id: 'web',
  };
}

export const HAND_MADE_ID_LISTS: Record<string, string[]> = {
  vip_users: ['u3', 'u17', 'u42', 'u99', 'u123', 'u500', 'u777'],
};

/** A deterministic pseudo-random sequence (mulberry32), so a failing user can be reproduced. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EMAILS = ['ann@acme.example', 'ADMIN@corp.example', 'root@x.example', 'tester@other.example', 'a+b@other.example', 'bob@other.example', 'Carol@other.example',
  'dave@other.example', 'Erin@other.example', 'erin@other.example', 'frank@other.example', 'fay@other.example', 'zed@beta.example', 'quinn@acme.org'];
const IPS = ['8.8.8.8', '81.2.69.142', '2.16.0.1', '1.1.1.1', '203.0.113.9', '5.9.0.1', '24.48.0.1', 'not-an-ip', '185.60.216.35'];
const AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 Mobile Safari/537.36',
  'curl/8.4.0',
];
const VERSIONS = ['1.0.0', '1.0.0-beta', '1.5', '2', '2.0', '2.5.1', '3.0', '3.0.1', '10.0', 'x.y', ''];
const COUNTRIES = ['US', 'DE', 'FR', 'NZ', 'AU', 'CA', 'JP', 'us'];
const LOCALES = ['en_US', 'fr_FR', 'es-ES', 'de_DE', 'FR_ca'];
const AGES: unknown[] = [5, 12, 13, 18, '25', 30, 31, 42, '42', 55, 61, 'old', null];
const PLANS = ['gold', 'silver', 'bronze', 'GOLD'];
const SIGNUPS: unknown[] = ['2023-05-01T00:00:00Z', '2024-06-15T08:00:00Z', '2024-06-15T23:30:00Z', 1735689700, 1740000000000, '1700000000', 'someday'];
const TAGS: unknown[] = [['red'], ['blue', 'green'], ['blue', 'green', 'white'], ['black', 'red'], [3], ['3'], [], 'red'];
const TIERS = ['production', 'staging', 'development'];

function pick<T>(rand: () => number, pool: readonly T[]): T {
  return pool[Math.floor(rand() * pool.length)] as T;
}

/** `count` users with each field present about two times in three. */
export function generateUsers(count: number, seed = 36): EvalUser[] {
  const rand = seededRandom(seed);
  const maybe = <T>(pool: readonly T[]): T | undefined => (rand() < 0.67 ? pick(rand, pool) : undefined);
  const users: EvalUser[] = [];
  for (let i = 0; i < count; i++) {
    const custom: Record<string, unknown> = {};
    for (const [k, pool] of [['age', AGES], ['plan', PLANS], ['signupAt', SIGNUPS], ['tags', TAGS], ['cohort', ['beta', 'alpha']]] as const) {
      const v = maybe(pool as readonly unknown[]);
      if (v !== undefined) custom[k] = v;
    }
    const user: EvalUser = { userID: `u${i}`, custom };
    const set = (k: keyof EvalUser, v: unknown) => { if (v !== undefined) (user as Record<string, unknown>)[k] = v; };
    set('email', maybe(EMAILS));
    set('ip', maybe(IPS));
    set('userAgent', maybe(AGENTS));
    set('country', rand() < 0.4 ? pick(rand, COUNTRIES) : undefined);
    set('locale', maybe(LOCALES));
    set('appVersion', maybe(VERSIONS));
    if (rand() < 0.6) user.customIDs = { companyID: `c${Math.floor(rand() * 40)}` };
    if (rand() < 0.7) user.statsigEnvironment = { tier: pick(rand, TIERS) };
    users.push(user);
  }
  return users;
}
