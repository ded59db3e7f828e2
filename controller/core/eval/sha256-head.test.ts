import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { headHi, headLo, sha256Head, sha256HeadAfter, sha256Prefix } from './sha256-head.js';

/** The first 8 bytes of node:crypto's SHA-256 of `input` (UTF-8), as two unsigned halves. */
function expected(input: string): [number, number] {
  const digest = hash('sha256', input, 'buffer');
  return [digest.readUInt32BE(0), digest.readUInt32BE(4)];
}

function head(input: string): [number, number] {
  sha256Head(input);
  return [headHi, headLo];
}

/** A deterministic pseudo-random string of `length` code units, mostly ASCII. */
function randomString(length: number, seed: number): string {
  let x = seed * 2654435761 + 1;
  const next = (): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x;
  };
  let out = '';
  for (let i = 0; i < length; i++) {
    const r = next() % 100;
    out += String.fromCharCode(r < 85 ? 32 + (next() % 95) : r < 92 ? 0x80 + (next() % 0x780) : r < 97 ? 0x800 + (next() % 0xf000) : 0xd800 + (next() % 0x800));
  }
  return out;
}

describe('sha256Head', () => {
  it('agrees with node:crypto on the empty string and on the padding boundaries of one and two blocks', () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const input = 'a'.repeat(length);
      expect(head(input), `length ${length}`).toEqual(expected(input));
    }
  });

  it('agrees with node:crypto on 5,000 strings of every length up to 300, with 2-, 3- and 4-byte UTF-8 and lone surrogates', () => {
    const mismatches: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const input = randomString(i % 301, i);
      const [hi, lo] = head(input);
      const [eh, el] = expected(input);
      if (hi !== eh || lo !== el) mismatches.push(JSON.stringify(input));
    }
    expect(mismatches).toEqual([]);
  });

  it('encodes surrogate pairs as one 4-byte character and a lone surrogate as U+FFFD, as Node does', () => {
    for (const input of ['😀', 'a😀b', '\ud800', '\udc00x', 'x\ud83d', '\ud83d\ud83d\ude00']) {
      expect(head(input), JSON.stringify(input)).toEqual(expected(input));
    }
  });

  it('hashes a prepared prefix and an input as node:crypto hashes them joined: prefixes of every length up to 200, inputs up to 100', () => {
    const mismatches: string[] = [];
    for (let i = 0; i < 3000; i++) {
      // A prefix ends with a whole character, as a rule's `salt.ruleSalt.` does.
      const prefix = `${randomString(i % 200, i + 7)}.`;
      const input = randomString((i * 7) % 101, i + 11);
      sha256HeadAfter(sha256Prefix(prefix), input);
      const [eh, el] = expected(prefix + input);
      if (headHi !== eh || headLo !== el) mismatches.push(JSON.stringify([prefix, input]));
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps a prepared prefix usable across other hashes, and across inputs longer than the buffer it started with', () => {
    const prefix = sha256Prefix(`${'s'.repeat(36)}.${'r'.repeat(36)}.`);
    const long = 'x'.repeat(5000);
    for (const input of ['u1', long, 'u2', '']) {
      sha256Head('something else entirely');
      sha256HeadAfter(prefix, input);
      expect([headHi, headLo], input.slice(0, 10)).toEqual(expected(`${'s'.repeat(36)}.${'r'.repeat(36)}.${input}`));
    }
  });
});
