/**
 * The first 8 bytes of SHA-256, in JavaScript: bucketing hashes one short string per percentage rule
 * and unit (`salt.ruleSalt.unitID`, one 64-byte block), and for such an input a call into OpenSSL
 * costs about twice these rounds (the call, its checks and a Buffer per digest). The Statsig SDK
 * hashes in JavaScript too. `sha256-head.test.ts` compares it with `node:crypto` on every length
 * and on strings that are not ASCII.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The message schedule, reused: the hash runs to completion on one thread. */
const W = new Int32Array(64);
/** The input's UTF-8 bytes and padding, grown when an input needs more. */
let block = new Uint8Array(256);

/**
 * Writes `input` as UTF-8 (lone surrogates as U+FFFD, as Node encodes them) into `block` from
 * `start`; where it ends.
 */
function utf8(input: string, start: number): number {
  const n = input.length;
  if (block.length < start + n * 3 + 72) {
    const grown = new Uint8Array(start + n * 3 + 72);
    grown.set(block.subarray(0, start));
    block = grown;
  }
  const b = block;
  let j = start;
  for (let i = 0; i < n; i++) {
    let c = input.charCodeAt(i);
    if (c < 0x80) {
      b[j++] = c;
    } else if (c < 0x800) {
      b[j++] = 0xc0 | (c >> 6);
      b[j++] = 0x80 | (c & 63);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < n ? input.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          b[j++] = 0xf0 | (c >> 18);
          b[j++] = 0x80 | ((c >> 12) & 63);
          b[j++] = 0x80 | ((c >> 6) & 63);
          b[j++] = 0x80 | (c & 63);
          continue;
        }
        c = 0xfffd;
      }
      b[j++] = 0xe0 | (c >> 12);
      b[j++] = 0x80 | ((c >> 6) & 63);
      b[j++] = 0x80 | (c & 63);
    }
  }
  return j;
}

/** The high half (bytes 0–3) of the last `sha256Head`, big-endian, unsigned. */
export let headHi = 0;
/** The low half (bytes 4–7) of the last `sha256Head`, big-endian, unsigned. */
export let headLo = 0;

const INITIAL_STATE = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/**
 * The fixed start of inputs hashed many times (a rule's `salt.ruleSalt.`), hashed once: the state
 * after its whole 64-byte blocks and its bytes past them. With a rule's two salts (ids of 36
 * characters) the start fills a block, so each unit then costs one compression instead of two.
 */
export interface Sha256Prefix {
  readonly state: Int32Array;
  readonly tail: Uint8Array;
  /** The prefix's length in bytes. */
  readonly length: number;
}

export function sha256Prefix(prefix: string): Sha256Prefix {
  const length = utf8(prefix, 0);
  const whole = length & ~63;
  const state = Int32Array.from(INITIAL_STATE);
  compress(state, block, whole);
  return { state, tail: block.slice(whole, length), length };
}

const NO_PREFIX: Sha256Prefix = sha256Prefix('');
const state = new Int32Array(8);

/**
 * Hashes `input` (UTF-8) with SHA-256 and leaves the digest's first 8 bytes in `headHi` and
 * `headLo` (no object per call: the bulk evaluation of a thousand flags hashes a thousand times).
 */
export function sha256Head(input: string): void {
  sha256HeadAfter(NO_PREFIX, input);
}

/** `sha256Head(prefix + input)`, for a prefix prepared by `sha256Prefix` (one that ends with a whole character). */
export function sha256HeadAfter(prefix: Sha256Prefix, input: string): void {
  const tail = prefix.tail;
  block.set(tail);
  const end = utf8(input, tail.length);
  const b = block;
  const total = ((end + 9 + 63) >> 6) << 6;
  b[end] = 0x80;
  b.fill(0, end + 1, total);
  // Inputs are far below 2²⁹ bytes: the bit length fits the last 32 bits.
  const bits = (prefix.length - tail.length + end) * 8;
  b[total - 4] = bits >>> 24;
  b[total - 3] = (bits >>> 16) & 255;
  b[total - 2] = (bits >>> 8) & 255;
  b[total - 1] = bits & 255;
  state.set(prefix.state);
  compress(state, b, total);
  headHi = (state[0] as number) >>> 0;
  headLo = (state[1] as number) >>> 0;
}

/** Runs SHA-256's compression over `b[0, end)` (whole blocks), updating `h`. */
function compress(h: Int32Array, b: Uint8Array, end: number): void {
  let h0 = h[0] as number;
  let h1 = h[1] as number;
  let h2 = h[2] as number;
  let h3 = h[3] as number;
  let h4 = h[4] as number;
  let h5 = h[5] as number;
  let h6 = h[6] as number;
  let h7 = h[7] as number;
  const w = W;
  const k = K;
  for (let offset = 0; offset < end; offset += 64) {
    for (let t = 0; t < 16; t++) {
      const o = offset + t * 4;
      w[t] = ((b[o] as number) << 24) | ((b[o + 1] as number) << 16) | ((b[o + 2] as number) << 8) | (b[o + 3] as number);
    }
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15] as number;
      const y = w[t - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
    }
    let a = h0;
    let bb = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let t = 0; t < 64; t++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + s1 + ch + (k[t] as number) + (w[t] as number)) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & bb) ^ (a & c) ^ (bb & c);
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + s0 + maj) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + bb) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
  h[4] = h4;
  h[5] = h5;
  h[6] = h6;
  h[7] = h7;
}
