import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it.each([
    ['the same primitive', 1, 1],
    ['equal strings', 'a', 'a'],
    ['objects in another key order', { a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }],
    ['a key holding undefined and no key', { a: 1, b: undefined }, { a: 1 }],
    ['no key and a key holding undefined', { a: 1 }, { a: 1, b: undefined }],
    ['empty collections', [[], {}], [[], {}]],
  ])('equal: %s', (_, a, b) => {
    expect(jsonEqual(a, b)).toBe(true);
  });

  it.each([
    ['a number and its string', 1, '1'],
    ['NaN and NaN (not JSON)', NaN, NaN],
    ['null and an empty object', null, {}],
    ['an empty object and null', {}, null],
    ['an array and an object with its indices', [1], { 0: 1 }],
    ['an object with indices and an array', { 0: 1 }, [1]],
    ['arrays in another order', [1, 2], [2, 1]],
    ['a shorter array', [1, 2], [1]],
    ['a missing key', { a: 1, b: 2 }, { a: 1 }],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }],
    ['a key holding null and no key', { a: null }, {}],
    ['a different nested value', { a: { b: [1, { c: 1 }] } }, { a: { b: [1, { c: 2 }] } }],
    ['an inherited key against an own one', Object.create({ a: 1 }) as object, { a: 1 }],
  ])('different: %s', (_, a, b) => {
    expect(jsonEqual(a, b)).toBe(false);
  });
});
