import { isUtf8 } from 'node:buffer';
import type { RepoProblem } from './repo-reader.js';

/** Why a file's bytes are not text flagops reads, and where: a reader adds the file's path. */
export type ContentProblem = Omit<RepoProblem, 'path'>;

const hex = (byte: number): string => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Offset of the first byte that starts no well-formed UTF-8 sequence (Unicode table 3-7: no overlong
 * forms, no surrogates, nothing past U+10FFFF, the same bytes `isUtf8` refuses), or -1.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    // The second byte's range narrows after E0, ED, F0 and F4; later ones are always 80..BF.
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/** A byte-order mark of another Unicode encoding: the file is text, in an encoding flagops doesn't read. */
function otherEncoding(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  // UTF-32 first: its little-endian mark starts with UTF-16's.
  if ((a === 0x00 && b === 0x00 && c === 0xfe && d === 0xff) || (a === 0xff && b === 0xfe && c === 0x00 && d === 0x00)) return 'UTF-32';
  if ((a === 0xfe && b === 0xff) || (a === 0xff && b === 0xfe)) return 'UTF-16';
  return undefined;
}

/**
 * A file's bytes as text, or why they are not UTF-8. `toString('utf8')` alone turns each bad byte into
 * U+FFFD without a word: a Latin-1 `café` would validate and be applied as `caf�`, and a UTF-16 file
 * would read as a scalar full of NULs. A valid file (nearly every one) costs one vectorised check
 * before its decoding; only a bad one is scanned again, for where it goes wrong.
 */
export function decodeUtf8(bytes: Buffer): string | ContentProblem {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const encoding = otherEncoding(bytes);
  if (encoding !== undefined) return { message: `is ${encoding} text; save it as UTF-8`, line: 1, column: 1 };
  const bad = firstInvalidUtf8(bytes);
  // Both follow the same table; should they ever differ, the file is still refused, at its start.
  if (bad === -1) return { message: 'is not valid UTF-8', line: 1, column: 1 };
  // (A negative offset would make lastIndexOf search from the end.)
  const lineStart = bad === 0 ? 0 : bytes.lastIndexOf(0x0a, bad - 1) + 1;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < lineStart; i = bytes.indexOf(0x0a, i + 1)) line++;
  // Columns count UTF-16 code units from the line's start, as the YAML parser's positions do; the
  // bytes before the bad one are valid, so they decode exactly.
  const column = bytes.toString('utf8', lineStart, bad).length + 1;
  return { message: `is not valid UTF-8 (byte ${hex(bytes[bad] as number)})`, line, column };
}
