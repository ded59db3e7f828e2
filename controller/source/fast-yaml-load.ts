import { load } from 'js-yaml';
import { blockYamlLoad } from './block-yaml-load.js';
import { JS_YAML_CORE_SCHEMA } from './js-yaml-core-schema.js';

/**
 * The fast path of reading a YAML file: the line reader of block YAML (`blockYamlLoad`) first, then
 * js-yaml, which builds plain data about ten times faster than `yaml` builds its positioned document
 * (the bulk of a plan's time on a large repository). It answers only when it is sure the result is
 * what `yaml` would give with no error and no warning; anything else — a syntax error, a duplicate key, a tag, a directive, an alias to a collection,
 * a key that is a collection, an alias or null, a `__proto__` key, a flow collection that would draw
 * `yaml`'s indentation warning — returns undefined and the caller
 * takes the full `yaml` parse, which stays the one source of messages and positions. So does data
 * nested deeper than `maxDepth` mappings and sequences.
 */
export function fastYamlLoad(text: string, maxDepth = Infinity): { data: unknown } | undefined {
  // Most entity files are in the subset the line reader knows, which reads them three times faster.
  const quick = blockYamlLoad(text, maxDepth);
  if (quick) return quick;
  if (!plainEnough(text)) return undefined;
  let data: unknown;
  try {
    // YAML 1.2's core schema, as `yaml` resolves it: no timestamps, no merge keys, the same numbers.
    data = load(text, { schema: JS_YAML_CORE_SCHEMA });
  } catch {
    return undefined;
  }
  // An empty document: js-yaml says undefined, `yaml` says null (and undefined means "does not parse").
  if (data === undefined) data = null;
  return plainTree(data, maxDepth, text.includes('*')) ? { data } : undefined;
}

const DIRECTIVE = /^%/m;
// A tag where a node may start (`!!binary`, `!local`, `!`): `yaml` resolves fewer tags than js-yaml, and
// the full parse refuses all but the JSON ones. A `!` inside a plain scalar (`Hi!`) is no tag.
const TAG = /(?:^|[\s[{,])!/m;
// A key that is a collection: explicit (`? [a, b]`) or a flow collection before `: `. js-yaml makes
// its text a string key; `yaml` keeps it a collection, which the full parse refuses.
const COMPLEX_KEY = /(?:^|[\s[{,])\?(?:[ \t]|$)|[\]}][ \t]*:(?:[ \t]|$)/m;
// An alias as a key (`*a : x`): js-yaml stringifies what it names, collections included.
const ALIAS_KEY = /(?:^|[\s[{,?])\*[^\s,[\]{}]+[ \t]*:(?:[ \t]|$)/m;
const BLOCK_SCALAR_HEADER = /^( *)(?:- +)*(?:[^#'"]*?:[ \t]+)?[|>][-+0-9]*[ \t]*(?:#.*)?$/;
const FLOW_END_AT_LINE_START = /^ *[\]}]/;

/**
 * Rejects texts with a directive, a tag, a key that is a collection or an alias, or a line that starts
 * with a flow collection's end outside a block scalar (`yaml` warns when that end is not indented
 * more than its parent).
 */
function plainEnough(text: string): boolean {
  // The plain substring tests first: the regular expressions run only on the texts that could match.
  if ((text.includes('%') && DIRECTIVE.test(text)) || (text.includes('!') && TAG.test(text))) return false;
  if (text.includes(':') && ((text.includes('?') || text.includes(']') || text.includes('}')) && COMPLEX_KEY.test(text))) return false;
  if (text.includes('*') && ALIAS_KEY.test(text)) return false;
  if (!text.includes('\n]') && !text.includes('\n}') && !/\n +[\]}]/.test(text)) return true;
  let blockParent = -1;
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (blockParent >= 0) {
      if (line.trim() === '' || indent > blockParent) continue;
      blockParent = -1;
    }
    // A header has a `|` or `>`: most lines are spared the regular expression.
    const header = line.includes('|') || line.includes('>') ? BLOCK_SCALAR_HEADER.exec(line) : null;
    if (header) blockParent = header[1]?.length ?? 0;
    else if (FLOW_END_AT_LINE_START.test(line)) return false;
  }
  return true;
}

/**
 * js-yaml resolves an alias to the very object its anchor built, where `yaml` copies and counts
 * expansions (maxAliasCount): a collection met twice sends the file down the full parse. So does a
 * collection nested deeper than `maxDepth` (the root collection is level 1), which the full parse
 * reports. Only a text with an alias (`*`) can share a collection, so only such a text pays for the
 * set of collections seen.
 */
function plainTree(data: unknown, maxDepth: number, mayShare: boolean): boolean {
  return visitTree(data, 1, maxDepth, mayShare ? new Set<object>() : undefined);
}

// A module-level function, not a closure: transpilers that keep function names would wrap a closure
// in a helper call each time it is created, once per file here.
function visitTree(value: unknown, depth: number, maxDepth: number, seen: Set<object> | undefined): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > maxDepth) return false;
  if (seen) {
    if (seen.has(value)) return false;
    seen.add(value);
  }
  if (Array.isArray(value)) {
    for (const item of value) if (!visitTree(item, depth + 1, maxDepth, seen)) return false;
  } else {
    // js-yaml keeps a `__proto__` key, which the full parse refuses, and spells a null key `null`
    // where `yaml` makes it '' (a quoted "null" key is left to the full parse too: no harm).
    if (Object.hasOwn(value, '__proto__') || Object.hasOwn(value, 'null')) return false;
    for (const key in value) if (!visitTree((value as Record<string, unknown>)[key], depth + 1, maxDepth, seen)) return false;
  }
  return true;
}
