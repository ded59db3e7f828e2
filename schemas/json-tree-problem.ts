/**
 * Limits every JSON tree a client sends must keep, checked in one walk with an explicit stack: the
 * console's own code (JSON.stringify, structuredClone, equality, the reply serialiser) recurses per
 * level, so a body nested a few thousand deep, which fits in 25 KB, would otherwise end in a stack
 * overflow somewhere after it was accepted.
 */
import { formatJsonPath } from './json-value.js';

/**
 * Deepest nesting of objects and arrays an entity may have, the root being level 1. It equals the
 * config files' limit (MAX_DEPTH of the YAML reader in controller/source/; a test holds them equal):
 * a file is an entity body, so whatever one side accepts the other does, and an entity the console
 * stores can always be exported to a file and sent back.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * String fields whose text the console parses as JSON or JSON5 (a dynamic config's schema, the JSON5
 * twins): the value parsed from one takes the text's place, so its levels count from there. Matched
 * by name wherever they appear (a review's `change` holds them one level down): a free JSON value
 * using one of these keys has its string counted too, refused only when nested past the limit.
 */
export const JSON_TEXT_FIELDS: ReadonlySet<string> = new Set(['schema', 'schemaJson5', 'defaultValueJson5', 'returnValueJson5']);

export type JsonTreeProblem =
  /** An object or array nested deeper than the limit; the path is the first such one found. */
  | { kind: 'too-deep'; path: string; maxDepth: number }
  /** A JSON text field whose value would nest deeper than the limit where it is placed. */
  | { kind: 'text-too-deep'; path: string; maxDepth: number }
  /** A key JavaScript treats as an object's prototype: `__proto__`, or `prototype` inside `constructor`. */
  | { kind: 'prototype-key'; path: string; key: '__proto__' | 'constructor.prototype' }
  /**
   * A string or key holding U+0000, which PostgreSQL's text refuses (one store would keep what the
   * other fails on), or a lone surrogate (`"\ud800"`), which no UTF-8 column can hold (it would come
   * back as U+FFFD): refused everywhere, so both stores answer alike and nothing is changed silently.
   */
  | { kind: 'bad-character'; path: string; character: 'nul' | 'lone-surrogate' };

interface Frame {
  value: object;
  level: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

function pathOf(frame: Frame | undefined, last?: string | number): string {
  const path: (string | number)[] = last === undefined ? [] : [last];
  for (let at = frame; at?.key !== undefined; at = at.parent) path.push(at.key);
  return formatJsonPath(path.reverse());
}

function badCharacter(text: string): 'nul' | 'lone-surrogate' | undefined {
  if (text.includes('\0')) return 'nul';
  // A surrogate half without its pair; a builtin check, where a `\p{Cs}` regular expression cost a
  // regular expression call for every string of every request body.
  return text.isWellFormed() ? undefined : 'lone-surrogate';
}

const isLineTerminator = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/**
 * Nesting of JSON or JSON5 text: the most `[`/`{` open at once outside strings and comments, given up
 * as soon as it passes `stop`. Counted without parsing: text that doesn't parse is reported by
 * whatever parses it, and this needs only to know it can't nest too deep.
 */
export function textNesting(text: string, stop: number): number {
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stop) return deepest;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22 || c === 0x27) {
      // A string, JSON's double-quoted or JSON5's single-quoted: its brackets are text.
      for (i++; i < n && text.charCodeAt(i) !== c; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      // JSON5 ends a line comment at any of its line terminators, not only \n.
      for (i += 2; i < n && !isLineTerminator(text.charCodeAt(i)); i++);
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    }
  }
  return deepest;
}

/**
 * The first thing in `value` that breaks the limits, or undefined: an object or array nested deeper
 * than `maxDepth`, a JSON text field whose value would be (counted from the text's place), a
 * prototype key, or a string or key holding U+0000 or a lone surrogate. The root is level `rootLevel`: 1 when the value is an entity, 0 when it wraps one
 * (a review's `change` is then level 1, as the entity it becomes). Costs one visit per object and
 * array, and a scan of JSON text fields only when they are long enough to nest that deep.
 */
export function jsonTreeProblem(value: unknown, maxDepth: number, rootLevel = 1): JsonTreeProblem | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (rootLevel > maxDepth) return { kind: 'too-deep', path: '', maxDepth };
  const stack: Frame[] = [{ value, level: rootLevel, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const current = frame.value;
    const childLevel = frame.level + 1;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const child: unknown = current[i];
        const badInItem = typeof child === 'string' ? badCharacter(child) : undefined;
        if (badInItem) return { kind: 'bad-character', path: pathOf(frame, i), character: badInItem };
        if (child === null || typeof child !== 'object') continue;
        if (childLevel > maxDepth) return { kind: 'too-deep', path: pathOf(frame, i), maxDepth };
        stack.push({ value: child, level: childLevel, key: i, parent: frame });
      }
      continue;
    }
    const record = current as Record<string, unknown>;
    // for...in lists the own `__proto__` key JSON.parse defines: comparing keys costs nothing more.
    for (const key in record) {
      if (key === '__proto__') return { kind: 'prototype-key', path: pathOf(frame, key), key: '__proto__' };
      const badInKey = badCharacter(key);
      if (badInKey) return { kind: 'bad-character', path: pathOf(frame, key), character: badInKey };
      const child = record[key];
      if (typeof child === 'string') {
        const bad = badCharacter(child);
        if (bad) return { kind: 'bad-character', path: pathOf(frame, key), character: bad };
        // The parsed value's root would sit at childLevel; a text shorter than what is left can't nest past it.
        const left = maxDepth - frame.level;
        if (child.length > left && JSON_TEXT_FIELDS.has(key) && textNesting(child, left) > left) return { kind: 'text-too-deep', path: pathOf(frame, key), maxDepth };
      } else if (child !== null && typeof child === 'object') {
        if (key === 'constructor' && Object.hasOwn(child, 'prototype')) return { kind: 'prototype-key', path: `${pathOf(frame, key)}.prototype`, key: 'constructor.prototype' };
        if (childLevel > maxDepth) return { kind: 'too-deep', path: pathOf(frame, key), maxDepth };
        stack.push({ value: child, level: childLevel, key, parent: frame });
      }
    }
  }
  return undefined;
}

/** A problem as the API names it: the property and what is wrong with it. */
export function describeJsonTreeProblem(problem: JsonTreeProblem): { message: string; property: string; errorMessage: string } {
  const property = problem.path === '' ? '(body)' : problem.path;
  switch (problem.kind) {
    case 'too-deep':
      return { message: `Body nests deeper than ${problem.maxDepth} levels of objects and arrays.`, property, errorMessage: `nests deeper than ${problem.maxDepth} levels of objects and arrays` };
    case 'text-too-deep':
      return {
        message: `Body nests deeper than ${problem.maxDepth} levels of objects and arrays.`,
        property,
        errorMessage: `parses to a value that would nest deeper than ${problem.maxDepth} levels of objects and arrays where it is placed`,
      };
    case 'prototype-key':
      return {
        message: `Body may not contain the key "${problem.key}".`,
        property,
        errorMessage: 'is refused: JavaScript would take this key for an object prototype',
      };
    case 'bad-character':
      return problem.character === 'nul'
        ? { message: 'Body may not contain the NUL character (U+0000).', property, errorMessage: 'contains the NUL character (U+0000), which is refused' }
        : { message: 'Body may not contain a lone surrogate.', property, errorMessage: 'contains a lone surrogate (half of a UTF-16 pair, e.g. "\\ud800"), which is not Unicode text' };
  }
}
