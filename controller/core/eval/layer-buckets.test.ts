import { describe, expect, it } from 'vitest';
import { LAYER_BUCKETS, layerBuckets, ownBuckets, type BucketClaim } from './layer-buckets.js';

const claim = (id: string, allocation: number, startTime: number | undefined, endTime?: number, userBuckets: number[] = []): BucketClaim => ({ id, allocation, startTime, endTime, userBuckets });

describe('layerBuckets', () => {
  it('gives running experiments disjoint buckets of their allocation; setup ones none', () => {
    const buckets = layerBuckets([claim('a', 40, 1), claim('b', 50, 2), claim('c', 10, undefined)]);
    const a = buckets.get('a') ?? [];
    const b = buckets.get('b') ?? [];
    expect(a).toHaveLength(400);
    expect(b).toHaveLength(500);
    expect(a.filter((x) => b.includes(x))).toEqual([]);
    expect(buckets.has('c')).toBe(false);
    expect([...a, ...b].every((x) => Number.isInteger(x) && x >= 0 && x < LAYER_BUCKETS)).toBe(true);
  });

  it("keeps an experiment's buckets when an earlier one concludes or a later one starts", () => {
    const before = layerBuckets([claim('a', 40, 1), claim('b', 50, 2)]).get('b');
    expect(layerBuckets([claim('a', 40, 1, 5), claim('b', 50, 2)]).get('b')).toEqual(before);
    expect(layerBuckets([claim('a', 40, 1, 5), claim('b', 50, 2), claim('c', 40, 6)]).get('b')).toEqual(before);
    // c started after a concluded: it may take a's freed buckets, never b's.
    const after = layerBuckets([claim('a', 40, 1, 5), claim('b', 50, 2), claim('c', 40, 6)]);
    expect((after.get('c') ?? []).filter((x) => before?.includes(x))).toEqual([]);
  });

  it('takes the buckets an experiment states first', () => {
    expect(layerBuckets([claim('a', 0.3, 1, undefined, [7, 8, 9, 10])]).get('a')).toEqual([7, 8, 9]);
  });
});

describe('ownBuckets', () => {
  it('raising the allocation only adds buckets', () => {
    const small = ownBuckets('exp', 20);
    const large = ownBuckets('exp', 30);
    expect(small).toHaveLength(200);
    expect(small.every((x) => large.includes(x))).toBe(true);
  });
});
