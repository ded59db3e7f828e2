import { isMap, isScalar, isSeq, type Document, type Pair } from 'yaml';
import { jsonKeyOf } from './yaml-document-issues.js';

/** The node a property names: found whole, or the deepest node on its way that exists. */
export interface PropertyNode {
  node: unknown;
  /** The pair whose value `node` is, when the last step was a key (not an index). */
  pair?: Pair;
}

/** Pairs of each mapping by JSON key, built on first use: placing many issues in a large mapping stays linear. */
const pairIndex = new WeakMap<object, Map<string, Pair>>();

function pairOf(map: object & { items: Pair[] }, key: string): Pair | undefined {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      const name = jsonKeyOf(isScalar(pair.key) ? pair.key.value : pair.key);
      if (!index.has(name)) index.set(name, pair);
    }
    pairIndex.set(map, index);
  }
  return index.get(key);
}

/** Candidate keys tried per lookup, in all: a property is matched in a few, a hostile file cannot make it many. */
const MAX_TRIES = 256;

const INDEX = /^\[(\d+)\]/;

/**
 * Finds the node `rules[0].conditions[1].type` names. The property is a formatted path, in which a
 * key holding `.` or `[` (`reviewSettings.requiredReview`, `x[0]`) reads like several steps: so it is
 * matched against the document itself, step by step, trying at each mapping the keys the rest of the
 * property could start with, longest first, and going back when a choice leads nowhere. A value
 * written as its JSON5 twin (`returnValueJson5: |`) is found at the block.
 */
export function propertyNode(doc: Document, property: string): PropertyNode {
  let best: PropertyNode & { consumed: number } = { node: doc.contents, consumed: 0 };
  let tries = 0;
  const visit = (node: unknown, pair: Pair | undefined, at: number): boolean => {
    if (at > best.consumed) best = { node, pair, consumed: at };
    if (at === property.length) return true;
    if (isSeq(node)) {
      const index = INDEX.exec(property.slice(at, at + 24));
      const item = index ? node.items[Number(index[1])] : undefined;
      return index !== null && item !== undefined && item !== null && visit(item, undefined, at + index[0].length);
    }
    if (!isMap(node)) return false;
    const from = at === 0 ? 0 : at + 1;
    if (at > 0 && property[at] !== '.') return false;
    for (const end of keyEnds(property, from)) {
      if (++tries > MAX_TRIES) return false;
      const key = property.slice(from, end);
      const found = pairOf(node, key) ?? pairOf(node, `${key}Json5`);
      if (found && visit(found.value ?? found.key, found, end)) return true;
    }
    return false;
  };
  visit(doc.contents, undefined, 0);
  return best.pair ? { node: best.node, pair: best.pair } : { node: best.node };
}

/** Where a key starting at `from` may end: before each later `.` or `[`, and at the end; longest first. */
function keyEnds(property: string, from: number): number[] {
  const ends = [property.length];
  for (let i = property.length - 1; i > from; i--) {
    const c = property[i];
    if (c === '.' || c === '[') ends.push(i);
  }
  return ends;
}
