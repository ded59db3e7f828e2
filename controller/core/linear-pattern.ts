import { createRequire } from 'node:module';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import type { RE2JS } from 're2js';

/**
 * Runs the regular expressions of user-supplied JSON Schemas (`pattern`, `patternProperties`) on
 * RE2, whose matching time is linear in the input, instead of the backtracking `RegExp`: a pattern
 * such as `^(a+)+$` then can't stall the console's event loop or a CI run on a hostile value.
 *
 * JSON Schema patterns are ECMAScript regular expressions (ajv compiles them with the `u` flag), so
 * a pattern is first checked as one (a syntax error is reported as before), then translated to
 * RE2 syntax with the same meaning: `.` excludes every ECMAScript line terminator (RE2's only
 * `\n`), `\s` is ECMAScript's white space (RE2's is ASCII), a `[` inside a class stays literal (RE2
 * reads `[:alpha:]` there as a POSIX class), `[]`/`[^]` match nothing/anything, `\p{Letter}` and
 * `\p{Script=Greek}` take RE2's names. `\d`, `\w`, `\b` (ASCII in both), `^`, `$` (end of input
 * only, in both) and code-point matching already agree; the tests compare both engines code point
 * by code point. What RE2 can't run in linear time (lookaround, backreferences), or would run with
 * another meaning, throws `UnsupportedPatternError`, never a silent accept.
 */

/**
 * re2js, loaded on the first pattern: most schemas have none, and `flagops validate` then doesn't
 * pay its load (~25 ms). Synchronous because ajv compiles synchronously.
 */
let engine: typeof RE2JS | undefined;
function loadRe2(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return engine;
}

type Range = readonly [number, number];
/** A class escape: an RE2 escape valid inside and outside `[...]`, or explicit code-point ranges. */
type ClassItem = { escape: string } | { ranges: readonly Range[] };

const MAX_CODE_POINT = 0x10ffff;

/** ECMAScript's WhiteSpace and LineTerminator (what `\s` matches), sorted. */
const WHITE_SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** ECMAScript's LineTerminator: what `.` does not match. */
const LINE_TERMINATORS: readonly Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** General_Category values, every ECMAScript alias, to the short names RE2 knows. */
const GENERAL_CATEGORIES: Readonly<Record<string, string>> = {
  L: 'L', Letter: 'L', LC: 'LC', Cased_Letter: 'LC', Lu: 'Lu', Uppercase_Letter: 'Lu', Ll: 'Ll', Lowercase_Letter: 'Ll',
  Lt: 'Lt', Titlecase_Letter: 'Lt', Lm: 'Lm', Modifier_Letter: 'Lm', Lo: 'Lo', Other_Letter: 'Lo',
  M: 'M', Mark: 'M', Combining_Mark: 'M', Mn: 'Mn', Nonspacing_Mark: 'Mn', Mc: 'Mc', Spacing_Mark: 'Mc', Me: 'Me', Enclosing_Mark: 'Me',
  N: 'N', Number: 'N', Nd: 'Nd', Decimal_Number: 'Nd', digit: 'Nd', Nl: 'Nl', Letter_Number: 'Nl', No: 'No', Other_Number: 'No',
  P: 'P', Punctuation: 'P', punct: 'P', Pc: 'Pc', Connector_Punctuation: 'Pc', Pd: 'Pd', Dash_Punctuation: 'Pd',
  Ps: 'Ps', Open_Punctuation: 'Ps', Pe: 'Pe', Close_Punctuation: 'Pe', Pi: 'Pi', Initial_Punctuation: 'Pi',
  Pf: 'Pf', Final_Punctuation: 'Pf', Po: 'Po', Other_Punctuation: 'Po',
  S: 'S', Symbol: 'S', Sm: 'Sm', Math_Symbol: 'Sm', Sc: 'Sc', Currency_Symbol: 'Sc', Sk: 'Sk', Modifier_Symbol: 'Sk', So: 'So', Other_Symbol: 'So',
  Z: 'Z', Separator: 'Z', Zs: 'Zs', Space_Separator: 'Zs', Zl: 'Zl', Line_Separator: 'Zl', Zp: 'Zp', Paragraph_Separator: 'Zp',
  C: 'C', Other: 'C', Cc: 'Cc', Control: 'Cc', cntrl: 'Cc', Cf: 'Cf', Format: 'Cf', Cs: 'Cs', Surrogate: 'Cs',
  Co: 'Co', Private_Use: 'Co', Cn: 'Cn', Unassigned: 'Cn',
};

const LINEAR_WHY = 'schema patterns run on a linear-time engine (RE2) so that no value can make validation hang, and lookaround and backreferences cannot be matched in linear time';
const PROPERTY_WHY = 'the linear-time engine (RE2) that runs schema patterns knows general categories (\\p{Lu}, \\p{Letter}), long script names (\\p{Script=Greek}), \\p{Any}, \\p{ASCII} and \\p{Assigned}';

/** A pattern that the linear-time engine cannot run with its ECMAScript meaning. */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    /** What in the pattern, e.g. `a lookahead (?=...)`. */
    readonly feature: string,
    /** Why it is not supported. */
    readonly why: string,
  ) {
    super(`${JSON.stringify(pattern)} uses ${feature}, which is not supported: ${why}`);
    this.name = 'UnsupportedPatternError';
  }
}

const hex = (cp: number): string => cp.toString(16);
/** One code point as RE2 text, literal inside and outside a class (`\x{..}` for all but ASCII letters and digits). */
const literal = (cp: number): string => (cp < 0x80 && /[A-Za-z0-9]/.test(String.fromCharCode(cp)) ? String.fromCharCode(cp) : `\\x{${hex(cp)}}`);
const rangeText = ([lo, hi]: Range): string => (lo === hi ? literal(lo) : `${literal(lo)}-${literal(hi)}`);
const rangesText = (ranges: readonly Range[]): string => ranges.map(rangeText).join('');

function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/**
 * Translates an ECMAScript pattern (valid with the `u` flag: the caller checks) to RE2 syntax with
 * the same meaning for `test`. Groups become non-capturing (nothing reads captures).
 */
export function translatePattern(pattern: string): string {
  return new Translator(pattern).run();
}

class Translator {
  private i = 0;
  constructor(private readonly src: string) {}

  run(): string {
    let out = '';
    while (this.i < this.src.length) out += this.term();
    return out;
  }

  private refuse(feature: string, why = LINEAR_WHY): never {
    throw new UnsupportedPatternError(this.src, feature, why);
  }

  private term(): string {
    const src = this.src;
    const ch = src[this.i];
    switch (ch) {
      case '\\':
        return this.outside(this.escape(false));
      case '[':
        return this.characterClass();
      case '(':
        return this.group();
      case '{': {
        // In `u` mode a brace is always a quantifier: `{n}`, `{n,}`, `{n,m}`.
        const end = src.indexOf('}', this.i);
        const text = src.slice(this.i, end + 1);
        this.i = end + 1;
        return text;
      }
      case '.':
        this.i++;
        return `[${rangesText(complement(LINE_TERMINATORS))}]`;
      case ')':
      case '|':
      case '*':
      case '+':
      case '?':
      case '^':
      case '$':
        this.i++;
        return ch;
      default: {
        const cp = src.codePointAt(this.i) ?? 0;
        this.i += cp > 0xffff ? 2 : 1;
        return literal(cp);
      }
    }
  }

  private group(): string {
    const rest = this.src.slice(this.i);
    if (rest.startsWith('(?:')) {
      this.i += 3;
      return '(?:';
    }
    if (rest.startsWith('(?=')) this.refuse('a lookahead (?=...)');
    if (rest.startsWith('(?!')) this.refuse('a negative lookahead (?!...)');
    if (rest.startsWith('(?<=')) this.refuse('a lookbehind (?<=...)');
    if (rest.startsWith('(?<!')) this.refuse('a negative lookbehind (?<!...)');
    if (rest.startsWith('(?<')) {
      this.i = this.src.indexOf('>', this.i) + 1;
      return '(?:';
    }
    if (rest.startsWith('(?')) this.refuse(`an inline modifier group ${rest.slice(0, rest.indexOf(':') + 1)}...)`, 'the linear-time engine (RE2) that runs schema patterns would read it with other case-folding rules');
    this.i++;
    return '(?:';
  }

  private outside(item: ClassItem | number): string {
    if (typeof item === 'number') return literal(item);
    if ('escape' in item) return item.escape;
    return `[${rangesText(item.ranges)}]`;
  }

  private characterClass(): string {
    this.i++; // [
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    let body = '';
    while (this.src[this.i] !== ']') {
      const from = this.classAtom();
      if (typeof from === 'number' && this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++; // -
        const to = this.classAtom();
        // In `u` mode both ends of a range are single characters (the caller checked the syntax).
        body += typeof to === 'number' ? rangeText([from, to]) : `${literal(from)}${literal(0x2d)}${this.inside(to)}`;
      } else {
        body += this.inside(from);
      }
    }
    this.i++; // ]
    // ECMAScript's [] matches nothing and [^] anything; RE2 would read a leading ] as a literal.
    if (body === '') return negated ? `[${rangeText([0, MAX_CODE_POINT])}]` : `[^${rangeText([0, MAX_CODE_POINT])}]`;
    return `[${negated ? '^' : ''}${body}]`;
  }

  private inside(item: ClassItem | number): string {
    if (typeof item === 'number') return literal(item);
    if ('escape' in item) return item.escape;
    return rangesText(item.ranges);
  }

  private classAtom(): ClassItem | number {
    if (this.src[this.i] === '\\') return this.escape(true);
    const cp = this.src.codePointAt(this.i) ?? 0;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** At a backslash: a class escape, an assertion (outside a class) or one character. */
  private escape(inClass: boolean): ClassItem | number {
    const c = this.src[this.i + 1] ?? '';
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        this.i += 2;
        return { escape: `\\${c}` };
      case 'b':
      case 'B':
        this.i += 2;
        // Inside a class \b is a backspace; outside, an ASCII word boundary in both engines.
        return inClass ? 0x08 : { escape: `\\${c}` };
      case 's':
        this.i += 2;
        return { ranges: WHITE_SPACE };
      case 'S':
        this.i += 2;
        return { ranges: complement(WHITE_SPACE) };
      case 'p':
      case 'P':
        return this.property(c === 'P');
      case 'k':
        return this.refuse(`a named backreference ${this.src.slice(this.i, this.src.indexOf('>', this.i) + 1)}`);
      default:
        if (c >= '1' && c <= '9') this.refuse(`a backreference \\${/^\d+/.exec(this.src.slice(this.i + 1))?.[0] ?? c}`);
        return this.characterEscape();
    }
  }

  /** At a backslash: `\n`, `\cX`, `\0`, `\xHH`, `\uHHHH` (a surrogate pair is one code point), `\u{H...}` or an identity escape. */
  private characterEscape(): number {
    const src = this.src;
    const c = src[this.i + 1] ?? '';
    this.i += 2;
    const controls: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, '0': 0 };
    if (Object.hasOwn(controls, c)) return controls[c] ?? 0;
    if (c === 'c') return src.charCodeAt(this.i++) % 32;
    if (c === 'x') {
      this.i += 2;
      return parseInt(src.slice(this.i - 2, this.i), 16);
    }
    if (c === 'u') {
      if (src[this.i] === '{') {
        const end = src.indexOf('}', this.i);
        const cp = parseInt(src.slice(this.i + 1, end), 16);
        this.i = end + 1;
        return cp;
      }
      const unit = parseInt(src.slice(this.i, this.i + 4), 16);
      this.i += 4;
      const trail = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(src.slice(this.i));
      if (unit >= 0xd800 && unit <= 0xdbff && trail?.[1]) {
        this.i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (parseInt(trail[1], 16) - 0xdc00);
      }
      return unit;
    }
    // An identity escape: a syntax character, `/` or (in a class) `-`.
    const cp = src.codePointAt(this.i - 1) ?? 0;
    if (cp > 0xffff) this.i++;
    return cp;
  }

  /** At `\p{...}` or `\P{...}`. */
  private property(negated: boolean): ClassItem {
    const end = this.src.indexOf('}', this.i);
    const text = this.src.slice(this.i, end + 1);
    const body = this.src.slice(this.i + 3, end);
    this.i = end + 1;
    const [name, value] = body.includes('=') ? (body.split('=') as [string, string]) : [undefined, body];
    const p = negated ? 'P' : 'p';
    const unsupported = (): never => this.refuse(`the Unicode property ${text}`, PROPERTY_WHY);
    if (name === 'General_Category' || name === 'gc' || name === undefined) {
      if (Object.hasOwn(GENERAL_CATEGORIES, value)) return { escape: `\\${p}{${GENERAL_CATEGORIES[value] ?? value}}` };
      if (name !== undefined) unsupported();
      // Binary properties: only the few RE2 can express exactly.
      if (value === 'Any') return { escape: `\\${p}{Any}` };
      if (value === 'ASCII') return { ranges: negated ? complement([[0, 0x7f]]) : [[0, 0x7f]] };
      if (value === 'Assigned') return { escape: `\\${negated ? 'p' : 'P'}{Cn}` };
      return unsupported();
    }
    if (name === 'Script' || name === 'sc') {
      // RE2 knows scripts by their long names; a short alias (Grek) fails to compile and is refused.
      if (!/^[A-Za-z_]+$/.test(value) || Object.hasOwn(GENERAL_CATEGORIES, value) || value === 'Any') unsupported();
      try {
        loadRe2().compile(`\\p{${value}}`);
      } catch {
        unsupported();
      }
      return { escape: `\\${p}{${value}}` };
    }
    return unsupported(); // Script_Extensions and other properties with values
  }
}

/** `RegExpLike` for ajv: `test` searches anywhere in the string, as `RegExp.prototype.test` does. */
class LinearPattern implements RegExpLike {
  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly re2: RE2JS,
  ) {}
  test(s: string): boolean {
    return this.re2.test(s);
  }
  /** ajv keys compiled patterns by this text. */
  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** Compiles an ECMAScript pattern (with the `u` flag) to a linear-time matcher, or throws. */
export function compileLinearPattern(pattern: string, flags = 'u'): RegExpLike {
  if (flags !== 'u') throw new Error(`linear-time patterns are compiled with the unicode flag only (asked for '${flags}')`);
  // Checks the ECMAScript syntax, so an invalid pattern is reported as before. Compiling a RegExp
  // never matches anything, so it can't backtrack.
  new RegExp(pattern, flags);
  const translated = translatePattern(pattern);
  const RE2 = loadRe2();
  let re2: RE2JS;
  try {
    re2 = RE2.compile(translated);
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    const repeat = /invalid repeat count/.test(message);
    throw new UnsupportedPatternError(
      pattern,
      repeat ? 'a repetition count above 1000 (counting nested repetitions multiplied)' : 'a construct the linear-time engine rejects',
      repeat ? 'the linear-time engine (RE2) that runs schema patterns caps repetition counts at 1000' : `the linear-time engine (RE2) that runs schema patterns rejects it (${message})`,
    );
  }
  return new LinearPattern(pattern, flags, re2);
}

/** ajv's `code.regExp`: user-supplied schema patterns run on RE2, never on the backtracking RegExp. */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => compileLinearPattern(pattern, flags), {
  // Used only by ajv's standalone code generation, which flagops does not use.
  code: 'linearRegExp',
});
