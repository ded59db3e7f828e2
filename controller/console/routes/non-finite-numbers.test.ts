/**
 * JSON has no Infinity or NaN, but a body's `1e309` parses to Infinity and JSON5 text can spell both.
 * Every kind of field that can hold a number is refused with a 400 naming it, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NON_FINITE_MESSAGE } from '../../../schemas/json-value.js';
import { SAMPLE_ENTITIES, apiPathOf } from '../../test-support/sample-entities.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

/** Stands for a number literal JSON.stringify can't write: replaced in the request text. */
const INF = '@@1e309@@';
const NEG_INF = '@@-1e309@@';

/** The body as request text, with the placeholders turned into out-of-range number literals. */
function bodyText(body: unknown): string {
  return JSON.stringify(body).replaceAll(`"${INF}"`, '1e309').replaceAll(`"${NEG_INF}"`, '-1e309');
}

interface Case {
  label: string;
  method: 'POST' | 'PATCH';
  url: string;
  body: unknown;
  property: string;
  message: RegExp;
}

const finite = /^must be a finite number \(Infinity and NaN are not JSON\)$/;
const inJson5 = (where: string): RegExp => new RegExp(`^${where.replace(/[[\].]/g, '\\$&')} must be a finite number`);
const rule = { name: 'beta', passPercentage: 50, conditions: [{ type: 'public' }] };

const CASES: Case[] = [
  { label: 'dynamic config defaultValue (create)', method: 'POST', url: '/console/v1/dynamic_configs', body: { name: 'Prices', defaultValue: { price: INF } }, property: 'defaultValue.price', message: finite },
  { label: 'dynamic config defaultValue, nested in an array', method: 'PATCH', url: '/console/v1/dynamic_configs/banner', body: { defaultValue: { colors: ['red', { weight: NEG_INF }] } }, property: 'defaultValue.colors[1].weight', message: finite },
  { label: "a rule's returnValue", method: 'PATCH', url: '/console/v1/dynamic_configs/pricing', body: { rules: [{ ...rule, returnValue: { price: INF } }] }, property: 'rules[0].returnValue.price', message: finite },
  {
    label: "a variant's returnValue",
    method: 'PATCH',
    url: '/console/v1/dynamic_configs/pricing',
    body: { rules: [{ ...rule, returnValue: { price: 1 }, variants: [{ name: 'low', passPercentage: 100, returnValue: { price: NEG_INF } }] }] },
    property: 'rules[0].variants[0].returnValue.price',
    message: finite,
  },
  { label: 'defaultValueJson5 with Infinity', method: 'PATCH', url: '/console/v1/dynamic_configs/banner', body: { defaultValueJson5: '{ text: "x", size: Infinity }' }, property: 'defaultValueJson5', message: inJson5('size') },
  { label: 'returnValueJson5 with NaN', method: 'PATCH', url: '/console/v1/dynamic_configs/pricing', body: { rules: [{ ...rule, returnValueJson5: '{ price: NaN }' }] }, property: 'rules[0].returnValueJson5', message: inJson5('price') },
  { label: 'schemaJson5 with -Infinity', method: 'PATCH', url: '/console/v1/dynamic_configs/banner', body: { schemaJson5: '{ type: "object", properties: { size: { minimum: -Infinity } } }' }, property: 'schemaJson5', message: inJson5('properties.size.minimum') },
  { label: 'schema text with 1e309', method: 'PATCH', url: '/console/v1/dynamic_configs/banner', body: { schema: '{"type":"object","maxProperties":1e309}' }, property: 'schema', message: inJson5('maxProperties') },
  { label: "a gate rule's passPercentage", method: 'PATCH', url: '/console/v1/gates/kill_switch', body: { rules: [{ ...rule, passPercentage: INF }] }, property: 'rules[0].passPercentage', message: finite },
  { label: "a condition's targetValue", method: 'PATCH', url: '/console/v1/gates/kill_switch', body: { rules: [{ ...rule, conditions: [{ type: 'app_version', operator: 'gt', targetValue: INF }] }] }, property: 'rules[0].conditions[0].targetValue', message: finite },
  { label: "a condition's targetValue list", method: 'PATCH', url: '/console/v1/gates/kill_switch', body: { rules: [{ ...rule, conditions: [{ type: 'user_id', operator: 'any', targetValue: ['a', NEG_INF] }] }] }, property: 'rules[0].conditions[0].targetValue', message: /^at \[1\] must be a finite number/ },
  { label: "a segment rule's passPercentage", method: 'PATCH', url: '/console/v1/segments/beta_testers', body: { rules: [{ ...rule, passPercentage: NEG_INF }] }, property: 'rules[0].passPercentage', message: finite },
  { label: "a layer parameter's number defaultValue", method: 'PATCH', url: '/console/v1/layers/checkout_layer', body: { parameters: [{ name: 'discount', type: 'number', defaultValue: INF }] }, property: 'parameters[0].defaultValue', message: finite },
  { label: "a layer parameter's array defaultValue", method: 'PATCH', url: '/console/v1/layers/checkout_layer', body: { parameters: [{ name: 'sizes', type: 'array', defaultValue: [1, INF] }] }, property: 'parameters[0].defaultValue[1]', message: finite },
  {
    label: "an experiment group's parameterValues",
    method: 'PATCH',
    url: '/console/v1/experiments/plain_experiment',
    body: { groups: [{ name: 'Control', size: 50, parameterValues: { discount: INF } }, { name: 'Test', size: 50 }] },
    property: 'groups[0].parameterValues.discount',
    message: finite,
  },
  { label: "an experiment group's size", method: 'PATCH', url: '/console/v1/experiments/plain_experiment', body: { groups: [{ name: 'Control', size: INF }] }, property: 'groups[0].size', message: finite },
  {
    label: "an inline targeting rule's returnValue",
    method: 'PATCH',
    url: '/console/v1/experiments/plain_experiment',
    body: { inlineTargetingRules: [{ ...rule, returnValue: { discount: NEG_INF } }] },
    property: 'inlineTargetingRules[0].returnValue.discount',
    message: finite,
  },
  { label: "a holdout's passPercentage", method: 'PATCH', url: '/console/v1/holdouts/global_holdout', body: { passPercentage: INF }, property: 'passPercentage', message: finite },
  { label: "a review's change", method: 'POST', url: '/console/v1/dynamic_configs/banner/reviews', body: { description: 'bigger', change: { defaultValue: { size: INF } } }, property: 'change.defaultValue.size', message: finite },
];

describe('non-finite numbers are refused everywhere', () => {
  let t: TestConsole;
  beforeAll(async () => {
    t = createTestConsole();
    for (const { folder, body } of SAMPLE_ENTITIES) {
      const res = await t.call('POST', apiPathOf(folder), body);
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(() => t.close());

  it.each(CASES)('$label → 400 naming $property, nothing stored', async (c) => {
    const before = await storeSnapshot(t);
    const res = await t.call(c.method, c.url, bodyText(c.body));
    expect(res.statusCode, res.body).toBe(400);
    const errors = (res.json() as { errors?: { property: string; errorMessage: string }[] }).errors ?? [];
    expect(errors.map((e) => e.property), res.body).toContain(c.property);
    const error = errors.find((e) => e.property === c.property);
    expect(error?.errorMessage).toMatch(c.message);
    expect(await storeSnapshot(t)).toBe(before);
  });

  it('a config whose schema says number never stores null for 1e309, so its next write still passes', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { price: { type: 'number' } }, required: ['price'] });
    const created = await t.call('POST', '/console/v1/dynamic_configs', { name: 'Checkout price', schema, defaultValue: { price: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const refused = await t.call('PATCH', '/console/v1/dynamic_configs/checkout_price', bodyText({ defaultValue: { price: INF } }));
    expect(refused.statusCode, refused.body).toBe(400);
    const stored = await t.call('GET', '/console/v1/dynamic_configs/checkout_price');
    expect(stored.json().data.defaultValue).toEqual({ price: 1 });
    const next = await t.call('PATCH', '/console/v1/dynamic_configs/checkout_price', { description: 'still valid' });
    expect(next.statusCode, next.body).toBe(200);
  });

  it('the message is the one documented for the whole API', () => {
    expect(NON_FINITE_MESSAGE).toMatch(finite);
  });
});
