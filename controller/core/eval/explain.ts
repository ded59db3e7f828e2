import type { Evaluation } from './evaluation.js';
import type { FlagRef } from './flag-keys.js';

/** An evaluation as `flagops eval` and the console's evaluate endpoint report it. */
export interface ExplainedEvaluation {
  flag: string;
  kind: FlagRef['kind'];
  id: string;
  environment: string | null;
  value: unknown;
  reason: 'rule' | 'default' | 'disabled' | 'unsupported';
  ruleID: string;
  ruleName: string | null;
  groupName: string | null;
  experiment: string | null;
  trail: Evaluation['trail'];
  experimentTrail: Evaluation['trail'] | null;
  unsupported: { ruleID: string; ruleName: string; reason: string } | null;
}

export function explain(flag: string, ref: FlagRef, environment: string | null, evaluation: Evaluation, value: unknown): ExplainedEvaluation {
  const u = evaluation.unsupported;
  return {
    flag,
    kind: ref.kind,
    id: ref.id,
    environment,
    value,
    reason: evaluation.reason === 'not_found' ? 'default' : evaluation.reason,
    ruleID: evaluation.ruleID,
    ruleName: evaluation.ruleName,
    groupName: evaluation.groupName,
    experiment: evaluation.configDelegate,
    trail: evaluation.trail,
    experimentTrail: evaluation.delegate?.trail ?? null,
    unsupported: u ? { ruleID: u.ruleID, ruleName: u.ruleName, reason: u.condition.unsupported ?? u.condition.type } : null,
  };
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

function trailLines(trail: Evaluation['trail'], indent: string): string[] {
  const lines: string[] = [];
  for (const r of trail) {
    const pct = r.bucket !== undefined ? ` (bucket ${r.bucket} vs ${r.passPercentage}% → < ${r.passPercentage * 100})` : r.passPercentage !== 100 ? ` (${r.passPercentage}%)` : '';
    lines.push(`${indent}${r.ruleName} [${r.ruleID}]: ${r.outcome.replace('_', ' ')}${pct}`);
    for (const c of r.conditions) {
      const what = c.field !== null ? `${c.type} ${c.field}` : c.type;
      const mark = c.unsupported !== undefined ? 'unsupported' : c.passed ? 'pass' : 'fail';
      const cmp = c.operator !== null ? ` ${c.operator} ${JSON.stringify(c.targetValue)}` : c.targetValue != null ? ` ${JSON.stringify(c.targetValue)}` : '';
      const seen = 'value' in c ? ` (user: ${show(c.value)})` : '';
      const gates = c.gates ? ` (${c.gates.map((g) => `${g.name} → ${g.value}`).join(', ')})` : '';
      lines.push(`${indent}  ${mark}: ${what}${cmp}${seen}${gates}${c.unsupported ? ` — ${c.unsupported}` : ''}`);
    }
  }
  return lines;
}

/** What decided the answer, in words: `rule staff [3kGp…]`, `no rule matched (default value)`. */
export function decidedBy(e: Pick<ExplainedEvaluation, 'reason' | 'ruleID' | 'ruleName' | 'groupName' | 'experiment' | 'unsupported'>): string {
  if (e.reason === 'unsupported') return `rule ${e.unsupported?.ruleName ?? e.ruleID}, which the engine cannot evaluate (${e.unsupported?.reason ?? 'unsupported'})`;
  if (e.reason === 'disabled') return 'the entity is disabled';
  if (e.reason === 'default') return 'no rule matched (default value)';
  return `rule ${e.ruleName ?? e.ruleID} [${e.ruleID}]${e.groupName ? `, group ${e.groupName}` : ''}${e.experiment ? `, experiment ${e.experiment}` : ''}`;
}

/** The text form: value, deciding rule, then the trail. */
export function renderExplanation(e: ExplainedEvaluation): string {
  const lines = [`${e.kind.replace('_', ' ')} ${e.id}${e.environment ? ` in ${e.environment}` : ''}: ${JSON.stringify(e.value)}`];
  lines.push(e.reason === 'unsupported' ? `  unsupported: rule ${e.unsupported?.ruleName ?? ''} — ${e.unsupported?.reason ?? ''}` : `  decided by: ${decidedBy(e)}`);
  if (e.trail.length > 0) lines.push('  trail:', ...trailLines(e.trail, '    '));
  if (e.experimentTrail && e.experimentTrail.length > 0) lines.push(`  experiment ${e.experiment ?? ''}:`, ...trailLines(e.experimentTrail, '    '));
  return `${lines.join('\n')}\n`;
}
