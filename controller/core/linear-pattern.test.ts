import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearPattern, translatePattern, UnsupportedPatternError } from './linear-pattern.js';

const native = (pattern: string): RegExp => new RegExp(pattern, 'u');

/** Every BMP code point and a stride through the astral planes: where two engines could disagree. */
function* codePoints(): Generator<string> {
  for (let cp = 0; cp <= 0xffff; cp++) yield String.fromCharCode(cp);
  for (let cp = 0x10000; cp <= 0x10ffff; cp += 17) yield String.fromCodePoint(cp);
}

describe('linear-time patterns', () => {
  it('answers a catastrophic-backtracking pattern on a 10,000-character input', () => {
    const pattern = compileLinearPattern('^(a+)+$');
    expect(pattern.test(`${'a'.repeat(10_000)}!`)).toBe(false);
    expect(pattern.test('a'.repeat(10_000))).toBe(true);
    expect(compileLinearPattern('^(\\w+\\s?)*$').test(`${'word '.repeat(2_000)}!`)).toBe(false);
  });

  it('keeps ordinary patterns', () => {
    expect(compileLinearPattern('^[a-z]+$').test('abc')).toBe(true);
    expect(compileLinearPattern('^[a-z]+$').test('abC')).toBe(false);
    expect(compileLinearPattern('\\d{3}').test('ab123')).toBe(true);
    expect(compileLinearPattern('\\d{3}').test('ab12')).toBe(false);
    expect(compileLinearPattern('^\\p{L}+$').test('Grüße')).toBe(true);
    expect(compileLinearPattern('^\\p{Lu}').test('élan')).toBe(false);
    expect(compileLinearPattern('^\\p{Script=Greek}+$').test('αβγ')).toBe(true);
    expect(compileLinearPattern('^\\p{Letter}{2}$').test('中文')).toBe(true);
    expect(compileLinearPattern('^(?<year>\\d{4})-(?<month>\\d{2})$').test('2024-05')).toBe(true);
  });

  // Each class escape RE2 spells differently, over every code point: `.` and `\s` have
  // ECMAScript's meaning, not RE2's ([^\n] and [\t\n\f\r ]).
  it.each(['.', '\\s', '\\S', '[^\\s]', '[\\s\\S]', '\\w', '\\W', '\\d', '[^]', '[]', '\\p{L}', '\\P{Nd}', '\\p{Assigned}', '\\p{ASCII}', '[\\p{Script=Greek}\\d-]'])(
    '%s matches the same code points as in ECMAScript',
    (source) => {
      const es = native(`^${source}$`);
      const re2 = compileLinearPattern(`^${source}$`);
      const disagree: string[] = [];
      for (const s of codePoints()) if (es.test(s) !== re2.test(s)) disagree.push((s.codePointAt(0) ?? 0).toString(16));
      expect(disagree.slice(0, 10)).toEqual([]);
    },
  );

  it('agrees with ECMAScript on anchors, escapes and classes', () => {
    const cases: [string, string[]][] = [
      ['a$', ['a', 'a\n', 'ba', 'ab']],
      ['^a', ['a', 'b\na', 'ab']],
      ['\\bfoo\\b', ['foo', 'a foo.', 'foobar', 'éfooé']],
      ['^[[:alpha:]+$', ['a', '[:', 'pal', 'b', '1']],
      ['^[\\u{1F600}-\\u{1F64F}]$', ['😀', '😐', 'a', '\ud83d']],
      ['^\\uD83D\\uDE00$', ['😀', '\ud83d']],
      ['^\\ud83d$', ['\ud83d', '😀']],
      ['^.$', ['😀', '\ud83d', '\n', '\u2028', '\r']],
      ['^\\/\\.\\*\\cJ\\0\\x41\\u0042[\\b\\-]$', ['/.*\n\0AB\b', '/.*\n\0AB-', '/.*\n\0AB']],
      ['^(?:a|bc?)+?$', ['abcab', 'ac', '']],
      ['^a{2,3}$', ['a', 'aa', 'aaa', 'aaaa']],
      ['', ['', 'x']],
    ];
    for (const [pattern, inputs] of cases) {
      for (const input of inputs) expect(compileLinearPattern(pattern).test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(native(pattern).test(input));
    }
  });

  it('agrees with ECMAScript on generated patterns and strings', () => {
    const atom = fc.constantFrom('a', 'b', '.', '\\d', '\\w', '\\s', '\\S', '\\W', '[a-c]', '[^a\\s]', '\\p{L}', '\\P{L}', '😀', '\\u{e9}', '\\.', '-', '[]', '[^]', '[\\w-]', '\\n');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,2}', '*?', '+?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const sequence = fc.array(piece, { maxLength: 4 }).map((p) => p.join(''));
    const pattern = fc
      .tuple(fc.constantFrom('', '^'), fc.array(sequence, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '$'), fc.boolean())
      .map(([start, alternatives, end, group]) => (group ? `${start}(${alternatives.join('|')})+${end}` : `${start}${alternatives.join('|')}${end}`));
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '1', '_', ' ', '\n', '\r', '\u2028', '\u00a0', '\ufeff', 'é', 'Ω', '😀', '\ud800', '.', '-'), { maxLength: 8 }).map((c) => c.join(''));
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        expect(compileLinearPattern(p).test(s), `${p} on ${JSON.stringify(s)}`).toBe(native(p).test(s));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['^(?=.*\\d)[a-z\\d]+$', 'a lookahead (?=...)'],
    ['^(?!admin)\\w+$', 'a negative lookahead (?!...)'],
    ['(?<=\\$)\\d+', 'a lookbehind (?<=...)'],
    ['(?<!-)\\d+', 'a negative lookbehind (?<!...)'],
    ['^(a)\\1$', 'a backreference \\1'],
    ['^(?<q>["\'])\\w*\\k<q>$', 'a named backreference \\k<q>'],
  ])('refuses %s: %s cannot run in linear time', (pattern, feature) => {
    expect(() => compileLinearPattern(pattern)).toThrow(UnsupportedPatternError);
    expect(() => compileLinearPattern(pattern)).toThrow(`${JSON.stringify(pattern)} uses ${feature}, which is not supported: schema patterns run on a linear-time engine (RE2) so that no value can make validation hang, and lookaround and backreferences cannot be matched in linear time`);
  });

  it('refuses what RE2 would not run with the ECMAScript meaning, saying why', () => {
    expect(() => compileLinearPattern('^\\p{Emoji}$')).toThrow(/uses the Unicode property \\p\{Emoji\}, which is not supported: .*knows general categories/);
    expect(() => compileLinearPattern('\\p{sc=Grek}')).toThrow(/\\p\{sc=Grek\}.*long script names/);
    expect(() => compileLinearPattern('\\p{scx=Greek}')).toThrow(UnsupportedPatternError);
    expect(() => compileLinearPattern('a{1001}')).toThrow(/repetition count above 1000.*caps repetition counts at 1000/);
    expect(() => compileLinearPattern('(a{500}){3}')).toThrow(UnsupportedPatternError);
  });

  it('reports an invalid ECMAScript pattern as a syntax error, as before', () => {
    expect(() => compileLinearPattern('(')).toThrow(SyntaxError);
    // Valid RE2, not valid ECMAScript: never accepted with RE2's meaning.
    expect(() => compileLinearPattern('\\Aabc\\z')).toThrow(SyntaxError);
    expect(() => compileLinearPattern('(?i)abc')).toThrow(SyntaxError);
  });

  it('turns groups into non-capturing ones and escapes every literal that is not a letter or digit', () => {
    expect(translatePattern('^(?<y>\\d{4})-(a|b)$')).toBe('^(?:\\d{4})\\x{2d}(?:a|b)$');
  });
});
