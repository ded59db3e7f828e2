/**
 * Request bodies nested deeper than the config files may be (MAX_JSON_DEPTH, the root being level 1)
 * are a 400 naming where, and change nothing: past a few thousand levels the console's own code would
 * overflow the stack (a 500), so nothing that deep may get in. JSON text fields (defaultValueJson5,
 * ...) count from where their value goes. Prototype keys are refused by name.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../schemas/json-tree-problem.js';
import { MAX_DEPTH as FILE_MAX_DEPTH } from '../../source/parse-yaml-file.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

const CONFIGS = '/console/v1/dynamic_configs';

/** JSON text of objects nested `levels` deep: 2 → `{"a":{"a":1}}`. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** The property the API names for the first object past the limit inside a top-level `field` (the field's value is level 2). */
const tooDeepAt = (field: string): string => [field, ...Array<string>(MAX_JSON_DEPTH - 1).fill('a')].join('.');

let c: TestConsole;
beforeEach(async () => {
  c = createTestConsole();
  expect((await c.call('POST', CONFIGS, { id: 'cfg', name: 'cfg', defaultValue: { kept: true } })).statusCode).toBe(201);
});
afterEach(() => c.close());

async function expectRefused(method: string, url: string, body: string, property: unknown, message = `Body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`): Promise<void> {
  const before = await storeSnapshot(c);
  const res = await c.call(method, url, body);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ status: 400, message, errors: [{ property }] });
  expect(await storeSnapshot(c)).toBe(before);
}

describe('body depth', () => {
  it('the limit is the config files\' limit', () => {
    expect(MAX_JSON_DEPTH).toBe(FILE_MAX_DEPTH);
  });

  it('a create body exactly MAX_JSON_DEPTH deep is stored; one level more is a 400 naming the path', async () => {
    const ok = await c.call('POST', CONFIGS, `{"name":"deepest config","defaultValue":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(JSON.stringify(ok.json().data.defaultValue)).toBe(nested(MAX_JSON_DEPTH - 1));
    await expectRefused('POST', CONFIGS, `{"name":"too deep config","defaultValue":${nested(MAX_JSON_DEPTH)}}`, tooDeepAt('defaultValue'));
  });

  it('patch, full update and dry runs: 65 and 5,000 levels are a 400, never a 500', async () => {
    for (const levels of [MAX_JSON_DEPTH, 5000]) {
      await expectRefused('PATCH', `${CONFIGS}/cfg`, `{"defaultValue":${nested(levels)}}`, tooDeepAt('defaultValue'));
      await expectRefused('POST', `${CONFIGS}/cfg`, `{"name":"cfg","defaultValue":${nested(levels)}}`, tooDeepAt('defaultValue'));
      await expectRefused('PATCH', `${CONFIGS}/cfg?dryRun=true`, `{"defaultValue":${nested(levels)}}`, tooDeepAt('defaultValue'));
      await expectRefused('POST', `${CONFIGS}?dryRun=true`, `{"name":"dry config","defaultValue":${nested(levels)}}`, tooDeepAt('defaultValue'));
    }
    // The entity is as it was, and its lifecycle actions still work.
    expect((await c.call('PUT', `${CONFIGS}/cfg/disable`)).statusCode).toBe(200);
    expect((await c.call('GET', `${CONFIGS}/cfg`)).json().data.defaultValue).toEqual({ kept: true });
  });

  it.each([
    ['a rule returnValue', 'POST', CONFIGS, (v: string) => `{"name":"ruled config","rules":[{"name":"r","passPercentage":100,"conditions":[],"returnValue":${v}}]}`],
    ['experiment groups[].parameterValues', 'POST', '/console/v1/experiments', (v: string) => `{"name":"deep experiment","groups":[{"name":"control","size":100,"parameterValues":${v}}]}`],
    ['layer parameters[].defaultValue', 'POST', '/console/v1/layers', (v: string) => `{"name":"deep layer","parameters":[{"name":"p","type":"object","defaultValue":${v}}]}`],
    ['a key body', 'POST', '/console/v1/keys', (v: string) => `{"description":${v}}`],
    ['the settings', 'POST', '/console/v1/settings/precommit_webhook', (v: string) => `{"initialMessage":${v}}`],
  ])('%s 5,000 deep is a 400', async (_label, method, url, body) => {
    await expectRefused(method, url, body(nested(5000)), expect.stringMatching(/\.a\.a$/));
  });

  it('a sub-resource body is measured where it lands in the entity: one rule 62 deep makes the config 65 deep', async () => {
    const rule = await c.call('POST', `${CONFIGS}/cfg/rules`, { rules: [{ name: 'r', passPercentage: 100, conditions: [], returnValue: {} }] });
    expect(rule.statusCode, rule.body).toBe(200);
    const ruleID = rule.json().data.rules[0].id as string;
    // config (1) → rules (2) → the rule (3) → returnValue (4): a returnValue of 61 levels fits, 62 don't.
    const fits = await c.call('PATCH', `${CONFIGS}/cfg/rules/${ruleID}`, `{"returnValue":${nested(MAX_JSON_DEPTH - 3)}}`);
    expect(fits.statusCode, fits.body).toBe(200);
    await expectRefused('PATCH', `${CONFIGS}/cfg/rules/${ruleID}`, `{"returnValue":${nested(MAX_JSON_DEPTH - 2)}}`, `rules[0].returnValue${'.a'.repeat(MAX_JSON_DEPTH - 3)}`, 'Invalid dynamic config.');
  });
});

describe('a review\'s change may nest as deep as the entity it becomes', () => {
  const reviews = `${CONFIGS}/cfg/reviews`;

  it('change.defaultValue making the entity 64 deep is accepted; 65 and 5,000 are a 400 naming the path', async () => {
    const ok = await c.call('POST', reviews, `{"change":{"defaultValue":${nested(MAX_JSON_DEPTH - 1)}}}`);
    expect(ok.statusCode, ok.body).toBe(201);
    for (const levels of [MAX_JSON_DEPTH, 5000]) {
      await expectRefused('POST', reviews, `{"change":{"defaultValue":${nested(levels)}}}`, `change.${tooDeepAt('defaultValue')}`);
    }
  });
});

describe('JSON5 text fields count from where their value goes', () => {
  it('defaultValueJson5 parsing to a 63-level value is stored (the config is 64 deep); 64 or 5,000 levels are a 400 naming it', async () => {
    const ok = await c.call('PATCH', `${CONFIGS}/cfg`, { defaultValueJson5: nested(MAX_JSON_DEPTH - 1) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.stringify(ok.json().data.defaultValue)).toBe(nested(MAX_JSON_DEPTH - 1));
    for (const levels of [MAX_JSON_DEPTH, 5000]) {
      await expectRefused('PATCH', `${CONFIGS}/cfg`, JSON.stringify({ defaultValueJson5: nested(levels) }), 'defaultValueJson5');
      await expectRefused('POST', `${CONFIGS}?dryRun=true`, JSON.stringify({ name: 'json5 config', defaultValueJson5: nested(levels) }), 'defaultValueJson5');
      await expectRefused('POST', `${CONFIGS}/cfg/reviews`, JSON.stringify({ change: { defaultValueJson5: nested(levels) } }), 'change.defaultValueJson5');
    }
  });

  it('a JSON5 schema nested 5,000 deep is a 400 naming schemaJson5', async () => {
    await expectRefused('PATCH', `${CONFIGS}/cfg`, JSON.stringify({ schemaJson5: `${'{ items: '.repeat(5000)}{}${' }'.repeat(5000)}` }), 'schemaJson5');
  });
});

describe('prototype keys', () => {
  it('__proto__ is refused by name, not as malformed JSON', async () => {
    await expectRefused('POST', CONFIGS, '{"name":"proto config","__proto__":{"isAdmin":true}}', '__proto__', 'Body may not contain the key "__proto__".');
    await expectRefused('PATCH', `${CONFIGS}/cfg`, '{"defaultValue":{"x":[{"__proto__":1}]}}', 'defaultValue.x[0].__proto__', 'Body may not contain the key "__proto__".');
  });

  it('constructor.prototype is refused by name', async () => {
    await expectRefused('PATCH', `${CONFIGS}/cfg`, '{"defaultValue":{"constructor":{"prototype":{}}}}', 'defaultValue.constructor.prototype', 'Body may not contain the key "constructor.prototype".');
  });
});

describe('JSON itself', () => {
  it('malformed JSON is still a 400 naming (body)', async () => {
    const res = await c.call('PATCH', `${CONFIGS}/cfg`, '{"defaultValue":');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 400, message: expect.stringMatching(/^Malformed JSON body/), errors: [{ property: '(body)', errorMessage: 'is not valid JSON' }] });
  });

  it('a byte-order mark before the JSON is accepted', async () => {
    const res = await c.call('PATCH', `${CONFIGS}/cfg`, '\uFEFF{"description":"with a BOM"}');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.description).toBe('with a BOM');
  });
});
