import JSON5 from 'json5';
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import { jsonEqual } from '../core/json-equal.js';
import { isPlainObject } from '../core/is-plain-object.js';

type Json = Record<string, unknown>;

/** Items of a list are matched by these keys before position, so reordering keeps their comments. */
const ITEM_KEYS = ['id', 'name'];

function itemKey(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const key of ITEM_KEYS) if (typeof value[key] === 'string') return `${key}:${value[key] as string}`;
  return undefined;
}

/**
 * Rewrites an entity file so it declares `live`, changing only the nodes whose values differ: comments,
 * key order and untouched blocks stay as the team wrote them (drift policy `adopt`).
 *
 * `live` holds the writable fields the file should declare; keys the file has that `live` lacks are
 * removed unless `keep` says they are implied (defaults the file spells out). A `<field>Json5` block
 * stays a JSON5 block: it is kept when it already parses to the live value, else replaced by JSON.
 */
export function adoptYaml(text: string, live: Json, keep: (key: string, value: unknown) => boolean = () => false): string {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) {
    doc.contents = doc.createNode(live) as unknown as typeof doc.contents;
    return doc.toString();
  }
  // The console may carry a JSON5 twin (with the file's comments) instead of the plain value.
  const plain: Json = {};
  const json5Texts = new Map<string, string>();
  for (const [key, value] of Object.entries(live)) {
    if (key.endsWith('Json5') && typeof value === 'string') {
      const base = key.slice(0, -'Json5'.length);
      json5Texts.set(base, value);
      if (!(base in live)) plain[base] = JSON5.parse(value) as unknown;
    } else if (!key.endsWith('Json5')) plain[key] = value;
  }
  mergeMap(doc, doc.contents, plain, keep, true, json5Texts);
  return doc.toString();
}

function mergeMap(doc: Document, node: YAMLMap, value: Json, keep: (key: string, value: unknown) => boolean, top: boolean, json5Texts = new Map<string, string>()): void {
  const present = new Set<string>();
  for (const pair of [...node.items]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    present.add(key);
    if (top && key.endsWith('Json5')) {
      const plain = key.slice(0, -'Json5'.length);
      const json5 = isScalar(pair.value) ? pair.value.value : undefined;
      let parsed: unknown;
      try {
        parsed = typeof json5 === 'string' ? JSON5.parse(json5) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!(plain in value)) node.delete(key);
      else if (!jsonEqual(parsed, value[plain])) node.set(key, doc.createNode(json5Texts.get(plain) ?? `${JSON.stringify(value[plain], null, 2)}\n`));
      present.add(plain);
      continue;
    }
    if (!(key in value)) {
      if (!(top && keep(key, pair.value))) node.delete(key);
      continue;
    }
    if (top && node.has(`${key}Json5`)) {
      // The JSON5 twin carries this value; the plain key would only repeat it.
      node.delete(key);
      continue;
    }
    pair.value = mergeValue(doc, pair.value as Node | null, value[key], keep);
  }
  for (const [key, v] of Object.entries(value)) {
    if (present.has(key) || v === undefined) continue;
    const text = top ? json5Texts.get(key) : undefined;
    if (text !== undefined) node.set(`${key}Json5`, doc.createNode(text));
    else node.set(key, doc.createNode(v));
  }
}

function mergeValue(doc: Document, node: Node | null, value: unknown, keep: (key: string, value: unknown) => boolean): Node {
  if (node && isMap(node) && isPlainObject(value)) {
    mergeMap(doc, node, value, keep, false);
    return node;
  }
  if (node && isSeq(node) && Array.isArray(value)) {
    mergeSeq(doc, node, value, keep);
    return node;
  }
  if (node && isScalar(node) && !isPlainObject(value) && !Array.isArray(value)) {
    if (node.value !== value) node.value = value;
    return node;
  }
  return doc.createNode(value) as Node;
}

function mergeSeq(doc: Document, node: YAMLSeq, values: unknown[], keep: (key: string, value: unknown) => boolean): void {
  const old = [...node.items] as (Node | null)[];
  const byKey = new Map<string, Node>();
  for (const item of old) {
    const json = item && 'toJSON' in item ? (item as { toJSON(): unknown }).toJSON() : undefined;
    const key = itemKey(json);
    if (key !== undefined && item) byKey.set(key, item);
  }
  node.items = values.map((value, i) => {
    const key = itemKey(value);
    const reuse = key !== undefined ? byKey.get(key) : old[i] ?? null;
    return mergeValue(doc, reuse ?? null, value, keep);
  });
}
