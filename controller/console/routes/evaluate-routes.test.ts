import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;

beforeEach(async () => {
  c = createTestConsole();
  const made = await c.call('POST', '/console/v1/gates', {
    id: 'beta', name: 'beta',
    rules: [
      { id: 'acme', name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] },
      { id: 'staging', name: 'staging', passPercentage: 100, conditions: [{ type: 'public' }], environments: ['staging'] },
    ],
  });
  expect(made.statusCode, made.body).toBe(201);
});

afterEach(async () => {
  await c.close();
});

describe('POST /console/v1/evaluate', () => {
  it('answers the value, the deciding rule and the trail, for a read-only key too', async () => {
    const reader = await c.keyFor('reader@acme.example', 'read_only');
    const res = await c.call('POST', '/console/v1/evaluate', { flag: 'beta', user: { userID: '1', email: 'x@other.example' }, environment: 'staging' }, reader);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ flag: 'beta', kind: 'gate', id: 'beta', environment: 'staging', value: true, reason: 'rule', ruleID: 'staging', ruleName: 'staging' });
    expect(data.trail[0]).toMatchObject({ ruleID: 'acme', outcome: 'conditions_failed', conditions: [{ type: 'user_field', field: 'email', value: 'x@other.example', passed: false }] });
    const nowhere = await c.call('POST', '/console/v1/evaluate', { flag: 'gates/beta', user: { userID: '1' } }, reader);
    expect(nowhere.json().data).toMatchObject({ value: false, reason: 'default' });
  });

  it('refuses bad input naming the field, and an unknown flag with 404', async () => {
    const cases: [unknown, number, string | undefined][] = [
      [{ user: { userID: '1' } }, 400, 'flag'],
      [{ flag: 'beta' }, 400, 'user'],
      [{ flag: 'beta', user: { userID: 1 } }, 400, 'user.userID'],
      [{ flag: 'beta', user: { userId: '1' } }, 400, 'user.userId'],
      [{ flag: 'beta', user: { userID: '1', customIDs: { companyID: 5 } } }, 400, 'user.customIDs.companyID'],
      [{ flag: 'beta', user: {}, environment: '' }, 400, 'environment'],
      [{ flag: 'beta', user: {}, extra: true }, 400, undefined],
      [{ flag: 'nope', user: {} }, 404, undefined],
    ];
    for (const [body, status, property] of cases) {
      const res = await c.call('POST', '/console/v1/evaluate', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      if (property) expect((res.json().errors as { property: string }[]).map((e) => e.property), JSON.stringify(body)).toContain(property);
    }
    expect((await c.call('POST', '/console/v1/evaluate', { flag: 'beta', user: {} }, 'console-unknown')).statusCode).toBe(401);
  });
});
