import { escapeControl } from './escape-control.js';
import { ACTION_MARK, fieldLines, ownedFieldTexts, policySummary, summaryText } from './plan-format.js';
import type { Plan, PlanChange } from './plan.js';

const INDENT = '    ';

export interface PlanTextOptions {
  /** ANSI colours (a terminal without NO_COLOR); plain text otherwise. */
  color?: boolean;
}

type Paint = (marker: string, text: string) => string;

/** Text from the repository or the console, on one line of the terminal: see escapeControl. */
const t = (text: string): string => escapeControl(text, true);

const SGR: Readonly<Record<string, string>> = { '+': '32', '-': '31', '~': '33', '!': '35', bold: '1', dim: '2' };

const painter = (color: boolean): Paint => (marker, text) => {
  const code = SGR[marker];
  return color && code !== undefined && text !== '' ? `\u001b[${code}m${text}\u001b[0m` : text;
};

function changeHeader(change: PlanChange, paint: Paint): string {
  const where = change.file !== null ? ` (${t(change.file)})` : '';
  const note =
    change.action === 'delete'
      ? ' will be deleted'
      : change.action === 'drift'
        ? ` changed in the console${change.drift?.lastModifier ? ` by ${t(change.drift.lastModifier)}` : ''}, not through git${change.drift ? ` (drift policy: ${change.drift.policy})` : ''}`
        : '';
  const mark = ACTION_MARK[change.action];
  const lifecycle = change.lifecycle === undefined ? '' : ` ${paint('bold', `(${change.lifecycle})`)}`;
  return `${paint(mark, mark)} ${paint('bold', t(`${change.kind}/${change.id}`))}${lifecycle}${where}${note}`;
}

/** The terminal plan: terraform-like `+ create / ~ update / - delete / ! drift`, field by field as YAML, and a summary line. */
export function renderPlanText(plan: Plan, options: PlanTextOptions = {}): string {
  const paint = painter(options.color === true);
  const lines: string[] = [`flagops plan: ${t(plan.desired)} compared with ${t(plan.live)}`, ''];
  for (const change of plan.changes) {
    lines.push(changeHeader(change, paint));
    if (change.action !== 'delete') {
      for (const field of change.fields) {
        const f = fieldLines(field);
        if (f.inline) {
          const value = f.op === '~' ? `${paint('-', t(f.inline.old ?? ''))} → ${paint('+', t(f.inline.new ?? ''))}` : paint(f.op, t(f.inline.new ?? f.inline.old ?? ''));
          lines.push(`${INDENT}${paint(f.op, f.op)} ${t(f.path)}: ${value}`);
        } else {
          lines.push(`${INDENT}${paint(f.op, f.op)} ${t(f.path)}:`);
          for (const line of f.block ?? []) lines.push(paint(line.op, `${INDENT}  ${line.op} ${t(line.text)}`.trimEnd()));
        }
      }
    }
    for (const v of change.policies ?? []) {
      const mark = v.verdict === 'reject' ? paint('-', 'reject') : v.verdict === 'warn' ? paint('!', 'warn') : paint('dim', 'pass');
      lines.push(`${INDENT}policy ${t(v.policy)}: ${mark}: ${t(v.message)}`);
    }
    lines.push('');
  }
  if (plan.changes.length === 0) lines.push(`No changes: ${plan.live} matches ${plan.desired}.`, '');
  for (const owned of plan.owned ?? []) {
    for (const text of ownedFieldTexts(owned)) lines.push(`${paint('dim', '=')} ${t(`${owned.kind}/${owned.id}`)} (${t(owned.file)}) owned by the console: ${t(text)}`);
  }
  if ((plan.owned ?? []).length > 0) lines.push('');
  for (const warning of plan.warnings) lines.push(`${paint('!', 'warning:')} ${t(warning)}`);
  if (plan.summary.untracked > 0) {
    lines.push(`note: ${plan.summary.untracked} live entit${plan.summary.untracked === 1 ? 'y' : 'ies'} without a file left alone (pruning is off, or not tagged as managed).`);
  }
  const policies = policySummary(plan.changes);
  if (policies !== undefined) lines.push(`${paint('bold', 'Policies:')} ${policies}.`);
  lines.push(`${paint('bold', 'Plan:')} ${summaryText(plan.summary)}.`);
  return `${lines.join('\n')}\n`;
}
