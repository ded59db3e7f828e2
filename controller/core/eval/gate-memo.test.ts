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
