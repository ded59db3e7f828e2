import { describe, expect, it } from 'vitest';
import { describeJsonTreeProblem, jsonTreeProblem, MAX_JSON_DEPTH, textNesting } from './json-tree-problem.js';

/** JSON text of objects nested `levels` deep: 2 → `{"a":{"a":1}}`. */
const nestedText = (levels: number, key = 'a'): string => `${`{"${key}":`.repeat(levels)}1${'}'.repeat(levels)}`;
const nested = (levels: number): unknown => JSON.parse(nestedText(levels)) as unknown;
const path = (...keys: string[]): string => keys.join('.');

describe('jsonTreeProblem: depth', () => {
  it('accepts scalars, {} and a tree exactly MAX_JSON_DEPTH deep', () => {
    for (const value of [null, 1, 'text', true, {}, [], nested(MAX_JSON_DEPTH)]) expect(jsonTreeProblem(value, MAX_JSON_DEPTH)).toBeUndefined();
  });

  it('one level more is refused, naming the first container past the limit', () => {
    expect(jsonTreeProblem(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toEqual({ kind: 'too-deep', path: path(...Array<string>(MAX_JSON_DEPTH).fill('a')), maxDepth: MAX_JSON_DEPTH });
  });

  it('counts arrays as levels too, and names their indexes', () => {
    const arrays = JSON.parse(`${'['.repeat(4)}${']'.repeat(4)}`) as unknown;
    expect(jsonTreeProblem(arrays, 4)).toBeUndefined();
    expect(jsonTreeProblem({ rules: [{ returnValue: { a: [[]] } }] }, 5)).toEqual({ kind: 'too-deep', path: 'rules[0].returnValue.a[0]', maxDepth: 5 });
  });

  it('a tree far deeper than the call stack allows is reported, not a RangeError', () => {
    const deep = JSON.parse(nestedText(100_000)) as unknown;
    expect(jsonTreeProblem(deep, MAX_JSON_DEPTH)?.kind).toBe('too-deep');
  });
});

describe('jsonTreeProblem: JSON text fields count from where their value goes', () => {
  // A field of the root object: its parsed value would be level 2, so the text may nest 63 levels.
  const allowed = MAX_JSON_DEPTH - 1;

  it.each(['defaultValueJson5', 'schemaJson5', 'schema', 'returnValueJson5'])('%s: the deepest text allowed passes, one level more is refused', (field) => {
    expect(jsonTreeProblem({ [field]: nestedText(allowed) }, MAX_JSON_DEPTH)).toBeUndefined();
    expect(jsonTreeProblem({ [field]: nestedText(allowed + 1) }, MAX_JSON_DEPTH)).toEqual({ kind: 'text-too-deep', path: field, maxDepth: MAX_JSON_DEPTH });
  });

  it('deeper in the body, less is left: rules[0].returnValueJson5 may nest 61 levels', () => {
    const body = (levels: number) => ({ rules: [{ returnValueJson5: nestedText(levels) }] });
    expect(jsonTreeProblem(body(MAX_JSON_DEPTH - 3), MAX_JSON_DEPTH)).toBeUndefined();
    expect(jsonTreeProblem(body(MAX_JSON_DEPTH - 2), MAX_JSON_DEPTH)).toEqual({ kind: 'text-too-deep', path: 'rules[0].returnValueJson5', maxDepth: MAX_JSON_DEPTH });
  });

  it('other string fields are text, however many brackets they hold', () => {
    expect(jsonTreeProblem({ description: '['.repeat(1000) }, MAX_JSON_DEPTH)).toBeUndefined();
  });
});

describe('textNesting', () => {
  it('counts the brackets open at once', () => {
    expect(textNesting('1', 10)).toBe(0);
    expect(textNesting('{a: [1, {b: 2}], c: []}', 10)).toBe(3);
  });

  it('skips brackets in strings (either quote, with escapes) and in comments', () => {
    expect(textNesting(`{a: "[[[\\"[[", b: '{{\\'{{'}`, 10)).toBe(1);
    expect(textNesting('{a: 1 // [[[[\n}', 10)).toBe(1);
    expect(textNesting('{a: 1 /* [[[[ */}', 10)).toBe(1);
  });

  it('a line comment ends at any JSON5 line terminator, so brackets after \\r or U+2028 count', () => {
    expect(textNesting('// c\r[[[]]]', 10)).toBe(3);
    expect(textNesting('// c\u2028[[[]]]', 10)).toBe(3);
  });

  it('gives up past stop', () => {
    expect(textNesting('['.repeat(1_000_000), 5)).toBe(6);
  });
});

describe('jsonTreeProblem: prototype keys', () => {
  it('refuses an own __proto__ key, naming where it is', () => {
    const body = JSON.parse('{"rules":[{"__proto__":{"isAdmin":true}}]}') as unknown;
    expect(jsonTreeProblem(body, MAX_JSON_DEPTH)).toEqual({ kind: 'prototype-key', path: 'rules[0].__proto__', key: '__proto__' });
  });

  it('refuses constructor.prototype', () => {
    const body = JSON.parse('{"defaultValue":{"constructor":{"prototype":{}}}}') as unknown;
    expect(jsonTreeProblem(body, MAX_JSON_DEPTH)).toEqual({ kind: 'prototype-key', path: 'defaultValue.constructor.prototype', key: 'constructor.prototype' });
  });

  it('accepts constructor and prototype as ordinary keys', () => {
    expect(jsonTreeProblem(JSON.parse('{"constructor":"x","prototype":{},"c":{"constructor":{"name":"y"}}}'), MAX_JSON_DEPTH)).toBeUndefined();
  });
});

describe('describeJsonTreeProblem', () => {
  it('names the property, or (body) for the root', () => {
    expect(describeJsonTreeProblem({ kind: 'too-deep', path: '', maxDepth: 0 }).property).toBe('(body)');
    expect(describeJsonTreeProblem({ kind: 'prototype-key', path: '__proto__', key: '__proto__' })).toEqual({
      message: 'Body may not contain the key "__proto__".',
      property: '__proto__',
      errorMessage: 'is refused: JavaScript would take this key for an object prototype',
    });
  });
});
