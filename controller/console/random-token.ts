import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * Cryptographically random bytes drawn from a pool refilled 4 KiB at a time: ids are made on every
 * review and rule write, and one randomBytes call per id cost more than the id is worth (bench:apply).
 * The bytes are copied out, so no two callers ever share them.
 */
function randomSlice(bytes: number): Buffer {
  if (bytes > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const slice = Buffer.from(pool.subarray(offset, offset + bytes));
  offset += bytes;
  return slice;
}

export const randomHex = (bytes: number): string => randomSlice(bytes).toString('hex');
export const randomBase64url = (bytes: number): string => randomSlice(bytes).toString('base64url');
