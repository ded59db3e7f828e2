/**
 * A bulk evaluation shares one context per user, whose gate memo checks each segment and holdout
 * once: every answer must be the one a lone evaluation gives.
 */
import { describe, expect, it } from 'vitest';
import { generateUsers, handMadeSpecs } from '../../test-support/hand-made-specs.js';
import { SpecEvaluator, type EvaluationContext } from './evaluate-spec.js';
import { evaluateFlag, FlagIndex } from './flag-keys.js';

describe('the gate memo of a shared context', () => {
  it('changes no answer of any flag for any user', () => {
    const specs = handMadeSpecs();
    const engine = new SpecEvaluator(specs);
    const flags = new FlagIndex(specs).all();
    let memoHits = 0;
    for (const user of generateUsers(300)) {
      const memo = new Map();
      const ctx: EvaluationContext = { gateMemo: memo };
      for (const { key, ref } of flags) {
        const alone = evaluateFlag(engine, ref, user);
        const shared = evaluateFlag(engine, ref, user, ctx);
        expect({ key, value: shared.value, reason: shared.evaluation.reason, ruleID: shared.evaluation.ruleID }).toEqual({ key, value: alone.value, reason: alone.evaluation.reason, ruleID: alone.evaluation.ruleID });
      }
      memoHits += memo.size;
    }
    // The memo was used: the specs' conditions check gates.
    expect(memoHits).toBeGreaterThan(0);
  });
});

describe('a context that keeps only the deciding rule', () => {
  it('answers every flag as a full evaluation does, with the deciding rule as its whole trail', () => {
    const specs = handMadeSpecs();
    const engine = new SpecEvaluator(specs);
    const flags = new FlagIndex(specs).all();
    let shortened = 0;
    for (const user of generateUsers(300, 3)) {
      const ctx: EvaluationContext = { gateMemo: new Map(), decidingRuleOnly: true };
      for (const { key, ref } of flags) {
        const full = evaluateFlag(engine, ref, user).evaluation;
        const lean = evaluateFlag(engine, ref, user, ctx).evaluation;
        const { trail: fullTrail, delegate: fullDelegate, unsupported: fullUnsupported, ...fullRest } = full;
        const { trail: leanTrail, delegate: leanDelegate, unsupported: leanUnsupported, ...leanRest } = lean;
        expect({ key, ...leanRest }).toEqual({ key, ...fullRest });
        expect(leanUnsupported?.condition.unsupported).toEqual(fullUnsupported?.condition.unsupported);
        expect(leanDelegate?.ruleID).toEqual(fullDelegate?.ruleID);
        // What OFREP reads: the deciding rule's outcome and bucket, or no rule when none decided.
        const decided = full.reason === 'rule' || full.reason === 'unsupported';
        const { conditions: _c, ...decider } = fullTrail.at(-1) ?? { conditions: [] };
        if (decided) expect(leanTrail.map(({ conditions: _x, ...rest }) => rest)).toEqual([decider]);
        else expect(leanTrail).toEqual([]);
        expect(leanTrail.every((t) => t.conditions.length === 0)).toBe(true);
        if (fullTrail.length > leanTrail.length) shortened += 1;
      }
    }
    expect(shortened).toBeGreaterThan(0);
  });
});
