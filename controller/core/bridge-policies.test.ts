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

  it('runs a weekly window past midnight when to is not after from, and every day when it names no days', () => {
    const at = (iso: string) => Date.parse(iso);
    const night = { days: ['fri', 'sat'] as ('fri' | 'sat')[], from: '22:00', to: '06:00' };
    // 2026-11-27 is a Friday.
    expect(activeFreeze([night], at('2026-11-27T23:00:00Z'))).toBeDefined();
    expect(activeFreeze([night], at('2026-11-28T01:00:00Z'))).toBeDefined(); // Friday's night
    expect(activeFreeze([night], at('2026-11-29T05:59:00Z'))).toBeDefined(); // Saturday's night
    expect(activeFreeze([night], at('2026-11-29T06:00:00Z'))).toBeUndefined();
    expect(activeFreeze([night], at('2026-11-27T21:59:00Z'))).toBeUndefined();
    expect(activeFreeze([night], at('2026-11-27T01:00:00Z'))).toBeUndefined(); // Thursday's night: not listed
    expect(activeFreeze([{ from: '00:00', to: '23:59' }], monday)).toBeDefined();
    expect(activeFreeze([{ to: '11:00' }], monday)).toBeUndefined();
    expect(activeFreeze([{ from: '11:00' }], monday)).toBeDefined();
    expect(activeFreeze([{ reason: 'nothing' }], monday)).toBeUndefined();
  });

  it('allows a rise of exactly the step, whatever binary floating point makes of it', () => {
    for (const from of [3.3, 3.8, 4.3, 5.3]) {
      const stepped = change({ oldConfig: { rules: [{ name: 'r', passPercentage: from }] }, newConfig: { rules: [{ name: 'r', passPercentage: Math.round((from + 5) * 10) / 10 }] } });
      expect(policyViolations(stepped, { maxPassPercentageStep: 5 }, monday)).toEqual([]);
    }
    const over = change({ oldConfig: { rules: [{ name: 'r', passPercentage: 3.3 }] }, newConfig: { rules: [{ name: 'r', passPercentage: 8.4 }] } });
    expect(policyViolations(over, { maxPassPercentageStep: 5 }, monday)).toHaveLength(1);
  });

  it('protects an experiment from lifecycle changes, which carry no config', () => {
    for (const changeType of ['start_experiment', 'ship_experiment', 'abandon_experiment']) {
      const lifecycle = change({ folder: 'experiments', id: 'exp', changeType, oldConfig: null, newConfig: null });
      expect(policyViolations(lifecycle, { protectedEntities: ['experiments/exp'] }, monday)).toEqual(['experiments/exp is protected by policy: change it outside the webhook flow.']);
      expect(policyViolations(lifecycle, { protectedEntities: ['exp'] }, monday)).toHaveLength(1);
    }
  });
});
