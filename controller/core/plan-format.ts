/**
 * How plan values look in the text and markdown renderers: YAML, as the files are written — a scalar
 * or a short list of scalars on one line, a rule, condition or value as a YAML block, a multi-line
 * text as its own lines — and a line diff when both sides span several lines.
 */
import { Document, isScalar, visit } from 'yaml';
import type { FieldChange } from './diff.js';
import { lineDiff } from './line-diff.js';
import type { OwnedDifference, PlanAction, PlanChange, PlanSummary } from './plan.js';
import { isPlainObject } from './is-plain-object.js';

const SHORT = 80;

/** Mappings and lists of mappings read as YAML blocks, even when small: `name: x` lines, as the file has them. */
const isBlock = (v: unknown): boolean => (isPlainObject(v) && Object.keys(v).length > 0) || (Array.isArray(v) && v.some((item) => typeof item === 'object' && item !== null));

/** A value as YAML text: lists of scalars in flow style (`[a, b]`) while short, everything else as blocks. */
function toYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Seq(_key, node) {
      if (node.items.every((item) => isScalar(item)) && JSON.stringify(node.toJSON()).length <= SHORT) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false }).replace(/\n$/, '');
}

/** Lines of a value: a multi-line string as its lines, a scalar or short list on one line, else a YAML block. */
export function valueLines(value: unknown): string[] {
  if (value === undefined) return ['(absent)'];
  if (typeof value === 'string' && value.includes('\n')) return value.replace(/\n$/, '').split('\n');
  return toYaml(value).split('\n');
}

/** Lines describing one field change: `op` is the leading marker, the rest is the payload. */
export interface FieldLines {
  op: '+' | '-' | '~';
  path: string;
  /** Shown on the path's line (`path: old → new`) when both fit on one line. */
  inline?: { old?: string; new?: string };
  /** Otherwise the value's lines, each with its own marker. */
  block?: { op: ' ' | '-' | '+'; text: string }[];
}

export function fieldLines(field: FieldChange): FieldLines {
  const hasOld = 'old' in field && field.old !== undefined;
  const hasNew = 'new' in field && field.new !== undefined;
  const op = hasOld && hasNew ? '~' : hasNew ? '+' : '-';
  const oldLines = hasOld ? valueLines(field.old) : [];
  const newLines = hasNew ? valueLines(field.new) : [];
  if (oldLines.length <= 1 && newLines.length <= 1 && !isBlock(field.old) && !isBlock(field.new)) {
    return { op, path: field.path, inline: { ...(hasOld ? { old: oldLines[0] } : {}), ...(hasNew ? { new: newLines[0] } : {}) } };
  }
  if (op === '~') return { op, path: field.path, block: lineDiff(oldLines.join('\n'), newLines.join('\n')) };
  const marker = op === '+' ? '+' : '-';
  return { op, path: field.path, block: (hasNew ? newLines : oldLines).map((text) => ({ op: marker, text })) };
}

export const ACTION_MARK: Readonly<Record<PlanAction, string>> = { create: '+', update: '~', delete: '-', drift: '!' };

const plural = (n: number, word: string): string => `${n} ${word}`;

/** `1 to create, 2 to update, 0 to delete, 0 drifted, 27 unchanged`. */
export function summaryText(summary: PlanSummary): string {
  return [
    plural(summary.create, 'to create'),
    plural(summary.update, 'to update'),
    plural(summary.delete, 'to delete'),
    plural(summary.drift, 'drifted'),
    plural(summary.unchanged, 'unchanged'),
  ].join(', ');
}

/** A value on one line: its YAML when that is one line, else its JSON. */
const oneLine = (value: unknown): string => {
  const lines = valueLines(value);
  return lines.length === 1 ? (lines[0] ?? '') : JSON.stringify(value);
};

/** `isEnabled false in the console, true in the file`, for each field of an owned difference. */
export function ownedFieldTexts(owned: OwnedDifference): string[] {
  return owned.fields.map((f) => `${f.path} ${oneLine(f.old)} in the console, ${oneLine(f.new)} in the file`);
}

/** Changes with a `reject` verdict: what the bridge would refuse. */
export function rejectedChanges(changes: readonly PlanChange[]): PlanChange[] {
  return changes.filter((c) => (c.policies ?? []).some((v) => v.verdict === 'reject'));
}

/** One sentence on the plan's policy verdicts, or undefined when no policy applies to any change. */
export function policySummary(changes: readonly PlanChange[]): string | undefined {
  const judged = changes.filter((c) => (c.policies ?? []).length > 0);
  if (judged.length === 0) return undefined;
  const rejected = rejectedChanges(changes).length;
  const warned = changes.filter((c) => (c.policies ?? []).some((v) => v.verdict === 'warn')).length;
  const n = (k: number, what: string): string => `${k} ${what}${k === 1 ? '' : 's'}`;
  const parts = [rejected === 0 ? `no change the bridge would reject` : `${n(rejected, 'change')} the bridge would reject`];
  if (warned > 0) parts.push(`${n(warned, 'warning')}`);
  return `${parts.join(', ')} (${n(judged.length, 'change')} judged)`;
}
