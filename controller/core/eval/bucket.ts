import { createHash } from 'node:crypto';
import { headHi, headLo, sha256Head, sha256HeadAfter, sha256Prefix, type Sha256Prefix } from './sha256-head.js';

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
 * The first 8 bytes of sha256(input), big-endian, modulo `modulus` (≤ 2²¹ keeps every step exact).
 * No cache of buckets (the SDK keeps 100,000 of its hashes): hashing one block costs less than a map
 * of every recent input, whose misses (every new unit) pay for the lookup, the insert and the
 * garbage; a bulk evaluation for a new user took twice as long with one (bench:eval's bulk).
 */
export function hashModulo(input: string, modulus: number): number {
  sha256Head(input);
  return (((headHi % modulus) * (TWO_POW_32 % modulus)) + headLo) % modulus;
}

/** The bucket (0–9999) a rule's pass percentage is compared with: `passes = bucket < passPercentage × 100`. */
export function ruleBucket(specSalt: string, ruleSalt: string, unitID: string): number {
  return hashModulo(`${specSalt}.${ruleSalt}.${unitID}`, RULE_BUCKETS);
}

/** What `ruleBucketAfter` needs of a rule, prepared once: its salts hashed. */
export function ruleBucketPrefix(specSalt: string, ruleSalt: string): Sha256Prefix {
  return sha256Prefix(`${specSalt}.${ruleSalt}.`);
}

/** `ruleBucket(specSalt, ruleSalt, unitID)` for the rule's `ruleBucketPrefix`. */
export function ruleBucketAfter(prefix: Sha256Prefix, unitID: string): number {
  sha256HeadAfter(prefix, unitID);
  return (((headHi % RULE_BUCKETS) * (TWO_POW_32 % RULE_BUCKETS)) + headLo) % RULE_BUCKETS;
}

/** The bucket (0–999) of a `user_bucket` condition. */
export function userBucket(conditionSalt: string, unitID: string): number {
  return hashModulo(`${conditionSalt}.${unitID}`, USER_BUCKETS);
}

/** How the SDKs store an id list entry: the first 8 characters of base64(sha256(id)). */
export function hashIdForIdList(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64').slice(0, 8);
}
