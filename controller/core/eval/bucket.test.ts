import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { hashIdForIdList, ruleBucket, ruleBucketAfter, ruleBucketPrefix, userBucket } from './bucket.js';

const require = createRequire(import.meta.url);
// The SDK's own hashing (its pure-JS sha256 and big-endian read), the reference bucketing must match.
const sdkUtils = require('statsig-node/dist/utils/EvaluatorUtils') as { computeUserHash(input: string): bigint };
const sdkHashing = require('statsig-node/dist/utils/Hashing') as { hashUnitIDForIDList(id: string): string };

function unitIds(count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Plain ids, uuids-like ids, numbers, and non-ASCII ids (the hash is over UTF-8).
    const kind = i % 4;
    if (kind === 0) ids.push(`user-${i}`);
    else if (kind === 1) ids.push(`${(i * 2654435761 >>> 0).toString(16)}-${i.toString(36)}-4b2a`);
    else if (kind === 2) ids.push(String(i * 7919));
    else ids.push(`ユーザー${i}-ü-😀`);
  }
  return ids;
}

describe('bucketing', () => {
  it('puts 100,000 unit ids in the same rule bucket as statsig-node', () => {
    const mismatches: string[] = [];
    const seen = new Set<number>();
    for (const id of unitIds(100000)) {
      const mine = ruleBucket('gate_salt', 'rule_salt', id);
      const theirs = Number(sdkUtils.computeUserHash(`gate_salt.rule_salt.${id}`) % 10000n);
      if (mine !== theirs) mismatches.push(`${id}: ${mine} vs ${theirs}`);
      seen.add(mine);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    // 100,000 ids over 10,000 buckets: a uniform hash leaves almost no bucket empty.
    expect(seen.size).toBeGreaterThan(9900);
  });

  it('puts them in the same buckets through a rule prefix prepared once, as the engine buckets, for short salts and for salts of uuid length', () => {
    const salts: [string, string][] = [
      ['gate_salt', 'rule_salt'],
      ['5b7f3a52-1c3e-4c6e-9f0a-6a1d2c3b4e5f', '0e8a7d6c-5b4a-4392-8170-6f5e4d3c2b1a'],
    ];
    const mismatches: string[] = [];
    for (const [specSalt, ruleSalt] of salts) {
      const prefix = ruleBucketPrefix(specSalt, ruleSalt);
      for (const id of unitIds(100000)) {
        const mine = ruleBucketAfter(prefix, id);
        const theirs = Number(sdkUtils.computeUserHash(`${specSalt}.${ruleSalt}.${id}`) % 10000n);
        if (mine !== theirs) mismatches.push(`${specSalt} ${id}: ${mine} vs ${theirs}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('computes user_bucket conditions (mod 1000) as statsig-node', () => {
    for (const id of unitIds(5000)) {
      expect(userBucket('layer_salt', id)).toBe(Number(sdkUtils.computeUserHash(`layer_salt.${id}`) % 1000n));
    }
  });

  it('hashes id list entries as statsig-node stores them', () => {
    for (const id of unitIds(2000)) expect(hashIdForIdList(id)).toBe(sdkHashing.hashUnitIDForIDList(id));
  });
});
