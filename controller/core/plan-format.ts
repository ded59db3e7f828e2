/**
 * How plan values look in the text and markdown renderers: one line when short, pretty JSON or the
 * text's own lines when long, and a line diff when both sides span several lines.
 */
import type { FieldChange } from './diff.js';
import { lineDiff } from './line-diff.js';
import type { PlanAction, PlanSummary } from './plan.js';

const SHORT = 80;

/** Lines of a value: a multi-line string as its lines, JSON compact when short, else pretty-printed. */
export function valueLines(value: unknown): string[] {
  if (value === undefined) return ['(absent)'];
  if (typeof value === 'string' && value.includes('\n')) return value.replace(/\n$/, '').split('\n');
  const compact = JSON.stringify(value);
  if (compact.length <= SHORT) return [compact];
  return JSON.stringify(value, null, 2).split('\n');
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
  if (oldLines.length <= 1 && newLines.length <= 1) {
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
