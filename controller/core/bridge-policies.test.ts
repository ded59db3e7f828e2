import { describe, expect, it } from 'vitest';
import { activeFreeze, policyVerdicts, policyViolations, upcomingFreeze, type ProposedChange } from './bridge-policies.js';

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

describe('policyVerdicts', () => {
  const teamTag = { gates: { required: ['tags'], properties: { tags: { description: 'every gate carries a team-* tag', contains: { type: 'string', pattern: '^team-' } } } } };

  it('gives every configured policy a verdict, and none to a policy not configured', () => {
    expect(policyVerdicts(change(), {}, monday)).toEqual([]);
    const verdicts = policyVerdicts(change(), { protectedEntities: ['gates/other'], maxPassPercentageStep: 25, freezeWindows: [{ days: ['sat'] }] }, monday);
    expect(verdicts.map((v) => [v.policy, v.verdict])).toEqual([
      ['protectedEntities', 'pass'],
      ['freezeWindows', 'pass'],
      ['maxPassPercentageStep', 'pass'],
    ]);
    expect(policyVerdicts(change({ oldConfig: null }), { protectedEntities: ['checkout'] }, monday)[0]).toMatchObject({ verdict: 'pass', message: 'gates/checkout is protected; creating it is allowed.' });
  });

  it("names the rule's passPercentage in the new config of a step too large", () => {
    const raised = change({ newConfig: { rules: [{ name: 'staff', passPercentage: 100 }, { name: 'ramp', passPercentage: 80 }] }, oldConfig: { rules: [{ name: 'staff', passPercentage: 100 }, { name: 'ramp', passPercentage: 10 }] } });
    expect(policyVerdicts(raised, { maxPassPercentageStep: 25 }, monday)).toEqual([
      { policy: 'maxPassPercentageStep', verdict: 'reject', message: "rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.", property: 'rules[1].passPercentage' },
    ]);
  });

  it('warns of a freeze window starting within 24 hours, and rejects during it', () => {
    const release = { start: '2026-11-24T06:00:00Z', end: '2026-11-25T00:00:00Z', reason: 'release' };
    expect(policyVerdicts(change(), { freezeWindows: [release] }, monday)).toEqual([
      { policy: 'freezeWindows', verdict: 'warn', message: 'a freeze window starts at 2026-11-24T06:00:00.000Z (in about 18 h) (release): the bridge rejects changes from then.' },
    ]);
    expect(policyViolations(change(), { freezeWindows: [release] }, monday)).toEqual([]);
    expect(policyVerdicts(change(), { freezeWindows: [release] }, Date.parse('2026-11-24T07:00:00Z'))[0]?.verdict).toBe('reject');
    expect(policyVerdicts(change(), { freezeWindows: [release] }, Date.parse('2026-11-22T12:00:00Z'))[0]?.verdict).toBe('pass');
  });

  it('finds the next start of weekly windows, past midnight included', () => {
    // Monday 12:00: Tuesday's window opens tomorrow at 09:00; tonight's 22:00 window comes first.
    expect(upcomingFreeze([{ days: ['tue'], from: '09:00', to: '17:00' }], monday)?.start).toBe(Date.parse('2026-11-24T09:00:00Z'));
    expect(upcomingFreeze([{ days: ['tue'], from: '09:00' }, { days: ['mon'], from: '22:00', to: '06:00' }], monday)?.start).toBe(Date.parse('2026-11-23T22:00:00Z'));
    expect(upcomingFreeze([{ days: ['wed'] }], monday)).toBeUndefined();
    expect(upcomingFreeze([{ end: '2026-11-20T00:00:00Z' }], monday)).toBeUndefined();
    expect(upcomingFreeze([{ days: ['mon'] }], monday)).toBeUndefined(); // active, not upcoming
  });

  it('rejects a new config that breaks a team rule, judged as a file would declare it', () => {
    // A console read: server fields and defaults beside the entity's own; the rule sees the file's form.
    const read = { id: 'checkout', name: 'Checkout', description: '', isEnabled: true, tags: ['checkout'], rules: [], createdTime: 1, lastModifierID: 'u' };
    const verdicts = policyVerdicts(change({ newConfig: read }), { schemas: teamTag }, monday);
    expect(verdicts).toEqual([
      {
        policy: 'policies.schemas.gates#/properties/tags/contains',
        verdict: 'reject',
        message: 'gates/checkout tags breaks team rule policies.schemas.gates#/properties/tags/contains: must contain at least 1 valid item(s) (every gate carries a team-* tag).',
        property: 'tags',
      },
    ]);
    expect(policyVerdicts(change({ newConfig: { ...read, tags: ['team-pay'] } }), { schemas: teamTag }, monday)).toEqual([
      { policy: 'policies.schemas.gates', verdict: 'pass', message: 'gates/checkout satisfies the team rules of its kind.' },
    ]);
    // A delete has no new config to judge; another kind's rule does not apply.
    expect(policyVerdicts(change({ newConfig: null }), { schemas: teamTag }, monday)).toEqual([]);
    expect(policyVerdicts(change({ folder: 'segments' }), { schemas: teamTag }, monday)).toEqual([]);
    expect(policyViolations(change({ newConfig: read }), { schemas: { gates: { required: ['owner'] } } }, monday)).toEqual(["gates/checkout breaks team rule policies.schemas.gates#/required: must have required property 'owner'."]);
  });
});
