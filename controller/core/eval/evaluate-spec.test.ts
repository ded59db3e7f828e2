import { describe, expect, it } from 'vitest';
import { SpecEvaluator } from './evaluate-spec.js';
import { handMadeSpecs } from '../../test-support/hand-made-specs.js';

const specs = handMadeSpecs();
const engine = new SpecEvaluator(specs);

describe('SpecEvaluator explains its answers', () => {
  it('names the deciding rule and why each earlier rule did not match', () => {
    const r = engine.checkGate('numbers', { userID: 'u1', custom: { age: 42, plan: 'gold' } });
    expect(r).toMatchObject({ reason: 'rule', value: true, ruleID: 'rule_12', ruleName: 'eq' });
    expect(r.trail.map((t) => [t.ruleName, t.outcome])).toEqual([['gt', 'conditions_failed'], ['gte_lte', 'conditions_failed'], ['lt', 'conditions_failed'], ['eq', 'matched']]);
    expect(r.trail[0]?.conditions[0]).toMatchObject({ type: 'user_field', operator: 'gt', field: 'age', targetValue: 60, value: 42, passed: false });
  });

  it('reports a rule whose conditions pass but whose percentage leaves the unit out, with the bucket', () => {
    let found = false;
    for (let i = 0; i < 50 && !found; i++) {
      const r = engine.checkGate('public_half', { userID: `p${i}` });
      if (r.trail[0]?.outcome === 'percentage_failed') {
        found = true;
        expect(r).toMatchObject({ reason: 'rule', value: false, ruleName: 'half' });
        expect(r.trail[0].bucket).toBeGreaterThanOrEqual(5000);
      }
    }
    expect(found).toBe(true);
  });

  it('answers the default when no rule matches, and disabled for a disabled entity', () => {
    expect(engine.getConfig('pricing', { userID: 'u1', email: 'x@y.example' })).toMatchObject({ reason: 'default', ruleID: 'default', jsonValue: { price: 10, currency: 'USD' } });
    expect(engine.checkGate('disabled_gate', { userID: 'u1' })).toMatchObject({ reason: 'disabled', value: false, ruleID: 'disabled' });
    expect(engine.checkGate('nope', { userID: 'u1' })).toMatchObject({ reason: 'not_found', value: false, entity: null });
  });

  it('reports a condition it cannot evaluate as unsupported, never as a pass', () => {
    const r = engine.checkGate('unsupported_type', { userID: 'u1', custom: { plan: 'bronze' } });
    expect(r).toMatchObject({ reason: 'unsupported', value: false });
    expect(r.unsupported).toMatchObject({ ruleName: 'mystery', condition: { type: 'mystery_field' } });
    expect(r.unsupported?.condition.unsupported).toMatch(/mystery_field/);
    const op = engine.checkGate('unsupported_operator', { userID: 'u1' });
    expect(op.unsupported?.condition.unsupported).toMatch(/fancy_op/);
    const via = engine.checkGate('unsupported_via_gate', { userID: 'u1' });
    expect(via).toMatchObject({ reason: 'unsupported', unsupported: { condition: { type: 'fail_gate' } } });
    // An earlier rule that matches decides before the unsupported one is reached.
    expect(engine.checkGate('unsupported_type', { userID: 'u1', custom: { plan: 'gold' } })).toMatchObject({ reason: 'rule', value: true });
  });

  it('reports user agent and IP conditions unsupported when it has no parser or table', () => {
    const ua = engine.checkGate('agents', { userID: 'u1', userAgent: 'Mozilla/5.0 (Windows NT 10.0) Firefox/121.0' });
    expect(ua.reason).toBe('unsupported');
    // A value given on the user needs no parsing.
    expect(engine.checkGate('agents', { userID: 'u1', custom: { browser_name: 'Chrome' } })).toMatchObject({ reason: 'rule', value: true });
    expect(engine.checkGate('geo', { userID: 'u1', ip: '8.8.8.8' }).reason).toBe('unsupported');
    expect(engine.checkGate('geo', { userID: 'u1', country: 'US' })).toMatchObject({ reason: 'rule', value: true });
  });

  it('evaluates in the environment it is given, overriding the user', () => {
    const user = { userID: 'u1', statsigEnvironment: { tier: 'development' } };
    expect(engine.checkGate('tiers', user).value).toBe(false);
    expect(engine.checkGate('tiers', user, { environment: 'production' })).toMatchObject({ value: true, ruleName: 'prod' });
  });

  it('explains a layer through the experiment it allocated the unit to', () => {
    for (let i = 0; i < 200; i++) {
      const r = engine.getLayer('checkout_layer', { userID: `l${i}`, custom: { age: 30 } });
      if (r.configDelegate !== 'checkout_exp' || !r.isExperimentGroup) continue;
      expect(r.trail.at(-1)?.outcome).toBe('delegated');
      expect(r.delegate?.trail.at(-1)?.outcome).toBe('matched');
      expect(['Control', 'Test']).toContain(r.groupName);
      expect(r.explicitParameters).toEqual(['color', 'size']);
      return;
    }
    throw new Error('no unit was allocated to checkout_exp');
  });

  it('checks gates a condition names and shows what they answered', () => {
    const r = engine.checkGate('gates_of_gates', { userID: 'u1', email: 'zed@beta.example' });
    expect(r).toMatchObject({ value: true, ruleName: 'seg' });
    expect(r.trail[0]?.conditions[0]?.gates).toEqual([{ name: 'segment:beta_testers', value: true, ruleID: 'rule_39' }]);
  });
});
