import fc from 'fast-check';
import JSON5 from 'json5';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fastJson5, parseJson5, UNSURE } from './fast-json5.js';

/** parseJson5 must be JSON5.parse: the same value (key order and -0 included) or the same error. */
function outcome(parse: (text: string) => unknown, text: string): { value?: unknown; error?: string } {
  try {
    const value = parse(text);
    return { value: JSON.stringify(value, (_k, v: unknown) => (Object.is(v, -0) ? '-0' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const expectSameAsJson5 = (text: string): void => expect(outcome(parseJson5, text), text).toEqual(outcome((t) => JSON5.parse(t), text));

describe('parseJson5', () => {
  // json5 warns on U+2028 in strings; the texts below have some on purpose.
  const warn = vi.spyOn(console, 'warn');
  beforeAll(() => warn.mockImplementation(() => undefined));
  afterAll(() => warn.mockRestore());

  it('reads the JSON5 people write without json5', () => {
    const texts = [
      `{\n  limit: 10, // per customer\n  label: 'feature 1',\n}\n`,
      `{ limit: 20 /* raised */, label: "gated \\"" }`.replace('\\"', "'"),
      `{ type: 'object', properties: { limit: { type: 'integer', minimum: 0 } }, required: ['limit'] }`,
      `[1, -2.5e3, +4, 0, -0, true, false, null, [], {}, [,].length]`.replace(', [,].length', ''),
      `"plain"`,
      `{"a": {"b": [1, 2, {"c": "d"}]}}`,
      `{ $x: 1, _y: 2, true: 3, __proto__: 4 }`,
    ];
    for (const text of texts) {
      expect(fastJson5(text), text).not.toBe(UNSURE);
      expectSameAsJson5(text);
    }
  });

  it('leaves every other spelling, and every error, to json5', () => {
    const texts = [
      '', ' ', '{', '}', '{a:1', '{a 1}', '[1 2]', '{a:1,,}', '[,]', "'a", '"a\nb"', "'a\\'b'", '"\\u0041"', '"a\\\nb"',
      '0x1F', '-0x1', '.5', '5.', '1e', '01', '1a', 'Infinity', '-Infinity', 'NaN', '+NaN', '1e400', 'truex', 'nul',
      '{ café: 1 }', '{ \\u0061: 1 }', '\u00a0{}', '\v1', '\f1', '1 // c\u2028', '"\u2028"', '/* open', '/ 1', '{a:1} x',
      '{a:1}}', '[1]]', '{"a":1,"a":2}', '{a: {b: }}', '- 1', '--1', '+-1', '1.e5', '[' .repeat(300) + ']'.repeat(300),
    ];
    for (const text of texts) expectSameAsJson5(text);
  });

  it('agrees with json5 on generated texts', () => {
    const json5ish = fc
      .jsonValue({ maxDepth: 4 })
      .chain((value) =>
        fc.record({
          text: fc.constantFrom(JSON.stringify(value), JSON5.stringify(value), JSON5.stringify(value, null, 2), JSON.stringify(value, null, 1)),
          cut: fc.nat(),
          noise: fc.constantFrom('', ' ', ',', '//x\n', '/*y*/', '\u00a0', "'", '"', '\\', '0x', '.', '}', ']', '\u2028'),
        }),
      )
      .map(({ text, cut, noise }) => {
        const at = cut % (text.length + 1);
        return [text, text.slice(0, at) + noise + text.slice(at)];
      });
    fc.assert(
      fc.property(json5ish, (texts) => {
        for (const text of texts) expectSameAsJson5(text);
      }),
      { numRuns: 600 },
    );
  });
});
