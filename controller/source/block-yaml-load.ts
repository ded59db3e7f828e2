/**
 * The quickest path of reading a YAML file: a line reader of the YAML most entity files are written
 * in — block mappings and sequences, plain and quoted one-line scalars, one-line flow collections of
 * those, literal block scalars (`|`, `|-`), comments. It answers only with exactly what js-yaml's core
 * schema (and `yaml`) would give, and returns undefined at the first thing outside that subset or in
 * doubt — an anchor, a tag, a rare escape, a folded or multi-line scalar, a number that is not a plain
 * decimal, a key that is not a plain name, a duplicate key, a tab, a character outside printable
 * ASCII and the Basic Multilingual Plane's letters —, and the caller takes js-yaml, then `yaml`.
 * Collections nested deeper than `maxDepth` (the root is level 1) are left to them too, as is any
 * document whose root is not a block mapping.
 *
 * It reads a typical entity file in a fraction of js-yaml's time because it never goes character by
 * character through a general grammar: it slices lines, and resolves a scalar by its first character.
 */
export function blockYamlLoad(text: string, maxDepth = Infinity): { data: unknown } | undefined {
  if (OUTSIDE_SUBSET_CHARS.test(text)) return undefined;
  const reader = new BlockReader(text, maxDepth);
  try {
    const data = reader.document();
    return data === undefined ? undefined : { data };
  } catch (error) {
    // A RangeError is the stack, on nesting deeper than any entity's: the other parsers decide too.
    if (error === OUTSIDE || error instanceof RangeError) return undefined;
    throw error;
  }
}

/** Thrown (and caught above) when the text leaves the subset: the caller's parsers then decide. */
const OUTSIDE = new Error('outside the block YAML subset');

// Anything but newlines, printable ASCII and U+00A1–U+D7FF without U+2028/U+2029: tabs, carriage
// returns, controls, the no-break space, the line and paragraph separators, the byte-order mark,
// surrogates (astral characters), U+FFFE/U+FFFF — where the parsers' rules differ or are subtle.
const OUTSIDE_SUBSET_CHARS = /[^\n\x20-\x7e\xa1-\u2027\u202a-\ud7ff]/;

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const COMMA = 0x2c;
const PIPE = 0x7c;
const BACKSLASH = 0x5c;

const ESCAPES: Partial<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t' };

/** A plain key's first character: a letter, `_` or `$` (a digit would make js-yaml resolve a number). */
function isKeyStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
}

/** A plain key's later characters: letters, digits, `_`, `$`, `-`, `.`, `/`. */
function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 0x30 && c <= 0x39) || c === DASH || c === 0x2e || c === 0x2f;
}

/** Keys js-yaml would resolve to null or a boolean before making them strings, or that name the prototype. */
const UNSAFE_KEYS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__']);

/**
 * Plain keys seen before, by length and first character. Entity files repeat the same few dozen keys:
 * one seen before is compared in place and reused, instead of sliced out, hashed and checked again.
 * Bounded, so a file of a million distinct keys cannot grow it.
 */
const knownKeys = new Map<number, string[]>();
const MAX_KNOWN_KEYS = 1024;
let knownKeyCount = 0;

const bucketOf = (length: number, first: number): number => length * 0x10000 + first;

function knownKey(src: string, p: number, end: number): string | undefined {
  const bucket = knownKeys.get(bucketOf(end - p, src.charCodeAt(p)));
  if (bucket !== undefined) for (const key of bucket) if (src.startsWith(key, p)) return key;
  return undefined;
}

function rememberKey(key: string): void {
  if (knownKeyCount >= MAX_KNOWN_KEYS) return;
  const id = bucketOf(key.length, key.charCodeAt(0));
  const bucket = knownKeys.get(id);
  if (bucket === undefined) knownKeys.set(id, [key]);
  else bucket.push(key);
  knownKeyCount++;
}

const INTEGER = /^-?[1-9][0-9]*$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)\.[0-9]+$/;

/**
 * Resolves a plain scalar as the core schema does, or leaves the document when the answer is not
 * obvious: a string must start with a letter, `_`, `/`, `$`, `(` or a character beyond ASCII, and a
 * number must be a plain decimal (no sign but `-`, no leading zero, no exponent, no `_`).
 */
function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
    // Only these words of letters resolve to something other than a string in the core schema.
    switch (s) {
      case 'null':
      case 'Null':
      case 'NULL':
        return null;
      case 'true':
      case 'True':
      case 'TRUE':
        return true;
      case 'false':
      case 'False':
      case 'FALSE':
        return false;
      default:
        return s;
    }
  }
  if (c === 0x5f || c === 0x2f || c === 0x24 || c === 0x28 || c > 0xa0) return s;
  if (s === '~') return null;
  if (s === '0') return 0;
  // The very conversions `yaml` makes (its core schema's int and float), so even a number of more
  // digits than a double holds rounds as there.
  if (INTEGER.test(s)) return parseInt(s, 10);
  if (DECIMAL.test(s)) return parseFloat(s);
  throw OUTSIDE;
}

class BlockReader {
  private readonly src: string;
  private readonly maxDepth: number;
  /** Start of the current content line, its first non-space character and its indentation (-1: end). */
  private lineStart = 0;
  private pos = 0;
  private indent = -1;

  constructor(src: string, maxDepth: number) {
    this.src = src;
    this.maxDepth = maxDepth;
  }

  document(): unknown {
    this.nextContentFrom(0);
    // An empty document, a root that is not a mapping, an indented root: js-yaml decides.
    if (this.indent !== 0) return undefined;
    const c = this.src.charCodeAt(this.pos);
    if (c === DASH || c === 0x2e) return undefined; // a sequence or a document marker (`---`, `...`)
    return this.mapping(0, 1);
  }

  private lineEnd(from: number): number {
    const at = this.src.indexOf('\n', from);
    return at === -1 ? this.src.length : at;
  }

  /** Moves to the first line at or after `from` that holds more than spaces and a comment. */
  private nextContentFrom(from: number): void {
    const src = this.src;
    const length = src.length;
    let start = from;
    while (start < length) {
      let p = start;
      while (src.charCodeAt(p) === SPACE) p++;
      const c = src.charCodeAt(p);
      if (p < length && c !== NEWLINE && c !== HASH) {
        this.lineStart = start;
        this.pos = p;
        this.indent = p - start;
        return;
      }
      const end = src.indexOf('\n', p);
      if (end === -1) break;
      start = end + 1;
    }
    this.lineStart = length;
    this.pos = length;
    this.indent = -1;
  }

  /** The rest of a line after a value: spaces, then nothing or a comment after at least one space. */
  private finishLine(p: number): void {
    const src = this.src;
    const from = p;
    while (src.charCodeAt(p) === SPACE) p++;
    if (p < src.length && src.charCodeAt(p) !== NEWLINE) {
      if (src.charCodeAt(p) !== HASH || p === from) throw OUTSIDE;
      p = this.lineEnd(p);
    }
    this.nextContentFrom(p + 1);
  }

  private isSequenceEntry(p: number): boolean {
    if (this.src.charCodeAt(p) !== DASH) return false;
    const next = this.src.charCodeAt(p + 1);
    return next === SPACE || next === NEWLINE || p + 1 === this.src.length;
  }

  /** A block node starting on the current line, at the current indentation. */
  private blockNode(depth: number): unknown {
    return this.isSequenceEntry(this.pos) ? this.sequence(this.indent, depth) : this.mapping(this.indent, depth);
  }

  /** The end of a key (the position of its `:`) starting at `p`, or -1 when `p` starts no key. */
  private keyEnd(p: number): number {
    const src = this.src;
    const c = src.charCodeAt(p);
    let end: number;
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      end = src.indexOf(c === DOUBLE_QUOTE ? '"' : "'", p + 1);
      if (end === -1) return -1;
      end++;
    } else {
      if (!isKeyStart(c)) return -1;
      end = p + 1;
      while (isKeyChar(src.charCodeAt(end))) end++;
    }
    if (src.charCodeAt(end) !== COLON) return -1;
    const after = src.charCodeAt(end + 1);
    return after === SPACE || after === NEWLINE || end + 1 === src.length ? end : -1;
  }

  private key(p: number, end: number): string {
    const c = this.src.charCodeAt(p);
    if (c !== DOUBLE_QUOTE && c !== SINGLE_QUOTE) {
      const known = knownKey(this.src, p, end);
      if (known !== undefined) return known;
    }
    const key = c === DOUBLE_QUOTE || c === SINGLE_QUOTE ? this.quoted(p).value : this.src.slice(p, end);
    if (UNSAFE_KEYS.has(key)) throw OUTSIDE;
    if (c !== DOUBLE_QUOTE && c !== SINGLE_QUOTE) rememberKey(key);
    return key;
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) throw OUTSIDE;
    const src = this.src;
    const result: Record<string, unknown> = {};
    for (;;) {
      const keyStart = this.pos;
      const colon = this.keyEnd(keyStart);
      if (colon === -1) throw OUTSIDE;
      const key = this.key(keyStart, colon);
      if (Object.hasOwn(result, key)) throw OUTSIDE;
      let p = colon + 1;
      while (src.charCodeAt(p) === SPACE) p++;
      const c = src.charCodeAt(p);
      if (p >= src.length || c === NEWLINE || c === HASH) {
        this.nextContentFrom(this.lineEnd(p) + 1);
        if (this.indent > indent) result[key] = this.blockNode(depth + 1);
        // A sequence may sit at its key's indentation.
        else if (this.indent === indent && this.isSequenceEntry(this.pos)) result[key] = this.sequence(indent, depth + 1);
        else result[key] = null;
      } else {
        result[key] = this.inline(p, indent, depth);
      }
      if (this.indent < indent) return result;
      if (this.indent > indent || this.isSequenceEntry(this.pos)) throw OUTSIDE;
    }
  }

  private sequence(indent: number, depth: number): unknown[] {
    if (depth > this.maxDepth) throw OUTSIDE;
    const src = this.src;
    const result: unknown[] = [];
    for (;;) {
      let p = this.pos + 1;
      while (src.charCodeAt(p) === SPACE) p++;
      const c = src.charCodeAt(p);
      if (p >= src.length || c === NEWLINE || c === HASH) {
        this.nextContentFrom(this.lineEnd(p) + 1);
        result.push(this.indent > indent ? this.blockNode(depth + 1) : null);
      } else if (this.isSequenceEntry(p)) {
        throw OUTSIDE; // a sequence in a sequence on one line
      } else if (this.keyEnd(p) !== -1) {
        // A mapping starting on the entry's line: its keys line up with the first.
        this.pos = p;
        this.indent = p - this.lineStart;
        result.push(this.mapping(this.indent, depth + 1));
      } else {
        result.push(this.inline(p, indent, depth));
      }
      // Less indented, or a mapping's next key at the sequence's own indentation: the sequence ends.
      if (this.indent < indent || (this.indent === indent && !this.isSequenceEntry(this.pos))) return result;
      if (this.indent > indent) throw OUTSIDE;
    }
  }

  /**
   * A value on the rest of a line (`p` is its first character); moves to the next content line. A more
   * indented line after it (a continuation) is refused by the collection that holds the value.
   */
  private inline(p: number, parentIndent: number, depth: number): unknown {
    const c = this.src.charCodeAt(p);
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      const { value, end } = this.quoted(p);
      this.finishLine(end);
      return value;
    }
    if (c === BRACKET_OPEN || c === BRACE_OPEN) {
      const { value, end } = this.flow(p, depth + 1);
      this.finishLine(end);
      return value;
    }
    if (c === PIPE) return this.literal(p, parentIndent);
    const src = this.src;
    const lineEnd = this.lineEnd(p);
    // A comment starts at a `#` after a space; the scalar is what comes before, without the spaces.
    let end = p;
    while (end < lineEnd && !(src.charCodeAt(end) === HASH && src.charCodeAt(end - 1) === SPACE)) end++;
    while (src.charCodeAt(end - 1) === SPACE) end--;
    const text = src.slice(p, end);
    // `a: b: c` is an error and `a: b:` a key: js-yaml decides.
    if (text.includes(': ') || text.charCodeAt(text.length - 1) === COLON) throw OUTSIDE;
    const value = resolvePlain(text);
    this.nextContentFrom(lineEnd + 1);
    return value;
  }

  /** A quoted scalar on one line (`''` in single quotes; a few escapes in double quotes). */
  private quoted(p: number): { value: string; end: number } {
    const src = this.src;
    // Each check looks only between the quotes (not to the end of the line): a line of many quoted
    // items costs its length once.
    if (src.charCodeAt(p) === DOUBLE_QUOTE) {
      const close = src.indexOf('"', p + 1);
      if (close === -1) throw OUTSIDE;
      const value = src.slice(p + 1, close);
      if (value.includes('\n')) throw OUTSIDE;
      return value.includes('\\') ? this.escaped(p + 1) : { value, end: close + 1 };
    }
    let value = '';
    let from = p + 1;
    for (;;) {
      const close = src.indexOf("'", from);
      if (close === -1) throw OUTSIDE;
      const part = src.slice(from, close);
      if (part.includes('\n')) throw OUTSIDE;
      value += part;
      if (src.charCodeAt(close + 1) !== SINGLE_QUOTE) return { value, end: close + 1 };
      value += "'";
      from = close + 2;
    }
  }

  /** A double-quoted scalar with escapes: only `\"`, `\\`, `\/`, `\n` and `\t` are read here (one line). */
  private escaped(from: number): { value: string; end: number } {
    const src = this.src;
    let value = '';
    let p = from;
    for (;;) {
      const stop = p;
      let c = src.charCodeAt(p);
      while (c !== DOUBLE_QUOTE && c !== BACKSLASH && c !== NEWLINE && p < src.length) c = src.charCodeAt(++p);
      value += src.slice(stop, p);
      if (c === DOUBLE_QUOTE) return { value, end: p + 1 };
      if (c !== BACKSLASH) throw OUTSIDE; // the end of the line or of the text: a multi-line scalar
      const escape = ESCAPES[src.charAt(p + 1)];
      if (escape === undefined) throw OUTSIDE;
      value += escape;
      p += 2;
    }
  }

  /** A flow collection closed on its own line, of plain and quoted scalars and flow collections. */
  private flow(p: number, depth: number): { value: unknown; end: number } {
    if (depth > this.maxDepth) throw OUTSIDE;
    const src = this.src;
    const isSequence = src.charCodeAt(p) === BRACKET_OPEN;
    const close = isSequence ? BRACKET_CLOSE : BRACE_CLOSE;
    const items: unknown[] = [];
    const entries: Record<string, unknown> = {};
    p = this.skipSpaces(p + 1);
    if (src.charCodeAt(p) === close) return { value: isSequence ? items : entries, end: p + 1 };
    for (;;) {
      if (isSequence) {
        const item = this.flowItem(p, depth);
        items.push(item.value);
        p = item.end;
      } else {
        const colon = this.keyEnd(p);
        if (colon === -1 || src.charCodeAt(colon + 1) !== SPACE) throw OUTSIDE;
        const key = this.key(p, colon);
        if (Object.hasOwn(entries, key)) throw OUTSIDE;
        const item = this.flowItem(this.skipSpaces(colon + 1), depth);
        entries[key] = item.value;
        p = item.end;
      }
      p = this.skipSpaces(p);
      const c = src.charCodeAt(p);
      if (c === close) return { value: isSequence ? items : entries, end: p + 1 };
      if (c !== COMMA) throw OUTSIDE;
      p = this.skipSpaces(p + 1);
      // A trailing comma, or a collection that goes on to the next line: js-yaml decides.
      const next = src.charCodeAt(p);
      if (next === BRACKET_CLOSE || next === BRACE_CLOSE || next === COMMA) throw OUTSIDE;
    }
  }

  private flowItem(p: number, depth: number): { value: unknown; end: number } {
    const src = this.src;
    const c = src.charCodeAt(p);
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) return this.quoted(p);
    if (c === BRACKET_OPEN || c === BRACE_OPEN) return this.flow(p, depth + 1);
    let end = p;
    for (;;) {
      const d = src.charCodeAt(end);
      if (d === COMMA || d === BRACKET_CLOSE || d === BRACE_CLOSE) break;
      // `:` (a key), `#` (a comment), an opening bracket, the end of the line: js-yaml decides.
      if (d === COLON || d === HASH || d === BRACKET_OPEN || d === BRACE_OPEN || d === NEWLINE || end >= src.length) throw OUTSIDE;
      end++;
    }
    let last = end;
    while (src.charCodeAt(last - 1) === SPACE) last--;
    if (last === p) throw OUTSIDE;
    return { value: resolvePlain(src.slice(p, last)), end };
  }

  private skipSpaces(p: number): number {
    while (this.src.charCodeAt(p) === SPACE) p++;
    return p;
  }

  /**
   * A literal block scalar (`|` keeps one final line break, `|-` none). Its lines are those indented
   * at least as much as its first non-empty line, which must be more indented than its parent.
   * Indentation indicators, `|+`, blank lines holding more spaces than the indentation, and a block
   * with no content are left to js-yaml.
   */
  private literal(p: number, parentIndent: number): string {
    const src = this.src;
    let q = p + 1;
    const strip = src.charCodeAt(q) === DASH;
    if (strip) q++;
    const c = src.charCodeAt(q);
    if (c !== SPACE && c !== NEWLINE && q < src.length) throw OUTSIDE;
    let start = this.lineEnd(q);
    const header = src.slice(q, start).trim();
    if (header !== '' && header.charCodeAt(0) !== HASH) throw OUTSIDE;
    start++;
    const lines: string[] = [];
    let contentIndent = -1;
    let blank = 0;
    while (start < src.length) {
      const end = this.lineEnd(start);
      let s = start;
      while (src.charCodeAt(s) === SPACE) s++;
      if (s === end) {
        if (contentIndent !== -1 ? s - start > contentIndent : s - start > parentIndent) throw OUTSIDE;
        lines.push('');
        blank++;
      } else {
        const indent = s - start;
        if (contentIndent === -1) {
          if (indent <= parentIndent) break;
          contentIndent = indent;
        } else if (indent < contentIndent) break;
        lines.push(src.slice(start + contentIndent, end));
        blank = 0;
      }
      start = end + 1;
    }
    if (contentIndent === -1) throw OUTSIDE;
    lines.length -= blank;
    this.nextContentFrom(start);
    return strip ? lines.join('\n') : `${lines.join('\n')}\n`;
  }
}
