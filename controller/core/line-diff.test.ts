import { describe, expect, it } from 'vitest';
import { lineDiff } from './line-diff.js';

describe('lineDiff', () => {
  it('keeps common lines and marks the changed ones', () => {
    expect(lineDiff('{\n  a: 1, // one\n}\n', '{\n  a: 2, // two\n}\n')).toEqual([
      { op: ' ', text: '{' },
      { op: '-', text: '  a: 1, // one' },
      { op: '+', text: '  a: 2, // two' },
      { op: ' ', text: '}' },
    ]);
  });

  it('handles additions at the end', () => {
    expect(lineDiff('a', 'a\nb')).toEqual([
      { op: ' ', text: 'a' },
      { op: '+', text: 'b' },
    ]);
  });
});
