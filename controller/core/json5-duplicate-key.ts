import JSON5 from 'json5';

/** A key an object of a JSON5 text repeats: its name and 1-based line and column in the text. */
export interface DuplicateKey {
  key: string;
  line: number;
  column: number;
}

const isLineEnd = (c: string): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
/** White space of JSON5 (ECMAScript's), and the characters that end an unquoted key. */
const KEY_END = /[\s:/]/;

/**
 * The first key an object of a JSON5 text holds twice, where `json5` (like JSON.parse) silently keeps
 * the last value: `{ price: 100, price: 0 }` would be read as a price of 0. Only the text's structure
 * is followed (strings, comments, brackets): the text is one `json5` has already parsed, and a key
 * is compared by the string it stands for (`a`, 'a', "\u0061" are one key). No recursion: an object
 * stack, so any nesting costs its length.
 */
export function duplicateJson5Key(text: string): DuplicateKey | undefined {
  const frames: { keys: Set<string> | undefined; expectKey: boolean }[] = [];
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && !isLineEnd(text[i + 1] as string)) i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      for (let k = text.indexOf('\n', i); k !== -1 && k < stop; k = text.indexOf('\n', k + 1)) {
        line++;
        lineStart = k + 1;
      }
      i = stop - 1;
      continue;
    }
    const frame = frames[frames.length - 1];
    if (c === '{' || c === '[') {
      frames.push({ keys: c === '{' ? new Set() : undefined, expectKey: c === '{' });
      continue;
    }
    if (c === '}' || c === ']') {
      frames.pop();
      continue;
    }
    if (c === ',' || c === ':') {
      if (frame?.keys) frame.expectKey = c === ',';
      continue;
    }
    if (/\s/.test(c)) continue;
    const start = i;
    if (c === '"' || c === "'") {
      // To the closing quote; an escaped character (a quote, a line continuation) is skipped over.
      for (i++; i < text.length && text[i] !== c; i++) {
        if (text[i] === '\\') i++;
        if (text[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
      }
    } else if (frame?.keys && frame.expectKey) {
      while (i + 1 < text.length && !KEY_END.test(text[i + 1] as string)) i++;
    } else {
      // A number, true, false, null, Infinity, NaN: up to the next separator.
      while (i + 1 < text.length && !/[\s,:\]}/]/.test(text[i + 1] as string)) i++;
    }
    if (!frame?.keys || !frame.expectKey) continue;
    frame.expectKey = false;
    const key = keyOf(text.slice(start, i + 1));
    if (frame.keys.has(key)) return { key, line, column: start - lineStart + 1 };
    frame.keys.add(key);
  }
  return undefined;
}

/** The string a key token stands for: quoted or not, escapes decoded by `json5` itself. */
function keyOf(token: string): string {
  if (!token.includes('\\')) return token[0] === '"' || token[0] === "'" ? token.slice(1, -1) : token;
  const quoted = token[0] === '"' || token[0] === "'";
  const parsed: unknown = JSON5.parse(quoted ? token : `{${token}:0}`);
  return typeof parsed === 'string' ? parsed : (Object.keys(parsed as object)[0] ?? token);
}
