import { ACTION_MARK, fieldLines, summaryText } from './plan-format.js';
import type { Plan, PlanChange } from './plan.js';

const INDENT = '    ';

function changeHeader(change: PlanChange): string {
  const where = change.file !== null ? ` (${change.file})` : '';
  const note =
    change.action === 'delete'
      ? ' will be deleted'
      : change.action === 'drift'
        ? ` changed in the console${change.drift?.lastModifier ? ` by ${change.drift.lastModifier}` : ''}, not through git${change.drift ? ` (drift policy: ${change.drift.policy})` : ''}`
        : '';
  return `${ACTION_MARK[change.action]} ${change.kind}/${change.id}${where}${note}`;
}

/** The terminal plan: terraform-like `+ create / ~ update / - delete / ! drift`, field by field, and a summary line. */
export function renderPlanText(plan: Plan): string {
  const lines: string[] = [`flagops plan: ${plan.desired} compared with ${plan.live}`, ''];
  for (const change of plan.changes) {
    lines.push(changeHeader(change));
    if (change.action !== 'delete') {
      for (const field of change.fields) {
        const f = fieldLines(field);
        if (f.inline) {
          const value = f.op === '~' ? `${f.inline.old} → ${f.inline.new}` : (f.inline.new ?? f.inline.old ?? '');
          lines.push(`${INDENT}${f.op} ${f.path}: ${value}`);
        } else {
          lines.push(`${INDENT}${f.op} ${f.path}:`);
          for (const line of f.block ?? []) lines.push(`${INDENT}  ${line.op} ${line.text}`.trimEnd());
        }
      }
    }
    lines.push('');
  }
  if (plan.changes.length === 0) lines.push(`No changes: ${plan.live} matches ${plan.desired}.`, '');
  for (const warning of plan.warnings) lines.push(`warning: ${warning}`);
  if (plan.summary.untracked > 0) {
    lines.push(`note: ${plan.summary.untracked} live entit${plan.summary.untracked === 1 ? 'y' : 'ies'} without a file left alone (pruning is off, or not tagged as managed).`);
  }
  lines.push(`Plan: ${summaryText(plan.summary)}.`);
  return `${lines.join('\n')}\n`;
}
