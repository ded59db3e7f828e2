/**
 * The reference API's ten endpoints (docs/design.md, "Entities and endpoints") answer every response
 * field the reference lists for them, each with the type it gives it, and `null` only where it types the field nullable — with every field set,
 * and with as few set as the endpoint allows (unset fields are then left out, never null).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { FULL_EXPERIMENT, seedReferences, SOURCE_BODY, type Body } from '../../test-support/experiment-fixtures.js';
import {
  ASSIGNMENT_SOURCE,
  CONDITION,
  DYNAMIC_CONFIG,
  DYNAMIC_CONFIG_RULE,
  ENVELOPE,
  EXPERIMENT,
  EXPERIMENT_GROUP,
  EXPERIMENT_UNSET_FIELDS,
  GATE,
  HOLDOUT,
  ID_TYPE_MAPPING,
  INLINE_TARGETING_RULE,
  METRIC_REFERENCE,
  OWNER,
  PAGINATION,
  PROMPT,
  RULE,
  specProblems,
  VARIANT,
  type SpecTable,
} from '../../test-support/spec-fields.js';
import type { TestConsole } from '../../test-support/test-console.js';
import { useWebhookConsole } from '../../test-support/webhook-console.js';

const env = useWebhookConsole({ webhookKey: 'whk-spec-fields-1234', webhookTimeoutMs: 5000, seed: seedReferences });
let c: TestConsole;
beforeEach(() => {
  c = env.c;
});

const OWNER_BODY = { ownerID: 'u1', ownerType: 'USER', ownerName: 'Dev', ownerEmail: 'dev@example.com' };
const CONDITION_BODY = { type: 'custom_field', operator: 'any', field: 'plan', customID: 'companyID', targetValue: ['pro'] };

async function call(method: string, url: string, body?: unknown, key?: string): Promise<Body> {
  const res = await c.call(method, url, body, key);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  const envelope = res.json() as Body;
  expect(specProblems(envelope, ENVELOPE, 'response')).toEqual([]);
  return envelope;
}
const dataOf = async (method: string, url: string, body?: unknown): Promise<Body> => (await call(method, url, body))['data'] as Body;

/** Paths inside `value` that hold null, JSON values (defaultValue, returnValue, parameterValues, metadata) aside. */
function nullPaths(value: unknown, path = 'data'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`));
  if (typeof value !== 'object') return [];
  return Object.entries(value as Body)
    .filter(([k]) => !['defaultValue', 'returnValue', 'parameterValues', 'metadata'].includes(k))
    .flatMap(([k, v]) => nullPaths(v, `${path}.${k}`));
}

const items = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);

/** The table's check on every item of a list field. */
const eachItem = (list: unknown, table: SpecTable, where: string, mayBeAbsent: readonly string[] = []): string[] =>
  items(list).flatMap((item, i) => specProblems(item, table, `${where}[${i}]`, mayBeAbsent));

function ruleProblems(rules: unknown, table: SpecTable, where: string, mayBeAbsent: readonly string[] = []): string[] {
  return items(rules).flatMap((rule, i) => [
    ...specProblems(rule, table, `${where}[${i}]`, mayBeAbsent),
    ...eachItem(rule['conditions'], CONDITION, `${where}[${i}].conditions`, ['operator', 'field', 'customID']),
    ...eachItem(rule['variants'], VARIANT, `${where}[${i}].variants`),
  ]);
}

const CONFIG_RULE_BODY = {
  name: 'pro users',
  passPercentage: 50,
  conditions: [CONDITION_BODY],
  environments: ['production'],
  returnValue: { size: 2 },
  returnValueJson5: '{size: 2} // pro',
  variants: [{ name: 'a', passPercentage: 100, returnValue: { size: 3 }, returnValueJson5: '{size: 3}' }],
};
const FULL_CONFIG = {
  name: 'limits',
  description: 'size limits',
  isEnabled: true,
  rules: [CONFIG_RULE_BODY],
  defaultValue: { size: 1 },
  defaultValueJson5: '{size: 1} // default',
  idType: 'userID',
  tags: ['core'],
  creatorID: 'c1',
  creatorEmail: 'creator@example.com',
  owner: OWNER_BODY,
  schema: '{"type":"object"}',
  schemaJson5: '{"type":"object"}',
  targetApps: ['web'],
  team: 'growth',
  teamID: 't1',
  releasePipelineID: 'rp1',
};

describe('endpoints 2, 3 and 4: dynamic configs', () => {
  it('4. create with every field: each listed field with its type; the rules, variants and conditions too', async () => {
    const data = await dataOf('POST', '/console/v1/dynamic_configs', { ...FULL_CONFIG, id: 'limits' });
    expect(specProblems(data, DYNAMIC_CONFIG, 'data')).toEqual([]);
    expect(ruleProblems(data['rules'], DYNAMIC_CONFIG_RULE, 'data.rules')).toEqual([]);
    expect(specProblems(data['owner'], OWNER, 'data.owner')).toEqual([]);
  });

  it('4. create with only a name: no null where the reference has none (owner and defaultValueJson5 left out)', async () => {
    const data = await dataOf('POST', '/console/v1/dynamic_configs', { name: 'bare config' });
    expect(specProblems(data, DYNAMIC_CONFIG, 'data', ['owner', 'defaultValueJson5'])).toEqual([]);
    expect(data).not.toHaveProperty('owner');
  });

  it('2 and 3. full and partial update (and their dry runs): the same fields with their types', async () => {
    await call('POST', '/console/v1/dynamic_configs', { ...FULL_CONFIG, id: 'limits' });
    const { name: _n, ...update } = FULL_CONFIG;
    for (const [method, url, body] of [
      ['POST', '/console/v1/dynamic_configs/limits', { ...update, description: 'full update' }],
      ['POST', '/console/v1/dynamic_configs/limits?dryRun=true', { ...update, description: 'dry full update' }],
      ['PATCH', '/console/v1/dynamic_configs/limits', { description: 'patched' }],
      ['PATCH', '/console/v1/dynamic_configs/limits?dryRun=true', { description: 'dry patch' }],
    ] as const) {
      const data = await dataOf(method, url, body);
      expect(specProblems(data, DYNAMIC_CONFIG, `${method} ${url} data`)).toEqual([]);
      expect(ruleProblems(data['rules'], DYNAMIC_CONFIG_RULE, `${method} ${url} data.rules`)).toEqual([]);
    }
  });

  it('2. a full update that clears owner and leaves rules bare: rules still carry ids and rollouts, nothing is null but the nullable', async () => {
    await call('POST', '/console/v1/dynamic_configs', { ...FULL_CONFIG, id: 'limits' });
    const data = await dataOf('POST', '/console/v1/dynamic_configs/limits', { isEnabled: true, description: '', rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public', operator: null }], environments: null }], owner: null });
    expect(specProblems(data, DYNAMIC_CONFIG, 'data', ['owner', 'defaultValueJson5'])).toEqual([]);
    expect(ruleProblems(data['rules'], DYNAMIC_CONFIG_RULE, 'data.rules', ['environments', 'returnValue', 'returnValueJson5', 'variants'])).toEqual([]);
    const nullable = Object.entries(DYNAMIC_CONFIG).filter(([, t]) => t.endsWith('|null')).map(([f]) => `data.${f}`);
    expect(nullPaths(data).filter((p) => !nullable.includes(p))).toEqual([]);
  });
});

const FULL_GATE = {
  name: 'checkout',
  description: 'new checkout',
  isEnabled: false,
  rules: [{ name: 'pro', passPercentage: 20, conditions: [CONDITION_BODY], environments: ['production'] }],
  tags: ['core'],
  type: 'TEMPORARY',
  idType: 'userID',
  targetApps: ['web'],
  creatorID: 'c1',
  creatorEmail: 'creator@example.com',
  owner: OWNER_BODY,
  team: 'growth',
  teamID: 't1',
  measureMetricLifts: true,
  monitoringMetrics: [{ name: 'latency', type: 'ratio' }],
  reviewSettings: { requiredReview: false, allowedReviewers: [{ id: 'r1', name: 'Lead', email: 'lead@example.com' }] },
  releasePipelineID: 'rp1',
};

describe('endpoints 5 and 6: gates', () => {
  it('5. partial update: the gate object, every field with its type', async () => {
    await call('POST', '/console/v1/gates', { ...FULL_GATE, id: 'checkout' });
    const data = await dataOf('PATCH', '/console/v1/gates/checkout', { description: 'patched', tags: ['core', 'web'] });
    expect(specProblems(data, GATE, 'data')).toEqual([]);
    expect(ruleProblems(data['rules'], RULE, 'data.rules')).toEqual([]);
    expect(specProblems(data['owner'], OWNER, 'data.owner')).toEqual([]);
  });

  it('6. enable: the gate object; a gate made with only a name has no null where the reference has none', async () => {
    await call('POST', '/console/v1/gates', { name: 'bare gate', rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] });
    const data = await dataOf('PUT', '/console/v1/gates/bare_gate/enable');
    expect(data['isEnabled']).toBe(true);
    expect(specProblems(data, GATE, 'data', ['owner'])).toEqual([]);
    expect(ruleProblems(data['rules'], RULE, 'data.rules', ['environments'])).toEqual([]);
    const nullable = Object.entries(GATE).filter(([, t]) => t.endsWith('|null')).map(([f]) => `data.${f}`);
    expect(nullPaths(data).filter((p) => !nullable.includes(p))).toEqual([]);
  });
});

describe('endpoint 7: prompts', () => {
  it('create with every field, and with only a name (team, teamID, displayName and owner then left out)', async () => {
    const full = await dataOf('POST', '/console/v1/prompts', { name: 'support bot', displayName: 'Support bot', description: 'helps', targetApps: ['web'], team: 'growth', teamID: 't1', tags: ['ai'], creatorID: 'c1', owner: OWNER_BODY, creatorEmail: 'creator@example.com' });
    expect(specProblems(full, PROMPT, 'data')).toEqual([]);
    const bare = await dataOf('POST', '/console/v1/prompts', { name: 'bare bot' });
    expect(specProblems(bare, PROMPT, 'data', ['team', 'teamID', 'displayName', 'owner'])).toEqual([]);
    expect(nullPaths(bare).filter((p) => p !== 'data.creatorID' && p !== 'data.creatorEmail')).toEqual([]);
  });
});

describe('endpoint 8: assignment sources', () => {
  it('patch (and its dry run): every field with its type', async () => {
    await call('POST', '/console/v1/experiments/assignment_sources', { ...SOURCE_BODY, name: 'lake', description: 'the lake', isVerified: true, tags: ['dw'], groupNameColumn: 'grp_name', isReadOnly: false, owner: OWNER_BODY, team: 'data', teamID: 't2', scheduledReloadHour: 4 });
    for (const body of [{ description: 'patched' }, { description: 'dry', dryRun: true }]) {
      const data = await dataOf('PATCH', '/console/v1/experiments/assignment_source/lake', body);
      expect(specProblems(data, ASSIGNMENT_SOURCE, 'data')).toEqual([]);
      expect(eachItem(data['idTypeMapping'], ID_TYPE_MAPPING, 'data.idTypeMapping')).toEqual([]);
    }
  });

  it('patch of a source with only the required fields: owner and groupNameColumn left out, never null', async () => {
    const data = await dataOf('PATCH', '/console/v1/experiments/assignment_source/warehouse', { tags: ['x'] });
    expect(specProblems(data, ASSIGNMENT_SOURCE, 'data', ['owner', 'groupNameColumn'])).toEqual([]);
    expect(nullPaths(data).filter((p) => !['data.team', 'data.teamID', 'data.scheduledReloadHour'].includes(p))).toEqual([]);
  });
});

describe('endpoint 9: holdouts', () => {
  it('partial update: every field with its type; targetingGateID nullable', async () => {
    await call('POST', '/console/v1/holdouts', { id: 'hold', name: 'hold', passPercentage: 5, gateIDs: ['beta'], targetingGateID: 'beta', monitoringMetrics: [{ name: 'latency', type: 'ratio' }] });
    const data = await dataOf('PATCH', '/console/v1/holdouts/hold', { description: 'patched', isGlobal: true, targetingGateID: null });
    expect(specProblems(data, HOLDOUT, 'data')).toEqual([]);
    expect(data['targetingGateID']).toBeNull();
  });
});

describe('endpoint 1: experiment versions', () => {
  function experimentProblems(experiment: Body, where: string, mayBeAbsent: readonly string[]): string[] {
    return [
      ...specProblems(experiment, EXPERIMENT, where, mayBeAbsent),
      ...eachItem(experiment['groups'], EXPERIMENT_GROUP, `${where}.groups`, ['description', 'foreignGroupID', 'disabled', 'highlighted']),
      ...['primaryMetrics', 'secondaryMetrics', 'otherMetrics'].flatMap((f) => eachItem(experiment[f], METRIC_REFERENCE, `${where}.${f}`, ['direction', 'hypothesizedValue'])),
      ...ruleProblems(experiment['inlineTargetingRules'], INLINE_TARGETING_RULE, `${where}.inlineTargetingRules`, ['environments', 'returnValue']),
      ...nullPaths(experiment, where),
    ];
  }

  it('every version of an experiment with every field set, through start and ship: each field typed, none null', async () => {
    await call('POST', '/console/v1/experiments', FULL_EXPERIMENT);
    await call('PUT', '/console/v1/experiments/full_experiment/start');
    await call('PUT', '/console/v1/experiments/full_experiment/make_decision', { id: 'g_test', decisionReason: 'blue wins' });
    const list = await call('GET', '/console/v1/experiments/full_experiment/versions?limit=2');
    expect(specProblems(list['pagination'], PAGINATION, 'pagination')).toEqual([]);
    const page2 = await call('GET', '/console/v1/experiments/full_experiment/versions?limit=2&page=2');
    const versions = [...items(list['data']), ...items(page2['data'])];
    expect(versions.map((v) => [v['version'], v['status']])).toEqual([[3, 'decision_made'], [2, 'active'], [1, 'setup']]);
    // Shipped, every field is set but activeReview (no review pending).
    expect(experimentProblems(versions[0] as Body, 'versions[0]', ['activeReview'])).toEqual([]);
    // Before the start and before the decision, their times, reason and shipped group are not set yet.
    expect(experimentProblems(versions[1] as Body, 'versions[1]', ['activeReview', 'endTime', 'decisionTime', 'decisionReason', 'launchedGroupID'])).toEqual([]);
    expect(experimentProblems(versions[2] as Body, 'versions[2]', ['activeReview', 'startTime', 'endTime', 'decisionTime', 'decisionReason', 'launchedGroupID'])).toEqual([]);
  });

  it('the versions of an experiment made with only a name: unset fields left out, nothing null', async () => {
    await call('POST', '/console/v1/experiments', { name: 'bare experiment' });
    await call('PATCH', '/console/v1/experiments/bare_experiment', { hypothesis: 'h', controlGroupID: null, groups: [{ name: 'Control', size: 50 }, { name: 'Test', size: 50, foreignGroupID: null }] });
    const list = await call('GET', '/console/v1/experiments/bare_experiment/versions');
    expect(specProblems(list['pagination'], PAGINATION, 'pagination')).toEqual([]);
    const versions = items(list['data']);
    expect(versions).toHaveLength(2);
    versions.forEach((v, i) => expect(experimentProblems(v, `versions[${i}]`, EXPERIMENT_UNSET_FIELDS)).toEqual([]));
    expect(items(versions[0]?.['groups']).map((g) => g['parameterValues'])).toEqual([{}, {}]);
  });
});

describe('reviews and the pre-commit webhook show configs in the read format', () => {
  it("a gate review's oldConfig/newConfig and the webhook's old_config/new_config: rules with ids and rollouts, no null but the nullable", async () => {
    await call('POST', '/console/v1/gates', { ...FULL_GATE, id: 'checkout', owner: null, reviewSettings: { requiredReview: false, allowedReviewers: [] } });
    const change = { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public', operator: null }] }] };
    const review = (await call('POST', '/console/v1/gates/checkout/reviews', { change }, env.bob))['data'] as Body;
    await call('PUT', `/console/v1/gates/checkout/reviews/${String(review['reviewID'])}/approve`, undefined, env.carol);
    await call('PUT', `/console/v1/gates/checkout/reviews/${String(review['reviewID'])}/commit`, undefined, env.bob);
    const hook = await env.receiver.waitFor((h) => h.body['review_id'] === review['reviewID']);
    const nullable = Object.entries(GATE).filter(([, t]) => t.endsWith('|null')).map(([f]) => f);
    for (const [where, config] of [['oldConfig', review['oldConfig']], ['newConfig', review['newConfig']], ['old_config', hook.body['old_config']], ['new_config', hook.body['new_config']]] as const) {
      expect(specProblems(config, GATE, where, ['owner'])).toEqual([]);
      expect(ruleProblems((config as Body)['rules'], RULE, `${where}.rules`, ['environments'])).toEqual([]);
      expect(nullPaths(config, where).filter((p) => !nullable.some((f) => p === `${where}.${f}`))).toEqual([]);
    }
  });

  it("an experiment review's oldConfig/newConfig: no null where the reference has none", async () => {
    await call('POST', '/console/v1/experiments', { name: 'bare experiment' });
    const review = (await call('POST', '/console/v1/experiments/bare_experiment/reviews', { change: { hypothesis: 'h' } }, env.bob))['data'] as Body;
    for (const where of ['oldConfig', 'newConfig']) {
      expect(specProblems(review[where], EXPERIMENT, where, EXPERIMENT_UNSET_FIELDS)).toEqual([]);
      expect(nullPaths(review[where], where)).toEqual([]);
    }
  });
});

describe('endpoint 10: change validation', () => {
  it('answers the envelope with a string message', async () => {
    await call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' });
    const reviewID = ((await call('POST', '/console/v1/gates/checkout/reviews', { change: { rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] } }, env.bob))['data'] as Body)['reviewID'] as string;
    await call('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/approve`, undefined, env.carol);
    await call('PUT', `/console/v1/gates/checkout/reviews/${reviewID}/commit`, undefined, env.bob);
    const progress = await call('POST', '/console/v1/change_validation', { reviewID, message: 'running checks' }, env.validator);
    expect(typeof progress['message']).toBe('string');
    const decided = await call('POST', '/console/v1/change_validation', { reviewID, validated: true, message: 'all green' }, env.validator);
    expect(typeof decided['message']).toBe('string');
  });
});
