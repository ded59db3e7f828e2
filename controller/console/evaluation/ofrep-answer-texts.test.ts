/**
 * The kept texts of OFREP answers must be, byte for byte, the JSON of the answer made afresh: for
 * every flag of the hand-made specs (gates, configs, experiments, layers; splits, overrides,
 * delegations, defaults) and many users, in both a lean and a full evaluation.
 */
import { describe, expect, it } from 'vitest';
import { SpecEvaluator } from '../../core/eval/evaluate-spec.js';
import { evaluateFlag, FlagIndex } from '../../core/eval/flag-keys.js';
import { generateUsers, handMadeSpecs } from '../../test-support/hand-made-specs.js';
import { ofrepAnswer } from './ofrep-answer.js';
import { OfrepAnswerTexts } from './ofrep-answer-texts.js';

describe('OfrepAnswerTexts', () => {
  it('gives the JSON of ofrepAnswer for every flag, user and outcome, and keeps a text per outcome', () => {
    const specs = handMadeSpecs();
    const engine = new SpecEvaluator(specs);
    const flags = new FlagIndex(specs).all();
    const texts = new OfrepAnswerTexts();
    const outcomes = new Map<string, Set<string>>();
    for (const [i, user] of generateUsers(500, 11).entries()) {
      const ctx = { gateMemo: new Map(), decidingRuleOnly: i % 2 === 0 };
      for (const { key, ref } of flags) {
        const { evaluation, value } = evaluateFlag(engine, ref, user, ctx);
        const fresh = JSON.stringify(ofrepAnswer(key, ref, evaluation, value));
        expect(texts.text(key, ref, evaluation, value)).toBe(fresh);
        if (!outcomes.has(key)) outcomes.set(key, new Set());
        outcomes.get(key)?.add(fresh);
      }
    }
    // The users reach several outcomes of some flags (else the test would prove little).
    expect(Math.max(...[...outcomes.values()].map((s) => s.size))).toBeGreaterThan(2);
  });

  it('tells apart outcomes that differ only in the value, by identity', () => {
    const specs = handMadeSpecs();
    const engine = new SpecEvaluator(specs);
    const { key, ref } = new FlagIndex(specs).all().find((f) => f.ref.kind === 'dynamic_config') ?? { key: '', ref: undefined };
    if (ref === undefined) throw new Error('the hand-made specs have a dynamic config');
    const { evaluation } = evaluateFlag(engine, ref, { userID: 'u1' });
    const texts = new OfrepAnswerTexts();
    expect(texts.text(key, ref, evaluation, { limit: 1 })).toContain('"value":{"limit":1}');
    expect(texts.text(key, ref, evaluation, { limit: 2 })).toContain('"value":{"limit":2}');
    // Past the outcomes kept per flag, texts are still right.
    for (let n = 3; n < 40; n++) expect(texts.text(key, ref, evaluation, { limit: n })).toContain(`"value":{"limit":${n}}`);
  });
});
