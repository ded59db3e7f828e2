import { describe, expect, it } from 'vitest';
import { formatJsonPath, JsonObjectSchema, nonFiniteNumberPaths, nonFiniteUnionError } from './json-value.js';

describe('nonFiniteNumberPaths', () => {
  it('finds every Infinity and NaN with its path, in document order', () => {
    const paths = nonFiniteNumberPaths({ a: 1, b: [2, Infinity, { c: NaN }], d: { e: -Infinity, f: 'Infinity' } });
    expect(paths.map(formatJsonPath)).toEqual(['b[1]', 'b[2].c', 'd.e']);
    expect(nonFiniteNumberPaths(NaN)).toEqual([[]]);
    expect(nonFiniteNumberPaths({ a: [1, 'x', null, true, { b: 1e308 }] })).toEqual([]);
  });

  it('walks values nested deeper than the call stack and reports at most 20 numbers', () => {
    let deep: unknown = Infinity;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(nonFiniteNumberPaths(deep)).toHaveLength(1);
    expect(nonFiniteNumberPaths(Array.from({ length: 1000 }, () => NaN))).toHaveLength(20);
  });
});

describe('JsonObjectSchema', () => {
  it('refuses a non-finite number anywhere inside, at its path', () => {
    const result = JsonObjectSchema.safeParse({ price: { amounts: [1, Infinity] } });
    expect(result.error?.issues.map((i) => [i.path, i.message])).toEqual([[['price', 'amounts', 1], 'must be a finite number (Infinity and NaN are not JSON)']]);
    expect(JsonObjectSchema.safeParse({ price: { amounts: [1, 2] } }).success).toBe(true);
  });

  it('unions say which inner number is not finite', () => {
    expect(nonFiniteUnionError({ input: Infinity })).toBe('must be a finite number (Infinity and NaN are not JSON)');
    expect(nonFiniteUnionError({ input: ['a', NaN] })).toBe('at [1] must be a finite number (Infinity and NaN are not JSON)');
    expect(nonFiniteUnionError({ input: ['a'] })).toBeUndefined();
  });
});
