import { describe, expect, it } from 'vitest';
import { activeFreeze, policyViolations, type ProposedChange } from './bridge-policies.js';

const change = (overrides: Partial<ProposedChange> = {}): ProposedChange => ({
  folder: 'gates',
  id: 'checkout',
  changeType: 'rules',
  oldConfig: { rules: [{ name: 'ramp', passPercentage: 10 }] },
  newConfig: { rules: [{ name: 'ramp', passPercentage: 20 }] },
  ...overrides,
});
const monday = Date.parse('2026-11-23T12:00:00Z');

describe('policyViolations', () => {
  it('passes a change that breaks no policy', () => {
    expect(policyViolations(change(), { maxPassPercentageStep: 10, protectedEntities: ['gates/other'] }, monday)).toEqual([]);
  });

  it('refuses changes and deletes of protected entities by qualified or bare id, not their creation', () => {
    expect(policyViolations(change(), { protectedEntities: ['gates/checkout'] }, monday)[0]).toMatch(/protected/);
    expect(policyViolations(change(), { protectedEntities: ['checkout'] }, monday)).toHaveLength(1);
    expect(policyViolations(change({ oldConfig: null }), { protectedEntities: ['checkout'] }, monday)).toEqual([]);
    expect(policyViolations(change({ newConfig: null }), { protectedEntities: ['checkout'] }, monday)).toHaveLength(1);
  });

  it('refuses a pass-percentage step above the limit, counting new rules from 0, not for creates', () => {
    expect(policyViolations(change(), { maxPassPercentageStep: 5 }, monday)[0]).toMatch(/10 → 20/);
    const added = change({ newConfig: { rules: [{ name: 'fresh', passPercentage: 50 }] } });
    expect(policyViolations(added, { maxPassPercentageStep: 25 }, monday)[0]).toMatch(/'fresh'.*0 → 50/);
    expect(policyViolations(change({ oldConfig: null }), { maxPassPercentageStep: 5 }, monday)).toEqual([]);
    const lowered = change({ newConfig: { rules: [{ name: 'ramp', passPercentage: 0 }] } });
    expect(policyViolations(lowered, { maxPassPercentageStep: 1 }, monday)).toEqual([]);
  });

  it('refuses during absolute and weekly freeze windows only', () => {
    const absolute = { start: '2026-11-23T00:00:00Z', end: '2026-11-24T00:00:00Z', reason: 'release' };
    expect(policyViolations(change(), { freezeWindows: [absolute] }, monday)[0]).toMatch(/release/);
    expect(policyViolations(change(), { freezeWindows: [absolute] }, Date.parse('2026-11-24T00:00:00Z'))).toEqual([]);
    expect(activeFreeze([{ days: ['sat', 'sun'] }], monday)).toBeUndefined();
    expect(activeFreeze([{ days: ['mon'], from: '11:00', to: '13:00' }], monday)).toBeDefined();
    expect(activeFreeze([{ days: ['mon'], from: '13:00', to: '14:00' }], monday)).toBeUndefined();
  });
});
