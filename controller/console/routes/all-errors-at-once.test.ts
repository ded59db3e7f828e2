import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ok, type Body } from '../../test-support/experiment-fixtures.js';
import { storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

/** The properties a refused write names, in order. */
async function refused(method: string, path: string, body: Body): Promise<string[]> {
  const before = await storeSnapshot(c);
  const res = await c.call(method, path, body);
  expect(res.statusCode, JSON.stringify(res.json())).toBe(400);
  expect(await storeSnapshot(c)).toBe(before);
  return (res.json().errors as { property: string }[]).map((e) => e.property);
}

describe('a 400 lists every violated constraint at once, the checks after the schema included', () => {
  it('a holdout: a percentage out of range and a gate that does not exist', async () => {
    await ok(c, 'POST', '/console/v1/holdouts', { name: 'base_hold' }, 201);
    expect(await refused('PATCH', '/console/v1/holdouts/base_hold', { gateIDs: ['nonexistent_gate'], passPercentage: 11 })).toEqual(['passPercentage', 'gateIDs[0]']);
  });

  it("a dynamic config: a bad name and a default value its schema refuses", async () => {
    await ok(c, 'POST', '/console/v1/dynamic_configs', { name: 'base_dc' }, 201);
    const schema = JSON.stringify({ type: 'object', required: ['zz'] });
    expect(await refused('PATCH', '/console/v1/dynamic_configs/base_dc', { name: 'x', schema })).toEqual(['name', 'defaultValue']);
  });

  it("a value is not held to the stored schema while the body's own schema is refused", async () => {
    const schema = JSON.stringify({ type: 'object', required: ['zz'] });
    await ok(c, 'POST', '/console/v1/dynamic_configs', { name: 'base_dc', schema, defaultValue: { zz: 1 } }, 201);
    expect(await refused('PATCH', '/console/v1/dynamic_configs/base_dc', { schema: 5, defaultValue: { a: 1 } })).toEqual(['schema']);
    expect(await refused('PATCH', '/console/v1/dynamic_configs/base_dc', { name: 'x', defaultValue: { a: 1 } })).toEqual(['name', 'defaultValue']);
  });

  it('a create: a bad name and a JSON5 text that does not parse', async () => {
    expect(await refused('POST', '/console/v1/dynamic_configs', { name: 'x', defaultValueJson5: '{a:' })).toEqual(['name', 'defaultValueJson5']);
  });

  it("a refused field's own later checks are not run again: a JSON5 text of the wrong type says so once", async () => {
    await ok(c, 'POST', '/console/v1/dynamic_configs', { name: 'base_dc' }, 201);
    expect(await refused('PATCH', '/console/v1/dynamic_configs/base_dc', { defaultValueJson5: 5 })).toEqual(['defaultValueJson5']);
  });

  it('a review submission lists them all too', async () => {
    await ok(c, 'POST', '/console/v1/dynamic_configs', { name: 'base_dc' }, 201);
    expect(await refused('POST', '/console/v1/dynamic_configs/base_dc/reviews', { description: 'both', change: { name: 'x', defaultValueJson5: '{a:' } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/name$/), expect.stringMatching(/defaultValueJson5$/)]),
    );
  });
});
