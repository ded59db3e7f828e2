import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

describe('gates', () => {
  it('creates a gate with defaults and generated rule ids', async () => {
    const res = await c.call('POST', '/console/v1/gates', { name: 'new checkout', rules: [{ name: 'all', passPercentage: 10, conditions: [{ type: 'public' }] }] });
    expect(res.statusCode).toBe(201);
    const gate = res.json().data;
    expect(gate).toMatchObject({ id: 'new_checkout', name: 'new checkout', isEnabled: true, type: 'PERMANENT', status: 'In Progress', version: 1 });
    expect(gate.rules[0].id).toEqual(expect.any(String));
  });
});
