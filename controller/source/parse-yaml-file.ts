import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import type { Diagnostic, Issue } from '../core/repo-entity.js';
import { fastYamlLoad } from './fast-yaml-load.js';

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

/** `rules[0].conditions[1].type` → ['rules', 0, 'conditions', 1, 'type']. */
export function splitPath(property: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const match of property.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) parts.push(Number(match[2]));
    else if (match[1] !== undefined) parts.push(match[1]);
  }
  return parts;
}

/** Pairs of each mapping by key, built on first use: placing many issues in a large mapping stays linear. */
const pairIndex = new WeakMap<object, Map<string, Pair>>();

function pairOf(node: unknown, key: string): Pair | undefined {
  if (!isMap(node)) return undefined;
  let index = pairIndex.get(node);
  if (!index) {
    index = new Map();
    for (const pair of node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (!index.has(name)) index.set(name, pair);
    }
    pairIndex.set(node, index);
  }
  return index.get(key);
}

/** The node a property path names: its value node, or its key for `at: 'key'`, else the nearest existing ancestor. */
function nodeAt(doc: Document, property: string, at: 'key' | 'value' | undefined): { offset: number; node: unknown } {
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
  let pair: Pair | undefined;
  for (const part of splitPath(property)) {
    pair = undefined;
    let next: unknown;
    if (typeof part === 'number' && isSeq(node)) next = node.items[part];
    else if (typeof part === 'string') {
      // A value written as its JSON5 twin (`returnValueJson5: |`) is found at the block.
      pair = pairOf(node, part) ?? pairOf(node, `${part}Json5`);
      next = pair ? (pair.value ?? pair.key) : undefined;
    }
    if (next === undefined || next === null) break;
    node = next;
    const start = isPair(node) ? (node.key as Node | null)?.range?.[0] : (node as Node).range?.[0];
    if (start !== undefined) offset = start;
  }
  if (at === 'key' && pair && isScalar(pair.key) && pair.key.range) return { offset: pair.key.range[0], node: pair.key };
  return { offset, node };
}

/**
 * A JSON5 error inside a literal block (`defaultValueJson5: |`) names a line and column of the
 * block's text ("at 3:7"): translated to the file's line and column, else the block itself.
 */
function insideBlock(node: unknown, message: string, text: string, lineCounter: LineCounter): { line: number; col: number } | undefined {
  const match = / at (\d+):(\d+)$/.exec(message);
  if (!match || !isScalar(node) || node.type !== 'BLOCK_LITERAL' || !node.range) return undefined;
  const header = lineCounter.linePos(node.range[0]).line;
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
export function parseYamlFile(file: string, text: string): ParsedYamlFile {
  let fast: { data: unknown } | undefined;
  try {
    fast = fastYamlLoad(text, MAX_DEPTH);
  } catch {
    // Whatever the fast path trips on, the full parse reports with a position.
    fast = undefined;
  }
  if (!fast) return parseYamlFileFully(file, text);
  let full: ParsedYamlFile | undefined;
  return {
    file,
    data: fast.data,
    issues: [],
    place(issue) {
      full ??= parseYamlFileFully(file, text);
      return full.place(issue);
    },
  };
}

/** Line and column of an offset of a text `yaml` never parsed. */
function linePosition(lineCounter: LineCounter, text: string, offset: number): { line: number; column: number } {
  lineCounter.addNewLine(0);
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineCounter.addNewLine(at + 1);
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Deepest nesting of mappings and sequences a file may have; deeper data is refused before any rule walks it. */
export const MAX_DEPTH = 64;

/** Most alias expansions one file may make (a billion-laughs file is refused, not expanded). */
export const MAX_ALIAS_COUNT = 1000;

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

/** Offset of the first collection nested deeper than MAX_DEPTH, found without recursion. */
function tooDeepAt(doc: Document): number | undefined {
  const stack: [unknown, number][] = [[doc.contents, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > MAX_DEPTH) return (node as Node).range?.[0] ?? 0;
    for (const item of node.items as unknown[]) {
      if (isPair(item)) stack.push([item.value, depth + 1], [item.key, depth + 1]);
      else stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

/**
 * Offsets of repeated keys, mapping by mapping: `yaml`'s own uniqueKeys check compares each key with
 * every earlier one, which turns a file of a million keys into hours.
 */
function duplicateKeys(doc: Document): number[] {
  const offsets: number[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSeq(node)) for (const item of node.items) stack.push(item);
    if (!isMap(node)) continue;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (isScalar(pair.key)) {
        if (seen.has(pair.key.value)) offsets.push(pair.key.range?.[0] ?? 0);
        seen.add(pair.key.value);
      }
      stack.push(pair.key, pair.value);
    }
  }
  return offsets.sort((a, b) => a - b);
}

/**
 * Flow collections nested past this are refused before `yaml` parses them: its composer recurses
 * per level and would run out of stack long before the data could be checked against MAX_DEPTH.
 */
const MAX_FLOW_OPEN = 1000;

/** Offset where unquoted `[`/`{` outnumber their closers by more than MAX_FLOW_OPEN, if anywhere. */
function runawayFlowAt(text: string): number | undefined {
  let open = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === quote) quote = '';
      else if (c === '\n' && quote === '#') quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#') quote = '#';
    else if (c === '[' || c === '{') {
      if (++open > MAX_FLOW_OPEN) return i;
    } else if ((c === ']' || c === '}') && open > 0) open--;
  }
  return undefined;
}

/** The full parse with `yaml`: node positions, syntax errors and warnings. */
export function parseYamlFileFully(file: string, text: string): ParsedYamlFile {
  const lineCounter = new LineCounter();
  const issues: Issue[] = [];
  const syntaxOffsets = new Map<Issue, number>();
  const fail = (message: string, offset: number): undefined => {
    const issue: Issue = { file, property: '', message, code: 'yaml', severity: 'error' };
    syntaxOffsets.set(issue, offset);
    issues.push(issue);
    return undefined;
  };
  const runaway = runawayFlowAt(text);
  if (runaway !== undefined) {
    fail(`nests deeper than ${MAX_DEPTH} levels of mappings and sequences`, runaway);
    return { file, data: undefined, issues, place: (issue) => ({ ...issue, ...linePosition(lineCounter, text, syntaxOffsets.get(issue) ?? 0) }) };
  }
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    // No parse error, however odd, may cost the file its name or the run its other files.
    fail(`cannot be parsed as YAML: ${(error as Error).message}`, 0);
    return { file, data: undefined, issues, place: (issue) => ({ ...issue, line: 1, column: 1 }) };
  }
  for (const [severity, list] of [['error', doc.errors], ['warning', doc.warnings]] as const) {
    for (const error of list) {
      const issue: Issue = { file, property: '', message: error.message.split('\n')[0] ?? error.message, code: 'yaml', severity };
      syntaxOffsets.set(issue, error.pos[0]);
      issues.push(issue);
    }
  }
  // Before the other errors' data check, as `yaml` would have reported them among its errors.
  const duplicates = duplicateKeys(doc);
  for (const offset of duplicates) fail('Map keys must be unique', offset);
  let data: unknown;
  if (doc.errors.length === 0 && duplicates.length === 0) {
    const deep = tooDeepAt(doc);
    if (deep !== undefined) data = fail(`nests deeper than ${MAX_DEPTH} levels of mappings and sequences`, deep);
    else {
      try {
        data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
        if (depthOf(data, MAX_DEPTH) > MAX_DEPTH) data = fail(`nests deeper than ${MAX_DEPTH} levels of mappings and sequences (through aliases)`, 0);
      } catch (error) {
        const message = error instanceof ReferenceError && /alias/i.test(error.message) ? `expands aliases more than ${MAX_ALIAS_COUNT} times: refused as a resource-exhaustion attack` : `cannot be read as YAML: ${(error as Error).message}`;
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
      if (syntax !== undefined) {
        const { line, col } = lineCounter.linePos(syntax);
        return { ...issue, line, column: col };
      }
      const { offset, node } = nodeAt(doc, issue.property, issue.at);
      const { line, col } = insideBlock(node, issue.message, text, lineCounter) ?? lineCounter.linePos(offset);
      return { ...issue, line, column: col };
    },
  };
}
