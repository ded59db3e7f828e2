import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { dynamicConfigRuleErrors } from './dynamic-config-rules.js';

const LINEAR_WHY = 'schema patterns run on a linear-time engine (RE2) so that no value can make validation hang, and lookaround and backreferences cannot be matched in linear time';

const schemaWith = (pattern: string): string => JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern } } });

describe('dynamic config schema patterns', () => {
  it('answers a catastrophic-backtracking pattern on a 10,000-character value: it does not match', () => {
    const errors = dynamicConfigRuleErrors({ schema: schemaWith('^(a+)+$'), defaultValue: { code: `${'a'.repeat(10_000)}!` }, rules: [] });
    expect(errors).toEqual([{ property: 'defaultValue', errorMessage: `does not match the config's schema: /code must match pattern "^(a+)+$"` }]);
    expect(dynamicConfigRuleErrors({ schema: schemaWith('^(a+)+$'), defaultValue: { code: 'a'.repeat(10_000) }, rules: [] })).toEqual([]);
  });

  it.each([
    ['^[a-z]+$', 'abc', 'abC'],
    ['\\d{3}', 'no 123', 'no 12'],
    ['^\\p{L}+$', 'Grüße', 'Grüße!'],
    ['^\\p{Lu}\\p{Ll}*$', 'Émile', 'émile'],
    ['^\\p{Script=Greek}+$', 'λόγος', 'logos'],
    ['^[^\\s]+$', 'tight', 'not\u00a0tight'],
  ])('keeps the ECMAScript meaning of %s', (pattern, passes, fails) => {
    expect(dynamicConfigRuleErrors({ schema: schemaWith(pattern), defaultValue: { code: passes }, rules: [] })).toEqual([]);
    expect(dynamicConfigRuleErrors({ schema: schemaWith(pattern), defaultValue: { code: fails }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: `does not match the config's schema: /code must match pattern "${pattern}"` },
    ]);
  });

  it('runs patternProperties and propertyNames on the same engine', () => {
    const schema = JSON.stringify({ type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } }, propertyNames: { pattern: '^(\\w+_?)+$' } });
    const key = `${'x'.repeat(5_000)}`;
    expect(dynamicConfigRuleErrors({ schema, defaultValue: { [key]: 'not a number' }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: expect.stringMatching(/^does not match the config's schema: \/x+ must be number$/) },
    ]);
    expect(dynamicConfigRuleErrors({ schema, defaultValue: { [`${'word_'.repeat(2_000)}!`]: 1 }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: expect.stringContaining('property name must be valid') },
    ]);
  });

  it('refuses a lookahead or a backreference, naming the field and where the pattern sits', () => {
    expect(dynamicConfigRuleErrors({ schema: schemaWith('^(?=.*\\d)\\w+$'), defaultValue: { code: 'a1' }, rules: [] })).toEqual([
      { property: 'schema', errorMessage: `has an unsupported pattern at /properties/code/pattern: "^(?=.*\\\\d)\\\\w+$" uses a lookahead (?=...), which is not supported: ${LINEAR_WHY}` },
    ]);
    const schemaJson5 = "{ type: 'object', patternProperties: { '^(a)\\\\1/x$': {} } }";
    expect(dynamicConfigRuleErrors({ schemaJson5, defaultValue: {}, rules: [] })).toEqual([
      { property: 'schemaJson5', errorMessage: `has an unsupported pattern at /patternProperties/^(a)\\1~1x$: "^(a)\\\\1/x$" uses a backreference \\1, which is not supported: ${LINEAR_WHY}` },
    ]);
  });

  it('still reports an invalid ECMAScript pattern as an invalid JSON Schema', () => {
    expect(dynamicConfigRuleErrors({ schema: schemaWith('(unclosed'), defaultValue: {}, rules: [] })).toEqual([
      { property: 'schema', errorMessage: expect.stringMatching(/^is not a valid JSON Schema 2020-12: Invalid regular expression: .*Unterminated group/) },
    ]);
  });
});

describe('dynamic config schema patterns through the console API', () => {
  let c: TestConsole;
  beforeEach(() => {
    c = createTestConsole();
  });
  afterEach(() => c.close());

  it('refuses a schema with a lookahead: 400 naming schema, nothing stored', async () => {
    const res = await c.call('POST', '/console/v1/dynamic_configs', { name: 'codes', schema: schemaWith('^(?!admin)\\w+$'), defaultValue: { code: 'user' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      { property: 'schema', errorMessage: `has an unsupported pattern at /properties/code/pattern: "^(?!admin)\\\\w+$" uses a negative lookahead (?!...), which is not supported: ${LINEAR_WHY}` },
    ]);
    expect((await c.call('GET', '/console/v1/dynamic_configs/codes')).statusCode).toBe(404);
  });

  // The console derives schema from schemaJson5 before validating, so the error names schema, as
  // for any other invalid schema sent as JSON5 (`flagops validate` names schemaJson5: see the CLI test).
  it('refuses a backreference in schemaJson5 (dry run too)', async () => {
    const res = await c.call('POST', '/console/v1/dynamic_configs?dryRun=true', { name: 'pairs', schemaJson5: "{ type: 'string', pattern: '^(\\\\w)\\\\1$' }", defaultValue: {} });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'schema', errorMessage: expect.stringContaining('has an unsupported pattern at /pattern: "^(\\\\w)\\\\1$" uses a backreference \\1, which is not supported') }]);
  });

  it('answers a catastrophic pattern on a long value with a 400 naming the value', async () => {
    const res = await c.call('POST', '/console/v1/dynamic_configs', { name: 'hostile', schema: schemaWith('^(a+)+$'), defaultValue: { code: `${'a'.repeat(10_000)}!` } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'defaultValue', errorMessage: `does not match the config's schema: /code must match pattern "^(a+)+$"` }]);
  });

  it('accepts ordinary and unicode patterns', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { sku: { type: 'string', pattern: '^[a-z]+-\\d{3}$' }, label: { type: 'string', pattern: '^\\p{L}[\\p{L} ]*$' } } });
    const res = await c.call('POST', '/console/v1/dynamic_configs', { name: 'catalog', schema, defaultValue: { sku: 'shoe-123', label: 'Chaussures élégantes' } });
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('dynamic config schemas sharing an $id', () => {
  it('compiles each on its own: the second is not refused, and both keep validating by their own rules', () => {
    const first = JSON.stringify({ $id: 'https://example.com/pricing.json', type: 'object', properties: { price: { type: 'number' } } });
    const second = JSON.stringify({ $id: 'https://example.com/pricing.json', type: 'object', properties: { price: { type: 'string' } } });
    expect(dynamicConfigRuleErrors({ schema: first, defaultValue: { price: 1 }, rules: [] })).toEqual([]);
    expect(dynamicConfigRuleErrors({ schema: second, defaultValue: { price: 'one' }, rules: [] })).toEqual([]);
    expect(dynamicConfigRuleErrors({ schema: first, defaultValue: { price: 'one' }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: `does not match the config's schema: /price must be number` },
    ]);
    expect(dynamicConfigRuleErrors({ schema: second, defaultValue: { price: 1 }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: `does not match the config's schema: /price must be string` },
    ]);
  });

  it('keeps a schema that refers to itself by its $id working after it is compiled', () => {
    const tree = JSON.stringify({ $id: 'https://example.com/tree.json', type: 'object', properties: { children: { type: 'array', items: { $ref: 'https://example.com/tree.json' } } }, additionalProperties: false });
    expect(dynamicConfigRuleErrors({ schema: tree, defaultValue: { children: [{ children: [] }] }, rules: [] })).toEqual([]);
    expect(dynamicConfigRuleErrors({ schema: tree, defaultValue: { children: [{ leaf: true }] }, rules: [] })).toEqual([
      { property: 'defaultValue', errorMessage: `does not match the config's schema: /children/0 must NOT have additional properties` },
    ]);
  });
});
