import { createHash, hash } from 'node:crypto';

/**
 * Bucketing as the Statsig server SDKs do it, so a unit lands in the same bucket whether flagops or
 * the SDK evaluates: sha256 of the input (UTF-8), the first 8 bytes as a big-endian unsigned
 * integer, modulo the bucket count. The modulo is taken on the two 32-bit halves
 * (hi·2³² + lo ≡ (hi mod m)·(2³² mod m) + lo), which stays exact in a double and avoids BigInt.
 */

const TWO_POW_32 = 4294967296;
const RULE_BUCKETS = 10000;
const USER_BUCKETS = 1000;

/**
 * Hashing is the hot path of every percentage rule: buckets are kept per input (bounded, as the SDK
 * keeps its hashes), as plain numbers so the cache costs the garbage collector little.
 */
const CACHE_LIMIT = 100000;
const caches = new Map<number, Map<string, number>>();

/** The first 8 bytes of sha256(input), big-endian, modulo `modulus` (≤ 2²¹ keeps every step exact). */
export function hashModulo(input: string, modulus: number): number {
  let cache = caches.get(modulus);
  if (cache === undefined) caches.set(modulus, (cache = new Map()));
  const known = cache.get(input);
  if (known !== undefined) return known;
  // One-shot hashing: no Hash object per call.
  const digest = hash('sha256', input, 'buffer');
  const hi = digest.readUInt32BE(0);
  const lo = digest.readUInt32BE(4);
  const bucket = (((hi % modulus) * (TWO_POW_32 % modulus)) + lo) % modulus;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(input, bucket);
  return bucket;
}

/** The bucket (0–9999) a rule's pass percentage is compared with: `passes = bucket < passPercentage × 100`. */
export function ruleBucket(specSalt: string, ruleSalt: string, unitID: string): number {
  return hashModulo(`${specSalt}.${ruleSalt}.${unitID}`, RULE_BUCKETS);
}

/** The bucket (0–999) of a `user_bucket` condition. */
export function userBucket(conditionSalt: string, unitID: string): number {
  return hashModulo(`${conditionSalt}.${unitID}`, USER_BUCKETS);
}

/** How the SDKs store an id list entry: the first 8 characters of base64(sha256(id)). */
export function hashIdForIdList(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64').slice(0, 8);
}
