import { escapeControl } from './escape-control.js';
import { ACTION_MARK, fieldLines, ownedFieldTexts, policySummary, rejectedChanges, summaryText } from './plan-format.js';
import type { Plan, PlanChange } from './plan.js';

/** GitHub refuses comments above 65,536 characters; stay well below. */
export const MARKDOWN_BUDGET = 60_000;
/** Marks the comment so CI can find and replace it (one sticky comment per pull request). */
export const PLAN_COMMENT_MARKER = '<!-- flagops-plan -->';

const ACTION_LABEL: Readonly<Record<PlanChange['action'], string>> = { create: 'create', update: 'update', delete: 'delete', drift: 'drift' };

/** Text from the repository or the console, on one line: see escapeControl. */
const t = (text: string): string => escapeControl(text, true);

/** A code span: fenced by one backtick more than the longest run in the text, so none closes it early. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${ticks}${pad}${t(text)}${pad}${ticks}`;
}

/** Text inside HTML (the details' summary line): no tag or entity of its own. */
function html(text: string): string {
  return t(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Text in a markdown paragraph (warnings): no emphasis, link, tag or table cell of its own. */
export function plain(text: string): string {
  return t(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*[\]|]/g, (c) => `\\${c}`)
    // Inside a word (dark_mode) an underscore is no emphasis and stays as it is.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function fence(body: string): string {
  let ticks = '```';
  while (body.includes(ticks)) ticks += '`';
  return `${ticks}diff\n${body}\n${ticks}`;
}

/** The body of an entity's details: a diff block GitHub colours (- old, + new). */
function diffBody(change: PlanChange): string {
  const lines: string[] = [];
  for (const field of change.fields) {
    const f = fieldLines(field);
    if (f.inline) {
      if (f.inline.old !== undefined) lines.push(`- ${t(f.path)}: ${t(f.inline.old)}`);
      if (f.inline.new !== undefined) lines.push(`+ ${t(f.path)}: ${t(f.inline.new)}`);
    } else {
      lines.push(`${f.op === '~' ? ' ' : f.op} ${t(f.path)}:`);
      for (const line of f.block ?? []) lines.push(`${line.op}   ${t(line.text)}`.trimEnd());
    }
  }
  return lines.join('\n');
}

/** The action's label, with an archive or unarchive it includes: `update, archive`. */
function label(change: PlanChange): string {
  return change.lifecycle === undefined ? ACTION_LABEL[change.action] : `${ACTION_LABEL[change.action]}, ${change.lifecycle}`;
}

function details(change: PlanChange): string {
  const count = `${change.fields.length} field${change.fields.length === 1 ? '' : 's'}`;
  const who = change.drift ? ` (changed in the console${change.drift.lastModifier ? ` by ${html(change.drift.lastModifier)}` : ''}; policy ${change.drift.policy})` : '';
  const summary = `<code>${ACTION_MARK[change.action]} ${html(`${change.kind}/${change.id}`)}</code> ${label(change)}${who}, ${count}`;
  return `<details><summary>${summary}</summary>\n\n${fence(diffBody(change))}\n\n</details>\n`;
}

function tableRow(change: PlanChange): string {
  return `| ${ACTION_MARK[change.action]} ${label(change)} | ${code(escapeCell(`${change.kind}/${change.id}`))} | ${change.file === null ? '' : code(escapeCell(change.file))} | ${change.fields.length} |\n`;
}

/** Owned fields listed before the changes: a few lines each, cut past MAX_OWNED_LINES so the changes keep the budget. */
const MAX_OWNED_LINES = 50;

function ownedSection(plan: Plan): string {
  const lines = (plan.owned ?? []).flatMap((o) => ownedFieldTexts(o).map((text) => `- ${code(`${o.kind}/${o.id}`)} owned by the console: ${plain(text)}`));
  if (lines.length === 0) return '';
  const shown = lines.slice(0, MAX_OWNED_LINES);
  if (lines.length > shown.length) shown.push(`- … and ${lines.length - shown.length} more`);
  return `**Owned by the console** (not applied; the console's value stays):\n\n${shown.join('\n')}\n\n`;
}

const VERDICT_LABEL = { reject: ':x: reject', warn: ':warning: warn', pass: ':white_check_mark: pass' } as const;

/**
 * The Policies section: a row per rejection and warning (what needs a person), passing verdicts
 * counted, cut at `budget` characters with a count of the rows left out.
 */
function policiesSection(plan: Plan, budget: number): string {
  const summary = policySummary(plan.changes);
  if (summary === undefined) return '';
  let out = `#### Policies\n\n${rejectedChanges(plan.changes).length === 0 ? ':white_check_mark:' : ':x:'} ${plain(summary)}.\n\n`;
  const rows = plan.changes.flatMap((c) => (c.policies ?? []).filter((v) => v.verdict !== 'pass').map((v) => ({ change: c, v })));
  if (rows.length > 0) {
    let table = '| verdict | entity | policy | message |\n|---|---|---|---|\n';
    let shown = 0;
    for (const { change, v } of rows) {
      const row = `| ${VERDICT_LABEL[v.verdict]} | ${code(escapeCell(`${change.kind}/${change.id}`))} | ${code(escapeCell(v.policy))} | ${plain(v.message)} |\n`;
      if (table.length + row.length > budget) break;
      table += row;
      shown++;
    }
    if (shown < rows.length) table += `| … | ${rows.length - shown} more | | |\n`;
    out += `${table}\n`;
  }
  const passed = new Set(plan.changes.flatMap((c) => (c.policies ?? []).filter((v) => v.verdict === 'pass').map((v) => v.policy.replace(/#.*$/, ''))));
  if (passed.size > 0) out += `Passed where they apply: ${[...passed].map((p) => code(p)).join(', ')}.\n\n`;
  return out;
}

/**
 * The pull-request comment: the summary table first, then one collapsible section per entity, cut
 * with a note when it would pass the size budget (the terminal and JSON plans are never cut).
 */
export function renderPlanMarkdown(plan: Plan, budget = MARKDOWN_BUDGET): string {
  const s = plan.summary;
  let head = `${PLAN_COMMENT_MARKER}\n### flagops plan: ${plan.changes.length === 0 ? 'no changes' : summaryText(s)}\n\n`;
  head += `| create | update | delete | drift | unchanged |\n|---:|---:|---:|---:|---:|\n| ${s.create} | ${s.update} | ${s.delete} | ${s.drift} | ${s.unchanged} |\n\n`;
  head += `Desired: ${code(plan.desired)} · compared with: ${code(plan.live)}\n\n`;
  for (const warning of plan.warnings) head += `> **Warning:** ${plain(warning)}\n\n`;
  if (s.untracked > 0) head += `${s.untracked} live entit${s.untracked === 1 ? 'y' : 'ies'} without a file left alone (pruning is off, or not tagged as managed).\n\n`;
  head += ownedSection(plan);
  if (plan.changes.length === 0) return `${head}Nothing to apply.\n`;

  // Room kept for the closing note, so a cut comment still fits.
  const reserve = 400;
  let out = head;
  let rows = '| action | entity | file | fields |\n|---|---|---|---:|\n';
  let tableShown = 0;
  for (const change of plan.changes) {
    const row = tableRow(change);
    if (out.length + rows.length + row.length > budget / 2) break;
    rows += row;
    tableShown++;
  }
  if (tableShown < plan.changes.length) rows += `| … | ${plan.changes.length - tableShown} more | | |\n`;
  out += `${rows}\n`;
  out += policiesSection(plan, budget / 4);
  let detailed = 0;
  for (const change of plan.changes) {
    const section = details(change);
    if (out.length + section.length > budget - reserve) break;
    out += section;
    detailed++;
  }
  if (detailed < plan.changes.length || tableShown < plan.changes.length) {
    out += `\n> **Note:** this comment is cut to stay under ${budget.toLocaleString('en-US')} characters: ${plan.changes.length - detailed} of ${plan.changes.length} changed entities are not shown in detail. Run ${code('flagops plan')} for the full plan.\n`;
  }
  return out;
}
