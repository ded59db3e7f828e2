import { formatFieldError, type FieldError } from '../errors.js';
import { escapeControl } from './escape-control.js';
import { ISSUE_DESCRIPTIONS, type Diagnostic, type IssueCode } from './repo-entity.js';

export interface ValidationSummary {
  files: number;
  entities: number;
  errors: number;
  warnings: number;
}

export function summarize(diagnostics: readonly Diagnostic[], files: number, entities: number): ValidationSummary {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { files, entities, errors, warnings: diagnostics.length - errors };
}

/**
 * A diagnostic as a field error of an InputError (a command refusing an invalid repository), which
 * formatFieldError prints exactly as `validate` prints the diagnostic: the position leads the
 * property, and a diagnostic about the whole file is its whole line, position included.
 */
export function diagnosticFieldError(d: Diagnostic): FieldError {
  const where = `${escapeControl(d.file, true)}:${d.line}:${d.column}`;
  const message = escapeControl(d.severity === 'warning' ? `warning: ${d.message}` : d.message);
  return d.property === '' ? { property: '', errorMessage: `${where} ${message}` } : { property: `${where} ${escapeControl(d.property, true)}`, errorMessage: message };
}

/** `file:line:col property: message`, one line per diagnostic, control characters escaped. */
export function formatDiagnostic(d: Diagnostic): string {
  return formatFieldError(diagnosticFieldError(d));
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function renderDiagnosticsText(diagnostics: readonly Diagnostic[], summary: ValidationSummary): string {
  const lines = diagnostics.map(formatDiagnostic);
  const counts = `${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')}`;
  lines.push(
    summary.errors === 0
      ? `flagops validate: ${plural(summary.files, 'entity file')} valid (${counts}).`
      : `flagops validate: ${counts} in ${plural(new Set(diagnostics.filter((d) => d.severity === 'error').map((d) => d.file)).size, 'file')} (${plural(summary.files, 'entity file')} read).`,
  );
  return `${lines.join('\n')}\n`;
}

/** The stable JSON form of `flagops validate --format json`. */
export function renderDiagnosticsJson(diagnostics: readonly Diagnostic[], summary: ValidationSummary): string {
  const body = {
    valid: summary.errors === 0,
    summary,
    diagnostics: diagnostics.map((d) => ({ file: d.file, line: d.line, column: d.column, property: d.property, message: d.message, code: d.code, severity: d.severity })),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** SARIF 2.1.0, for code-scanning annotations on pull requests. */
export function renderDiagnosticsSarif(diagnostics: readonly Diagnostic[], version: string): string {
  const codes = Object.keys(ISSUE_DESCRIPTIONS) as IssueCode[];
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'flagops',
            version,
            informationUri: 'https://github.com/flagops/flagops',
            rules: codes.map((code) => ({ id: `flagops/${code}`, name: code, shortDescription: { text: ISSUE_DESCRIPTIONS[code] } })),
          },
        },
        results: diagnostics.map((d) => ({
          ruleId: `flagops/${d.code}`,
          ruleIndex: codes.indexOf(d.code),
          level: d.severity,
          message: { text: d.property === '' ? d.message : `${d.property}: ${d.message}` },
          locations: [{ physicalLocation: { artifactLocation: { uri: d.file }, region: { startLine: d.line, startColumn: d.column } } }],
        })),
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
