import type { CST } from 'yaml';

export interface TokenScan {
  /** Offset of the first collection nested deeper than the limit (the root collection is level 1). */
  tooDeepAt?: number;
  /** Offsets of the tags (`!!binary`, `!local`, `!`), ascending. */
  tagOffsets: number[];
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * One pass over `yaml`'s concrete syntax tree, with a stack instead of recursion (the tree may be far
 * deeper than the call stack): how deep its collections nest and where its tags are. Keys count as
 * nested in their mapping, as their values do. The tree's own shape is walked generically: every
 * array and object below a token, so no kind of item or property list is missed.
 */
export function scanYamlTokens(tokens: readonly CST.Token[], maxDepth: number): TokenScan {
  const tagOffsets: number[] = [];
  let tooDeepAt: number | undefined;
  const stack: [unknown, number][] = tokens.map((token) => [token, 0]);
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    let inner = depth;
    if (!Array.isArray(value)) {
      const token = value as { type?: unknown; offset?: unknown };
      if (token.type === 'tag' && typeof token.offset === 'number') tagOffsets.push(token.offset);
      if (typeof token.type === 'string' && COLLECTIONS.has(token.type)) {
        inner = depth + 1;
        if (inner > maxDepth && typeof token.offset === 'number') {
          if (tooDeepAt === undefined || token.offset < tooDeepAt) tooDeepAt = token.offset;
          // Nothing below it can be shallower, nor earlier in the text.
          continue;
        }
      }
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) if (typeof child === 'object' && child !== null) stack.push([child, inner]);
  }
  tagOffsets.sort((a, b) => a - b);
  return tooDeepAt === undefined ? { tagOffsets } : { tooDeepAt, tagOffsets };
}
