import { describe, expect, it } from 'vitest';
import { contentChanges } from './content-diff.js';
import { fieldChanges, jsonEqual } from './field-changes.js';

describe('fieldChanges', () => {
  it('lists changed, added and removed fields by path', () => {
    expect(fieldChanges({ a: 1, b: { c: 'x', d: [1] }, gone: true }, { a: 1, b: { c: 'y', d: [1, 2] }, added: null })).toEqual([
      { path: 'b.c', old: 'x', new: 'y' },
      { path: 'b.d', old: [1], new: [1, 2] },
      { path: 'added', new: null },
      { path: 'gone', old: true },
    ]);
  });

  it('matches rules by name (or id), so an inserted rule is one change and a move is reported', () => {
    const a = { id: 'a', name: 'staff', passPercentage: 100 };
    const b = { id: 'b', name: 'ramp', passPercentage: 10 };
    const c = { id: 'c', name: 'beta', passPercentage: 5 };
    expect(fieldChanges({ rules: [a, b] }, { rules: [a, c, { ...b, passPercentage: 50 }] })).toEqual([
      { path: 'rules[name=beta]', new: c },
      { path: 'rules[name=ramp].passPercentage', old: 10, new: 50 },
    ]);
    expect(fieldChanges({ rules: [a, b] }, { rules: [b, a] })).toEqual([{ path: 'rules#order', old: ['staff', 'ramp'], new: ['ramp', 'staff'] }]);
    expect(fieldChanges({ rules: [a, b] }, { rules: [a] })).toEqual([{ path: 'rules[name=ramp]', old: b }]);
    expect(fieldChanges({ items: [{ id: 'x', size: 1 }] }, { items: [{ id: 'x', size: 2 }] })).toEqual([{ path: 'items[id=x].size', old: 1, new: 2 }]);
    expect(fieldChanges({ rules: [a] }, { rules: [] })).toEqual([{ path: 'rules', old: [a], new: [] }]);
  });

  it('leaves out the bookkeeping every write changes', () => {
    expect(contentChanges({ version: 1, lastModifiedTime: 1, description: 'a' }, { version: 2, lastModifiedTime: 2, description: 'b' })).toEqual([{ path: 'description', old: 'a', new: 'b' }]);
  });

  it('compares JSON values regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });
});
