import type { Diagnostic } from '../core/repo-entity.js';
import type { RepoProblem } from './repo-reader.js';

/** A file the reader refused, as a diagnostic: at the position the problem names, else at 1:1. */
export function problemDiagnostic(p: RepoProblem): Diagnostic {
  return { file: p.path, property: '', message: p.message, code: 'file', severity: 'error', line: p.line ?? 1, column: p.column ?? 1 };
}
