import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8 } from './decode-utf8.js';

const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('decodeUtf8', () => {
  it('decodes UTF-8 text as it is, multi-byte characters and a UTF-8 byte-order mark included', () => {
    expect(decodeUtf8(bytes('id: café\nname: crème 🍮\n'))).toBe('id: café\nname: crème 🍮\n');
    expect(decodeUtf8(bytes([0xef, 0xbb, 0xbf], 'id: x\n'))).toBe('\ufeffid: x\n');
    expect(decodeUtf8(Buffer.alloc(0))).toBe('');
  });

  it('refuses a byte that is not UTF-8 at its line and column, naming the byte, instead of turning it into U+FFFD', () => {
    // Latin-1 `café crème`: 0xE9 opens a three-byte sequence that a space breaks.
    expect(decodeUtf8(bytes('id: dark_mode\nname: Dark mode\ndescription: caf', [0xe9], ' cr', [0xe8], 'me\n'))).toEqual({ message: 'is not valid UTF-8 (byte 0xE9)', line: 3, column: 17 });
    // The column counts characters, as the YAML parser's positions do, not bytes.
    expect(decodeUtf8(bytes('a: ü', [0xff]))).toEqual({ message: 'is not valid UTF-8 (byte 0xFF)', line: 1, column: 5 });
    expect(decodeUtf8(bytes([0x80], 'rest'))).toEqual({ message: 'is not valid UTF-8 (byte 0x80)', line: 1, column: 1 });
    // CRLF lines end at the line feed.
    expect(decodeUtf8(bytes('a: 1\r\nb: ', [0xc0, 0xaf]))).toEqual({ message: 'is not valid UTF-8 (byte 0xC0)', line: 2, column: 4 });
  });

  it('says a UTF-16 or UTF-32 file is text in another encoding, from its byte-order mark', () => {
    const text = 'id: x\n';
    expect(decodeUtf8(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))).toEqual({ message: 'is UTF-16 text; save it as UTF-8', line: 1, column: 1 });
    expect(decodeUtf8(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]))).toEqual({ message: 'is UTF-16 text; save it as UTF-8', line: 1, column: 1 });
    expect(decodeUtf8(bytes([0xff, 0xfe, 0x00, 0x00, 0x69, 0x00, 0x00, 0x00]))).toEqual({ message: 'is UTF-32 text; save it as UTF-8', line: 1, column: 1 });
    expect(decodeUtf8(bytes([0x00, 0x00, 0xfe, 0xff, 0x00, 0x00, 0x00, 0x69]))).toEqual({ message: 'is UTF-32 text; save it as UTF-8', line: 1, column: 1 });
  });
});

describe('firstInvalidUtf8', () => {
  it('finds the start of the first ill-formed sequence: overlong forms, surrogates, code points past U+10FFFF, cut sequences', () => {
    expect(firstInvalidUtf8(bytes('ok ', [0xc0, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xe0, 0x80, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xed, 0xa0, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xf0, 0x80, 0x80, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xf4, 0x90, 0x80, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xf5, 0x80, 0x80, 0x80]))).toBe(3);
    expect(firstInvalidUtf8(bytes('ok ', [0xe2, 0x82]))).toBe(3);
    expect(firstInvalidUtf8(bytes('€ ', [0xed, 0x9f, 0xbf], ' ', [0xf4, 0x8f, 0xbf, 0xbf]))).toBe(-1);
  });

  it('agrees with Node on which byte strings are UTF-8, however random', () => {
    // Bytes weighted towards the ranges where the rules are subtle.
    const pool = [0x00, 0x0a, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    let seed = 42;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 20_000; n++) {
      const sample = Buffer.from(Array.from({ length: 1 + (next() % 8) }, () => pool[next() % pool.length] as number));
      const bad = firstInvalidUtf8(sample);
      expect(bad === -1, sample.toString('hex')).toBe(isUtf8(sample));
      // Everything before the bad byte is well-formed on its own.
      if (bad > 0) expect(isUtf8(sample.subarray(0, bad)), sample.toString('hex')).toBe(true);
    }
  });
});
