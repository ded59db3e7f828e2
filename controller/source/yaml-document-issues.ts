import { isAlias, isMap, isNode, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';
import { formatPath } from '../core/zod-errors.js';
import type { YamlDocument } from './parse-yaml-document.js';

/** Something a parsed document holds that no JSON value can: refused, at its offset. */
export interface DocumentIssue {
  /** The property the node is or belongs to (`defaultValue.when`). */
  property: string;
  message: string;
  offset: number;
}

/** What documentIssues needs of the parse besides the document (see parseYamlDocument). */
export type DocumentFacts = Pick<YamlDocument, 'text' | 'tagOffsets' | 'failedTagOffsets' | 'linePos'>;

/** The tags of values JSON holds: YAML 1.2's core schema without its extensions. */
const JSON_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`));

/**
 * The key a mapping key becomes in a JSON object, as `yaml` converts it: null is '', a number or
 * boolean its string (so `1` and `"1"` are the same key).
 */
export function jsonKeyOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

type Frame = { node: unknown; path: PropertyKey[] } | { pair: Pair; path: PropertyKey[]; seen: Map<string, Node> };

/**
 * What of a document cannot become the JSON an entity holds, node by node in document order (an
 * explicit stack; anchors are known from where they are set on, as `yaml` resolves aliases):
 * - a tag other than the JSON ones (`!!binary`, `!!set`, `!!omap`, `!!timestamp`, local tags), or a
 *   JSON tag that does not fit its value (`!!int abc`);
 * - an alias that names no anchor set before it;
 * - a key that is a mapping or a sequence (`? [a, b]`), which JSON objects cannot have;
 * - two keys of a mapping that are the same JSON key (`name` twice, or `1` and `"1"`);
 * - a `__proto__` key, which JavaScript readers of the value drop or take as the object's prototype
 *   (zod's records do): refused rather than sent on where it would change meaning.
 */
export function documentIssues(doc: Document, facts: DocumentFacts): DocumentIssue[] {
  const issues: DocumentIssue[] = [];
  const anchors = new Map<string, Node>();
  const stack: Frame[] = [{ node: doc.contents, path: [] }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if ('pair' in frame) {
      const key = keyIssues(frame.pair, frame.path, frame.seen, anchors, facts, issues);
      // The key first: an anchor it sets is known to its value.
      stack.push({ node: frame.pair.value, path: key }, { node: frame.pair.key, path: key });
      continue;
    }
    const { node, path } = frame;
    if (!isNode(node)) continue;
    if (node.anchor) anchors.set(node.anchor, node);
    if (node.tag !== undefined) tagIssue(node, path, facts, issues);
    if (isAlias(node)) {
      if (!anchors.has(node.source)) issues.push({ property: formatPath(path), message: `alias *${node.source} names no anchor (&${node.source} must be set before the alias)`, offset: node.range?.[0] ?? 0 });
    } else if (isMap(node)) {
      const seen = new Map<string, Node>();
      for (let i = node.items.length - 1; i >= 0; i--) stack.push({ pair: node.items[i] as Pair, path, seen });
    } else if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i], path: [...path, i] });
    }
  }
  return issues.sort((a, b) => a.offset - b.offset);
}

/** Checks a mapping's key against the keys before it; returns the path of its value. */
function keyIssues(pair: Pair, path: PropertyKey[], seen: Map<string, Node>, anchors: ReadonlyMap<string, Node>, facts: DocumentFacts, issues: DocumentIssue[]): PropertyKey[] {
  const key = pair.key;
  const offset = (isNode(key) ? key.range?.[0] : undefined) ?? 0;
  // An alias key stands for its anchor's node.
  const target = isAlias(key) ? anchors.get(key.source) : key;
  if (isMap(target) || isSeq(target)) {
    issues.push({ property: formatPath(path), message: `a key must be a string, not a ${isMap(target) ? 'mapping' : 'sequence'}: entity files hold JSON objects`, offset });
    return path;
  }
  if (target !== undefined && target !== null && !isScalar(target)) return path;
  const name = jsonKeyOf(isScalar(target) ? target.value : null);
  const keyPath = [...path, name];
  if (name === '__proto__') {
    issues.push({ property: formatPath(keyPath), message: "key __proto__ is not supported: JavaScript readers of the value would drop it or take it as the object's prototype", offset });
  }
  const first = seen.get(name);
  if (first === undefined) {
    if (isNode(key)) seen.set(name, key);
    return keyPath;
  }
  const at = facts.linePos(first.range?.[0] ?? 0);
  const spelling = spellingOf(key, facts.text);
  const firstSpelling = spellingOf(first, facts.text);
  const message =
    spelling === firstSpelling
      ? `duplicate key: already set at ${at.line}:${at.col}`
      : `duplicate key: ${spelling} is the JSON key ${JSON.stringify(name)}, as ${firstSpelling} at ${at.line}:${at.col} is`;
  issues.push({ property: formatPath(keyPath), message, offset });
  return keyPath;
}

function spellingOf(node: unknown, text: string): string {
  const range = isNode(node) ? node.range : undefined;
  return range ? text.slice(range[0], range[1]) : '';
}

function tagIssue(node: Node, path: PropertyKey[], facts: DocumentFacts, issues: DocumentIssue[]): void {
  const start = node.range?.[0] ?? 0;
  const offset = lastBefore(facts.tagOffsets, start) ?? start;
  const spelling = /^[^\s,[\]{}]*/.exec(facts.text.slice(offset, offset + 200))?.[0] || (node.tag ?? '');
  const property = formatPath(path);
  if (!JSON_TAGS.has(node.tag ?? '')) issues.push({ property, message: `tag ${spelling} is not supported: entity files hold JSON values`, offset });
  else if (facts.failedTagOffsets.has(offset)) issues.push({ property, message: `tag ${spelling} does not fit its value`, offset });
}

/** The greatest of ascending `offsets` below `limit`. */
function lastBefore(offsets: readonly number[], limit: number): number | undefined {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((offsets[mid] as number) < limit) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? undefined : offsets[low - 1];
}
