import { isMap, isScalar, isSeq, visit, type Alias, type Node, type Pair, type Scalar } from 'yaml';
import type { z } from 'zod';
import { entityFileSchema } from '../../schemas/entity-file.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { parseYamlDocument } from './parse-yaml-document.js';
import { documentIssues } from './yaml-document-issues.js';

export interface FormatProblem {
  line: number;
  column: number;
  message: string;
}

export type FormatResult = { ok: true; text: string } | { ok: false; problems: FormatProblem[] };

/** Options the canonical form is printed with; export writes entity files the same way. */
const PRINT = { lineWidth: 0, indentSeq: true, flowCollectionPadding: false } as const;

/**
 * The canonical form of an entity file: every mapping's keys in its schema's field order (the id
 * field first; keys the schema doesn't know keep their place after the known ones, for validate to
 * report), multi-line strings as literal blocks, one indentation style. Comments, flow or block style
 * of each list, and scalar quoting stay as written. The text is reparsed, never rebuilt from values,
 * so what the file declares does not change.
 */
export function formatEntityYaml(text: string, entry: EntitySchemaEntry): FormatResult {
  // The parse validate makes, with its guards: nothing deep or odd reaches the printer, which recurses.
  const parsed = parseYamlDocument(text);
  const { doc } = parsed;
  const problems = parsed.errors.map(({ message, offset }) => ({ message, offset }));
  if (doc && problems.length === 0) for (const { property, message, offset } of documentIssues(doc, parsed)) problems.push({ message: property ? `${property}: ${message}` : message, offset });
  if (!doc || problems.length > 0) {
    return { ok: false, problems: problems.map(({ message, offset }) => ({ ...position(parsed.linePos(offset)), message })) };
  }
  const schema = entityFileSchema(entry);
  if (isMap(doc.contents)) {
    // Comments above the first key head the file (the schema modeline, a description): they stay on
    // top instead of following that key to its canonical place.
    const first = doc.contents.items[0];
    const header = first && isScalar(first.key) ? first.key.commentBefore : undefined;
    if (first && isScalar(first.key) && header) {
      doc.contents.commentBefore = doc.contents.commentBefore ? `${doc.contents.commentBefore}\n${header}` : header;
      first.key.commentBefore = undefined;
    }
  }
  if (doc.contents !== null) orderNode(doc.contents, schema, entry.idField);
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && node.value.includes('\n') && node.type !== 'BLOCK_FOLDED') node.type = 'BLOCK_LITERAL';
    },
  });
  const early = doc.contents === null ? undefined : aliasBeforeAnchor(doc.contents);
  if (early !== undefined) {
    const at = position(parsed.linePos(early.range?.[0] ?? 0));
    return { ok: false, problems: [{ ...at, message: `the canonical key order puts alias *${early.source} before its anchor &${early.source}, which YAML does not allow: repeat the value here, or anchor it in a key that comes earlier` }] };
  }
  return { ok: true, text: doc.toString(PRINT) };
}

/** The first alias that, in the order the document now prints, comes before the node it names. */
function aliasBeforeAnchor(root: Node): Alias | undefined {
  const anchored = new Set<string>();
  let early: Alias | undefined;
  visit(root, {
    Alias(_key, node: Alias) {
      if (!anchored.has(node.source)) {
        early = node;
        return visit.BREAK;
      }
      return undefined;
    },
    Node(_key, node) {
      if (node.anchor) anchored.add(node.anchor);
    },
  });
  return early;
}

const position = ({ line, col }: { line: number; col: number }): { line: number; column: number } => ({ line, column: col });

function orderNode(node: Node, schema: z.ZodType | undefined, firstKey?: string): void {
  if (isMap(node)) {
    const shape = objectShape(schema, node.items);
    const order = shape ? Object.keys(shape) : [];
    if (firstKey !== undefined) order.unshift(firstKey);
    const rank = (pair: Pair): number => {
      const i = order.indexOf(keyOf(pair));
      return i === -1 ? order.length : i;
    };
    // A stable sort: unknown keys (rank = length) keep their relative order at the end.
    node.items = node.items.map((pair, i) => ({ pair, i })).sort((a, b) => rank(a.pair) - rank(b.pair) || a.i - b.i).map(({ pair }) => pair);
    for (const pair of node.items) if (pair.value && typeof pair.value === 'object') orderNode(pair.value as Node, shape?.[keyOf(pair)]);
  } else if (isSeq(node)) {
    const element = arrayElement(schema);
    for (const item of node.items) if (item && typeof item === 'object') orderNode(item as Node, element);
  }
}

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

interface ZodDef {
  type?: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType | undefined): ZodDef | undefined => (schema as unknown as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def;

/** Wrappers (optional, nullable, default, pipes, lazy) around the schema that describes the value. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  for (let s = schema, depth = 0; s && depth < 20; depth++) {
    const def = defOf(s);
    const next = def?.innerType ?? def?.in ?? def?.getter?.();
    if (def?.type === 'object' || def?.type === 'array' || def?.type === 'union' || !next) return s;
    s = next;
  }
  return undefined;
}

/** The field schemas of an object schema; of a union, the member that knows most of the map's keys. */
function objectShape(schema: z.ZodType | undefined, pairs: readonly Pair[]): Record<string, z.ZodType> | undefined {
  const def = defOf(unwrap(schema));
  if (def?.type === 'object') return def.shape;
  if (def?.type !== 'union') return undefined;
  const keys = pairs.map(keyOf);
  let best: Record<string, z.ZodType> | undefined;
  let bestScore = 0;
  for (const option of def.options ?? []) {
    const shape = objectShape(option, pairs);
    const score = shape ? keys.filter((k) => k in shape).length : 0;
    if (shape && score > bestScore) [best, bestScore] = [shape, score];
  }
  return best;
}

function arrayElement(schema: z.ZodType | undefined): z.ZodType | undefined {
  const def = defOf(unwrap(schema));
  return def?.type === 'array' ? def.element : undefined;
}
