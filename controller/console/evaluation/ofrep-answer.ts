import type { Evaluation } from '../../core/eval/evaluation.js';
import type { FlagRef } from '../../core/eval/flag-keys.js';

/**
 * An evaluation in OFREP's terms. Reasons: `DISABLED` (the entity is off), `DEFAULT` (no rule
 * matched: the default value), `SPLIT` (bucketing decided: an experiment group, or a rule's pass
 * percentage), `TARGETING_MATCH` (a rule's conditions decided). `variant` is the experiment group,
 * else the deciding rule's id (`default`, `disabled`). An answer the engine cannot give (a
 * condition it cannot evaluate) is a `GENERAL` error: the client then uses its code default.
 */
export type OfrepSuccess = { key: string; value: unknown; reason: string; variant: string; metadata: Record<string, string | number | boolean> };
export type OfrepFailure = { key: string; errorCode: string; errorDetails: string };

export function ofrepAnswer(key: string, ref: FlagRef, evaluation: Evaluation, value: unknown): OfrepSuccess | OfrepFailure {
  if (evaluation.reason === 'unsupported') {
    const u = evaluation.unsupported;
    const why = u ? `rule '${u.ruleName}' has a condition the engine cannot evaluate (${u.condition.unsupported ?? u.condition.type})` : 'a rule cannot be evaluated';
    return { key, errorCode: 'GENERAL', errorDetails: `${ref.kind.replace('_', ' ')} '${ref.id}': ${why}.` };
  }
  const last = evaluation.trail.at(-1);
  const decider = evaluation.delegate?.trail.at(-1) ?? last;
  let reason: string;
  if (evaluation.reason === 'disabled') reason = 'DISABLED';
  else if (evaluation.reason === 'default' || evaluation.reason === 'not_found') reason = 'DEFAULT';
  else reason = evaluation.isExperimentGroup || decider?.bucket !== undefined ? 'SPLIT' : 'TARGETING_MATCH';
  const metadata: Record<string, string | number | boolean> = { kind: ref.kind, ruleID: evaluation.ruleID };
  if (evaluation.ruleName !== null) metadata['ruleName'] = evaluation.ruleName;
  if (evaluation.groupName !== null) metadata['groupName'] = evaluation.groupName;
  if (evaluation.configDelegate !== null) metadata['experiment'] = evaluation.configDelegate;
  return { key, value, reason, variant: evaluation.groupName ?? evaluation.ruleID, metadata };
}
