import { describe, expect, it } from 'vitest';
import { containsValue } from './run-flag-tests.js';

describe('containsValue', () => {
  it('an object is contained key by key, recursively; other values must be equal', () => {
    expect(containsValue({ currency: 'USD', fee: 5.5, nested: { a: 1, b: 2 } }, { currency: 'USD', nested: { a: 1 } })).toBe(true);
    expect(containsValue({ currency: 'USD' }, { currency: 'EUR' })).toBe(false);
    expect(containsValue({ currency: 'USD' }, { currency: 'USD', fee: 1 })).toBe(false);
    expect(containsValue({ list: [1, 2, 3] }, { list: [1, 2] })).toBe(false);
    expect(containsValue({ list: [1, 2] }, { list: [1, 2] })).toBe(true);
    expect(containsValue('text', {})).toBe(false);
    expect(containsValue({ a: null }, { a: null })).toBe(true);
    expect(containsValue({}, { a: null })).toBe(false);
  });
});
