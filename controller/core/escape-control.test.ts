import { describe, expect, it } from 'vitest';
import { escapeControl } from './escape-control.js';

describe('escapeControl', () => {
  it('escapes C0 and C1 controls, DEL and the bidirectional overrides, and keeps tabs and newlines', () => {
    expect(escapeControl('a\x1b[2Jb\x07\x7f\x9b\u202e\u2066\tc\nd')).toBe('a\\x1b[2Jb\\x07\\x7f\\x9b\\u202e\\u2066\tc\nd');
  });

  it('escapes newlines and carriage returns too on one line', () => {
    expect(escapeControl('a\nb\rc\td', true)).toBe('a\\x0ab\\x0dc\td');
  });

  it('changes nothing when applied again, and leaves letters of any script alone', () => {
    const once = escapeControl('x\x1b]0;title\x07 \u202eevil', true);
    expect(escapeControl(once, true)).toBe(once);
    expect(escapeControl('descripción ключ 名前 שלום')).toBe('descripción ключ 名前 שלום');
  });
});
