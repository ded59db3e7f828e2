import { describe, expect, it } from 'vitest';
import { randomBase64url, randomHex } from './random-token.js';

describe('random tokens', () => {
  it('have the asked length and do not repeat, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(randomHex(8));
    expect(seen.size).toBe(2000);
    expect([...seen].every((t) => /^[0-9a-f]{16}$/.test(t))).toBe(true);
    expect(randomBase64url(12)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});
