import { describe, expect, it } from 'vitest';
import { contentChanges } from './content-diff.js';

describe('contentChanges', () => {
  it('leaves out the bookkeeping every write changes', () => {
    expect(contentChanges({ version: 1, lastModifiedTime: 1, description: 'a' }, { version: 2, lastModifiedTime: 2, description: 'b' })).toEqual([{ path: 'description', old: 'a', new: 'b' }]);
  });

  it('lists changed, added and removed fields by path', () => {
    expect(contentChanges({ a: 1, b: { c: 'x', d: [1] }, gone: true }, { a: 1, b: { c: 'y', d: [1, 2] }, added: null })).toEqual([
      { path: 'b.c', old: 'x', new: 'y' },
      { path: 'b.d', old: [1], new: [1, 2] },
      { path: 'added', new: null },
      { path: 'gone', old: true },
    ]);
  });
});
