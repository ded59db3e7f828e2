import { describe, expect, it } from 'vitest';
import type { Diagnostic } from './repo-entity.js';
import { formatFieldError } from '../errors.js';
import { escapeControl } from './escape-control.js';
import { diagnosticFieldError, formatDiagnostic, renderDiagnosticsText, summarize } from './render-diagnostics.js';

const at = (over: Partial<Diagnostic>): Diagnostic => ({ file: 'gates/a.yaml', property: '', message: 'is wrong', code: 'schema', severity: 'error', line: 2, column: 3, ...over });

describe('terminal output of diagnostics', () => {
  it('escapes control characters that come from files, so a hostile file cannot drive the terminal', () => {
    const hostile = at({ file: 'gates/\x1b]0;owned\x07.yaml', property: 'rules[0].\x1b[2Jname', message: "'\x1b[31mred\x9b1m' is not \u202eallowed\x00" });
    const line = formatDiagnostic(hostile);
    expect(line).toBe("gates/\\x1b]0;owned\\x07.yaml:2:3 rules[0].\\x1b[2Jname: '\\x1b[31mred\\x9b1m' is not \\u202eallowed\\x00");
    expect([...line].filter((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f))).toEqual([]);
    expect(renderDiagnosticsText([hostile], summarize([hostile], 1, 0))).not.toContain('\x1b');
  });

  it('keeps tabs and newlines in messages but never lets a file name or property start a new line', () => {
    expect(escapeControl('a\tb\nc')).toBe('a\tb\nc');
    expect(formatDiagnostic(at({ file: 'gates/x\ngates/forged.yaml:1:1 fine', message: 'line one\n\tline two' }))).toBe('gates/x\\x0agates/forged.yaml:1:1 fine:2:3 line one\n\tline two');
  });

  it('leaves ordinary text, including non-ASCII letters, as it is', () => {
    expect(formatDiagnostic(at({ property: 'descripción', message: "is not a known field (did you mean 'description'?)", severity: 'warning' }))).toBe(
      "gates/a.yaml:2:3 descripción: warning: is not a known field (did you mean 'description'?)",
    );
  });

  it('as the field error of a command refusing the repository, prints exactly as validate prints it, with or without a property', () => {
    const cases = [
      at({}),
      at({ property: 'name', message: 'must be 3 to 100 characters long' }),
      // A message with a colon of its own, and one that ends in the punctuation it quotes.
      at({ message: 'Flow sequence in block collection must be sufficiently indented and end with a ]' }),
      at({ message: 'is 2000042 bytes, over the limit of 1 MiB per file; not read' }),
      at({ file: 'gates/\x1b.yaml', message: 'is a folder: \x07' }),
    ];
    for (const d of cases) expect(formatFieldError(diagnosticFieldError(d))).toBe(formatDiagnostic(d));
    expect(diagnosticFieldError(at({ property: 'name' }))).toEqual({ property: 'gates/a.yaml:2:3 name', errorMessage: 'is wrong' });
    expect(diagnosticFieldError(at({}))).toEqual({ property: '', errorMessage: 'gates/a.yaml:2:3 is wrong' });
  });
});
