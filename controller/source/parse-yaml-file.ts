import { isScalar, type Document, type Node } from 'yaml';
import type { Diagnostic, Issue } from '../core/repo-entity.js';
import { fastYamlLoad } from './fast-yaml-load.js';
import { parseYamlDocument, TOO_DEEP_MESSAGE } from './parse-yaml-document.js';
import { propertyNode } from './property-node.js';
import { documentIssues } from './yaml-document-issues.js';
import { MAX_ALIAS_COUNT, MAX_DEPTH } from './yaml-limits.js';
import { isBinaryText, yamlSourceText } from './yaml-source-text.js';

export { MAX_ALIAS_COUNT, MAX_DEPTH } from './yaml-limits.js';

/** A YAML file parsed with node positions, so issues found later can point at line and column. */
export interface ParsedYamlFile {
  file: string;
  /** The file as plain JS (undefined when the YAML does not parse). */
  data: unknown;
  /** Syntax errors and warnings of the YAML itself. */
  issues: Issue[];
  /** Places an issue of this file at the node its property path names. */
  place(issue: Issue): Diagnostic;
}

/** The offset of the node a property path names: its value node, or its key for `at: 'key'`, else the nearest existing ancestor. */
function nodeAt(doc: Document, property: string, at: 'key' | 'value' | undefined): { offset: number; node: unknown } {
  const { node, pair } = propertyNode(doc, property);
  if (at === 'key' && pair && isScalar(pair.key) && pair.key.range) return { offset: pair.key.range[0], node: pair.key };
  const offset = (node as Node | null)?.range?.[0] ?? (pair?.key as Node | null)?.range?.[0] ?? 0;
  return { offset, node };
}

const BLOCK_POSITION = / at (\d+):(\d+)$/;

/**
 * A JSON5 error inside a literal block (`defaultValueJson5: |`) names a line and column of the
 * block's text ("at 3:7"): translated to the file's line and column, else the block itself.
 */
function insideBlock(node: unknown, message: string, text: string, linePos: (offset: number) => { line: number; col: number }): { line: number; col: number } | undefined {
  const match = BLOCK_POSITION.exec(message);
  if (!match || !isScalar(node) || node.type !== 'BLOCK_LITERAL' || !node.range) return undefined;
  const header = linePos(node.range[0]).line;
  const lines = text.split('\n');
  const first = lines.slice(header).find((l) => l.trim() !== '') ?? '';
  const indent = first.length - first.trimStart().length;
  const line = header + Number(match[1]);
  return line <= lines.length ? { line, col: indent + Number(match[2]) } : undefined;
}

/**
 * Parses a YAML file to plain data. A file js-yaml reads exactly as `yaml` would takes the fast path;
 * its positioned document is built only when an issue must be placed. Everything else is parsed by
 * `yaml`, whose errors and warnings are the file's syntax issues.
 */
export function parseYamlFile(file: string, source: string): ParsedYamlFile {
  const text = yamlSourceText(source);
  let fast: { data: unknown } | undefined;
  try {
    fast = isBinaryText(text) ? undefined : fastYamlLoad(text, MAX_DEPTH);
  } catch {
    // Whatever the fast path trips on, the full parse reports with a position.
    fast = undefined;
  }
  if (!fast) return parseYamlFileFully(file, source);
  let full: ParsedYamlFile | undefined;
  return {
    file,
    data: fast.data,
    issues: [],
    place(issue) {
      full ??= parseYamlFileFully(file, source);
      return full.place(issue);
    },
  };
}

/** Nesting depth of plain data, counted without recursion and given up past `stop`. */
function depthOf(data: unknown, stop: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[data, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > stop) return deepest;
    for (const child of Array.isArray(value) ? value : Object.values(value as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The full parse with `yaml`: node positions, syntax errors and warnings, and what JSON cannot hold. */
export function parseYamlFileFully(file: string, source: string): ParsedYamlFile {
  const parsed = parseYamlDocument(source);
  const { doc, text, linePos } = parsed;
  const issues: Issue[] = [];
  const syntaxOffsets = new Map<Issue, number>();
  const fail = (message: string, offset: number, property = ''): undefined => {
    const issue: Issue = { file, property, message, code: 'yaml', severity: 'error' };
    syntaxOffsets.set(issue, offset);
    issues.push(issue);
    return undefined;
  };
  for (const error of parsed.errors) fail(error.message, error.offset);
  for (const warning of parsed.warnings) {
    const issue: Issue = { file, property: '', message: warning.message, code: 'yaml', severity: 'warning' };
    syntaxOffsets.set(issue, warning.offset);
    issues.push(issue);
  }
  let data: unknown;
  // A document with syntax errors is partly guessed: what it holds is judged once they are fixed.
  if (doc && parsed.errors.length === 0) {
    const found = documentIssues(doc, parsed);
    for (const issue of found) fail(issue.message, issue.offset, issue.property);
    if (found.length === 0) {
      try {
        data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
        if (depthOf(data, MAX_DEPTH) > MAX_DEPTH) data = fail(`${TOO_DEEP_MESSAGE} (through aliases)`, 0);
      } catch (error) {
        // Every alias names an anchor (checked above): what `yaml` refuses here is the expansion count.
        const message = error instanceof ReferenceError && /excessive alias/i.test(error.message) ? `expands aliases more than ${MAX_ALIAS_COUNT} times: refused as a resource-exhaustion attack` : `cannot be read as YAML: ${(error as Error).message}`;
        data = fail(message, 0);
      }
    }
  }
  return {
    file,
    data,
    issues,
    place(issue) {
      const syntax = syntaxOffsets.get(issue);
      if (syntax !== undefined || !doc) {
        const { line, col } = linePos(syntax ?? 0);
        return { ...issue, line, column: col };
      }
      const { offset, node } = nodeAt(doc, issue.property, issue.at);
      const inside = insideBlock(node, issue.message, text, linePos);
      // Placed at the file's line and column, the block's own "at 3:7" would read as a second, wrong position.
      if (inside) return { ...issue, message: issue.message.replace(BLOCK_POSITION, ''), line: inside.line, column: inside.col };
      const { line, col } = linePos(offset);
      return { ...issue, line, column: col };
    },
  };
}
