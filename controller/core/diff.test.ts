import { describe, expect, it } from 'vitest';
import { diffEntities } from './diff.js';

const rule = (name: string, passPercentage: number) => ({ name, passPercentage, conditions: [] });

describe('diffEntities', () => {
  it('is empty for equal entities whatever the key order', () => {
    expect(diffEntities({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
  });

  it('matches rules by name: a changed rule is one field, not every later rule', () => {
    const before = { rules: [rule('a', 10), rule('b', 20)] };
    const after = { rules: [rule('a', 10), rule('b', 30)] };
    expect(diffEntities(before, after)).toEqual([{ path: 'rules[name=b].passPercentage', old: 20, new: 30 }]);
  });

  it('reports an inserted rule once, plus the new order', () => {
    const before = { rules: [rule('a', 10), rule('c', 30)] };
    const after = { rules: [rule('a', 10), rule('b', 20), rule('c', 30)] };
    expect(diffEntities(before, after)).toEqual([
      { path: 'rules[name=b]', new: rule('b', 20) },
      { path: 'rules#order', old: ['a', 'c'], new: ['a', 'b', 'c'] },
    ]);
  });

  it('reports an appended rule without an order change, and a removed one', () => {
    expect(diffEntities({ rules: [rule('a', 1), rule('x', 2)] }, { rules: [rule('a', 1), rule('b', 2)] })).toEqual([
      { path: 'rules[name=x]', old: rule('x', 2) },
      { path: 'rules[name=b]', new: rule('b', 2) },
    ]);
  });

  it('reports a pure reordering as an order change only', () => {
    expect(diffEntities({ rules: [rule('a', 1), rule('b', 2)] }, { rules: [rule('b', 2), rule('a', 1)] })).toEqual([{ path: 'rules#order', old: ['a', 'b'], new: ['b', 'a'] }]);
  });

  it('recurses into variants and groups by name', () => {
    const before = { rules: [{ ...rule('r', 1), variants: [{ name: 'v', passPercentage: 50, returnValue: { x: 1 } }] }], groups: [{ name: 'Control', size: 50 }] };
    const after = { rules: [{ ...rule('r', 1), variants: [{ name: 'v', passPercentage: 50, returnValue: { x: 2 } }] }], groups: [{ name: 'Control', size: 40 }] };
    expect(diffEntities(before, after)).toEqual([
      { path: 'rules[name=r].variants[name=v].returnValue.x', old: 1, new: 2 },
      { path: 'groups[name=Control].size', old: 50, new: 40 },
    ]);
  });

  it('matches by id when both sides give ids, so a renamed rule is one changed name', () => {
    const before = { rules: [{ id: 'r1', ...rule('old name', 10) }] };
    const after = { rules: [{ id: 'r1', ...rule('new name', 10) }] };
    expect(diffEntities(before, after)).toEqual([{ path: 'rules[id=r1].name', old: 'old name', new: 'new name' }]);
  });

  it('compares unnamed objects (conditions) item by item when the lists have the same length', () => {
    const before = { conditions: [{ type: 'public' }, { type: 'email', targetValue: ['a@x'] }] };
    const after = { conditions: [{ type: 'public' }, { type: 'email', targetValue: ['b@x'] }] };
    expect(diffEntities(before, after)).toEqual([{ path: 'conditions[1].targetValue', old: ['a@x'], new: ['b@x'] }]);
    expect(diffEntities(before, { conditions: [{ type: 'public' }] })).toEqual([{ path: 'conditions', old: before.conditions, new: [{ type: 'public' }] }]);
  });

  it('replaces lists without unique names as a whole', () => {
    expect(diffEntities({ tags: ['a'] }, { tags: ['a', 'b'] })).toEqual([{ path: 'tags', old: ['a'], new: ['a', 'b'] }]);
    const dup = [rule('a', 1), rule('a', 2)];
    expect(diffEntities({ rules: dup }, { rules: [rule('a', 1)] })).toEqual([{ path: 'rules', old: dup, new: [rule('a', 1)] }]);
  });

  it('marks fields present on one side only', () => {
    expect(diffEntities({ a: 1 }, { b: 2 })).toEqual([
      { path: 'b', new: 2 },
      { path: 'a', old: 1 },
    ]);
  });
});
