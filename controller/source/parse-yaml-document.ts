import { Composer, LineCounter, Parser, type Document } from 'yaml';
import { nestingSuspectAt } from './nesting-suspect.js';
import { scanYamlTokens } from './scan-yaml-tokens.js';
import { MAX_DEPTH } from './yaml-limits.js';
import { isBinaryText, yamlSourceText } from './yaml-source-text.js';

/** A problem `yaml` (or the guards around it) found, at an offset of the parsed text. */
export interface YamlProblem {
  message: string;
  offset: number;
  /** `yaml`'s error code, or this module's own (BINARY, TOO_DEEP, MULTIPLE_DOCS, YAML_VERSION). */
  code: string;
}

export interface YamlDocument {
  /** The text as parsed (see yamlSourceText): every offset is one of it. */
  text: string;
  /** Undefined when the text was refused before `yaml` composed it (binary, too deep). */
  doc?: Document.Parsed;
  errors: YamlProblem[];
  /** `yaml`'s warnings but the unresolved tags (see failedTagOffsets). */
  warnings: YamlProblem[];
  /** Offsets of the tags in the text, ascending. */
  tagOffsets: number[];
  /** Offsets of the tags `yaml` could not apply (`!!binary` left unresolved, `!!int abc`): its warnings, here facts for documentIssues. */
  failedTagOffsets: Set<number>;
  /** 1-based line and column of an offset. */
  linePos(offset: number): { line: number; col: number };
}

export const TOO_DEEP_MESSAGE = `nests deeper than ${MAX_DEPTH} levels of mappings and sequences`;

/** Longest message kept from `yaml`: some quote the offending token whole, which may be a whole binary file. */
const MAX_MESSAGE_LENGTH = 160;

/**
 * Parses a YAML file with `yaml`, guarded so that no input, however deep or odd, gets past as a
 * library error: a binary file is refused once, nesting past MAX_DEPTH is refused where it passes it
 * (found in the concrete syntax tree before the recursive composer ever sees it), a second document
 * is named as such, and so is a `%YAML 1.1` directive. YAML 1.1's tags (`!!binary`, `!!set`,
 * `!!timestamp`...) are left unresolved, for the caller to refuse with the tag's position: their
 * values are not JSON.
 */
export function parseYamlDocument(source: string): YamlDocument {
  const text = yamlSourceText(source);
  const lineCounter = new LineCounter();
  let counted = false;
  const linePos = (offset: number): { line: number; col: number } => {
    if (!counted) {
      lineCounter.addNewLine(0);
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineCounter.addNewLine(at + 1);
      counted = true;
    }
    return lineCounter.linePos(offset);
  };
  const refused = (message: string, offset: number, code: string): YamlDocument => ({ text, errors: [{ message, offset, code }], warnings: [], tagOffsets: [], failedTagOffsets: new Set(), linePos });

  if (isBinaryText(text)) return refused('is a binary file, not YAML', 0, 'BINARY');
  const suspect = nestingSuspectAt(text, MAX_DEPTH);
  if (suspect !== undefined) {
    // Only the text up to the runaway nesting is parsed, to find where it passes the limit.
    const before = scanYamlTokens([...new Parser().parse(text.slice(0, suspect + 1))], MAX_DEPTH);
    if (before.tooDeepAt !== undefined) return refused(TOO_DEEP_MESSAGE, before.tooDeepAt, 'TOO_DEEP');
  }
  const tokens = [...new Parser().parse(text)];
  const scan = scanYamlTokens(tokens, MAX_DEPTH);
  if (scan.tooDeepAt !== undefined) return refused(TOO_DEEP_MESSAGE, scan.tooDeepAt, 'TOO_DEEP');

  const composer = new Composer({ prettyErrors: false, uniqueKeys: false, resolveKnownTags: false });
  let doc: Document.Parsed | undefined;
  const errors: YamlProblem[] = [];
  for (const next of composer.compose(tokens, true, text.length)) {
    if (!doc) {
      doc = next;
      continue;
    }
    const { line, col } = linePos(next.range[0]);
    errors.push({ message: `a file holds one YAML document; found a second at ${line}:${col}`, offset: next.range[0], code: 'MULTIPLE_DOCS' });
    break;
  }
  // YAML 1.1 (`yaml` honours the directive) reads `yes` as true, dates as timestamps, `<<` as a merge.
  if (doc?.directives?.yaml.explicit && doc.directives.yaml.version === '1.1') {
    errors.push({ message: 'YAML 1.1 (%YAML 1.1) is not supported: entity files are YAML 1.2, whose values are JSON values', offset: Math.max(0, text.search(/^%YAML\b/m)), code: 'YAML_VERSION' });
  }
  const problem = (error: { message: string; pos: [number, number]; code: string }): YamlProblem => ({ message: shortMessage(error.message), offset: error.pos[0], code: error.code });
  const warnings = doc?.warnings.map(problem) ?? [];
  return {
    text,
    doc,
    errors: [...(doc?.errors.map(problem) ?? []), ...errors],
    warnings: warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED'),
    tagOffsets: scan.tagOffsets,
    failedTagOffsets: new Set(warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED').map((w) => w.offset)),
    linePos,
  };
}

/** The first line of a message of `yaml`, cut short past MAX_MESSAGE_LENGTH characters. */
function shortMessage(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.length > MAX_MESSAGE_LENGTH ? `${first.slice(0, MAX_MESSAGE_LENGTH)}…` : first;
}
