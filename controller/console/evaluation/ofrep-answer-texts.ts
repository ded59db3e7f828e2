import type { Evaluation } from '../../core/eval/evaluation.js';
import type { FlagRef } from '../../core/eval/flag-keys.js';
import { ofrepAnswer } from './ofrep-answer.js';

/** What an OFREP answer is made of besides its flag: the evaluation's outcome, and its text. */
interface Outcome {
  reason: Evaluation['reason'];
  ruleID: string;
  ruleName: string | null;
  groupName: string | null;
  configDelegate: string | null;
  isExperimentGroup: boolean;
  bucketed: boolean;
  value: unknown;
  text: string;
}

/**
 * Outcomes kept per flag. A flag has a handful (one per rule that can decide, the default); values
 * that are new objects at every evaluation would never be found again, so past this the text is
 * made and not kept.
 */
const OUTCOMES_PER_FLAG = 16;

/** Whether bucketing decided: the deciding rule (of the delegate, for a layer) has a bucket. */
function bucketed(evaluation: Evaluation): boolean {
  return (evaluation.delegate?.trail.at(-1) ?? evaluation.trail.at(-1))?.bucket !== undefined;
}

/**
 * The JSON text of each flag's OFREP answers, kept per outcome for one compiled specs (dropped with
 * them). A bulk evaluation of a thousand flags for a user then joins a thousand kept texts instead of
 * building and serialising a thousand answers: most of its time and of the garbage it left behind.
 * An outcome is found by the fields `ofrepAnswer` reads, the value by identity (the specs' own
 * objects), so a kept text is always the text `ofrepAnswer` would give.
 */
export class OfrepAnswerTexts {
  private readonly byKey = new Map<string, Outcome[]>();

  /** The JSON of `ofrepAnswer(key, ref, evaluation, value)`. */
  text(key: string, ref: FlagRef, evaluation: Evaluation, value: unknown): string {
    // Unsupported answers name the rule and condition: rare, and made each time.
    if (evaluation.reason === 'unsupported') return JSON.stringify(ofrepAnswer(key, ref, evaluation, value));
    const split = bucketed(evaluation);
    let outcomes = this.byKey.get(key);
    if (outcomes === undefined) this.byKey.set(key, (outcomes = []));
    for (const o of outcomes) {
      if (
        o.value === value && o.reason === evaluation.reason && o.ruleID === evaluation.ruleID && o.bucketed === split &&
        o.groupName === evaluation.groupName && o.ruleName === evaluation.ruleName && o.configDelegate === evaluation.configDelegate &&
        o.isExperimentGroup === evaluation.isExperimentGroup
      ) {
        return o.text;
      }
    }
    const text = JSON.stringify(ofrepAnswer(key, ref, evaluation, value));
    if (outcomes.length < OUTCOMES_PER_FLAG) {
      const { reason, ruleID, ruleName, groupName, configDelegate, isExperimentGroup } = evaluation;
      outcomes.push({ reason, ruleID, ruleName, groupName, configDelegate, isExperimentGroup, bucketed: split, value, text });
    }
    return text;
  }
}
