import type { FlagTestResult } from './eval/run-flag-tests.js';
import { escapeControl } from './escape-control.js';
import { code, plain } from './render-plan-markdown.js';
import type { Diagnostic } from './repo-entity.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface FlagTestSummary {
  total: number;
  passed: number;
  failed: number;
}

export function summarizeFlagTests(results: readonly FlagTestResult[]): FlagTestSummary {
  const passed = results.filter((r) => r.passed).length;
  return { total: results.length, passed, failed: results.length - passed };
}

/** `gates/new_checkout in production`. */
const subject = (r: FlagTestResult): string => `${r.entity}${r.environment ? ` in ${r.environment}` : ''}`;

/** A failed case as `validate` reports it: an error at the case's list item. */
export function flagTestDiagnostic(r: FlagTestResult): Diagnostic {
  return { file: r.file, line: r.line, column: r.column, property: '', message: `flag test '${r.name}' fails (${subject(r)}): ${r.message}`, code: 'flag-test', severity: 'error' };
}

/** `flagops test`: one line per case (failures at file:line:col), then the counts. */
export function renderFlagTestsText(results: readonly FlagTestResult[]): string {
  const lines = results.map((r) => escapeControl(`${r.passed ? 'ok  ' : 'FAIL'} ${r.file}:${r.line}:${r.column} ${r.name} (${subject(r)}): ${r.message}`));
  const s = summarizeFlagTests(results);
  lines.push(s.total === 0 ? 'flagops test: no flag tests (tests/*.yaml).' : s.failed === 0 ? `flagops test: ${plural(s.total, 'flag test')} pass.` : `flagops test: ${s.failed} of ${plural(s.total, 'flag test')} fail.`);
  return `${lines.join('\n')}\n`;
}

export function renderFlagTestsJson(results: readonly FlagTestResult[]): string {
  return `${JSON.stringify({ summary: summarizeFlagTests(results), results }, null, 2)}\n`;
}

/** Failures listed in a pull-request comment: the rest are a count (the comment has a size budget). */
const MAX_LISTED = 20;

/** The flag tests' part of the pull-request comment: "N flag tests pass", or the failures. */
export function renderFlagTestsMarkdown(results: readonly FlagTestResult[]): string {
  const s = summarizeFlagTests(results);
  if (s.total === 0) return '';
  if (s.failed === 0) return `\n**Flag tests:** ${plural(s.total, 'flag test')} pass.\n`;
  const failed = results.filter((r) => !r.passed);
  let out = `\n**Flag tests: ${s.failed} of ${plural(s.total, 'flag test')} fail.**\n\n`;
  for (const r of failed.slice(0, MAX_LISTED)) out += `- ${code(`${r.file}:${r.line}:${r.column}`)} ${plain(r.name)} (${code(subject(r))}): ${plain(r.message)}\n`;
  if (failed.length > MAX_LISTED) out += `- … and ${failed.length - MAX_LISTED} more: run ${code('flagops test')}.\n`;
  return out;
}
