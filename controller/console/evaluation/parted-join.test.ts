import { describe, expect, it } from 'vitest';
import { PartedJoin } from './parted-join.js';

function parted(items: string[], partChars: number): string[] {
  const join = new PartedJoin('{"flags":[', ']}', partChars);
  for (const item of items) join.add(item);
  return join.finish();
}

describe('PartedJoin', () => {
  it('gives the text of one join, whatever the part size and the items', () => {
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let trial = 0; trial < 300; trial++) {
      const items = Array.from({ length: random(40) }, (_, i) => `${i}:${'é'.repeat(random(30))}`);
      const partChars = 1 + random(120);
      const parts = parted(items, partChars);
      expect(parts.join(''), `trial ${trial}`).toBe(`{"flags":[${items.join(',')}]}`);
      const longest = Math.max(0, ...items.map((i) => i.length));
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(partChars + longest + '{"flags":['.length + 1);
    }
  });

  it('closes the text in a part of its own when the last item filled the part before', () => {
    expect(parted(['aaaa', 'bbbb'], 5)).toEqual(['{"flags":[aaaa', ',bbbb', ']}']);
    expect(parted([], 5)).toEqual(['{"flags":[]}']);
    expect(parted(['a', 'b'], 100)).toEqual(['{"flags":[a,b]}']);
  });
});
