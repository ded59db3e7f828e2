import { Lexer } from 'yaml';

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const DASH = 0x2d;
const QUESTION = 0x3f;
const NEWLINE = 0x0a;

/** Lexer marks that stand for no character of the text (document mode, flow error end, scalar start). */
const MARKS = new Set(['\x02', '\x18', '\x1f']);

/**
 * Where a text certainly nests collections deeper than `maxDepth`, read by `yaml`'s lexer (which keeps
 * a counter, not a stack): the flow collection opened past `maxDepth` open ones, or the block
 * indicator (`- `, `? `) past `maxDepth` of them on one line (`- - - x` nests a sequence per dash).
 *
 * `yaml`'s parser builds a token per level and its composer recurses per level: a megabyte of `[`
 * costs seconds and a gigabyte before the depth could be checked, and ~800 levels overflow the stack.
 * With this offset, only the text before it is parsed. Nesting by indentation needs no such guard: n
 * levels take n²/2 characters, so a file within its size limit parses quickly however it indents.
 */
export function nestingSuspectAt(text: string, maxDepth: number): number | undefined {
  if (!mayNestDeeper(text, maxDepth)) return undefined;
  let offset = 0;
  let flow = 0;
  let chain = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === '[' || token === '{') {
      if (++flow > maxDepth) return offset;
    } else if (token === ']' || token === '}') {
      if (flow > 0) flow--;
    } else if (token === '\x18') flow = 0; // the lexer left flow mode (a flow collection cut short)
    else if (token === '\n' || token === '\r\n') chain = 0;
    else if (flow === 0 && (token === '-' || token === '?')) {
      if (++chain > maxDepth) return offset;
    }
    if (!MARKS.has(token)) offset += token.length;
  }
  return undefined;
}

/**
 * Whether the text has more than `maxDepth` brackets and braces in all, or more than `maxDepth`
 * dashes and question marks on one line: without either it cannot nest as `nestingSuspectAt` looks
 * for, and the lexer's pass (a quarter of a parse) is spared.
 */
function mayNestDeeper(text: string, maxDepth: number): boolean {
  let brackets = 0;
  let indicators = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++brackets > maxDepth) return true;
    } else if (c === DASH || c === QUESTION) {
      if (++indicators > maxDepth) return true;
    } else if (c === NEWLINE) indicators = 0;
  }
  return false;
}
