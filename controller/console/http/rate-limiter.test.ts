import { describe, expect, it } from 'vitest';
import { createConsole } from '../../compose.js';
import { RateLimitedError } from '../../errors.js';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('allows a burst, then refills at the rate, per key', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) limiter.take('a');
    expect(() => limiter.take('a')).toThrow(RateLimitedError);
    limiter.take('b');
    now = 500;
    limiter.take('a');
    expect(() => limiter.take('a')).toThrow(/retry in 1 s/);
    now = 10_000;
    for (let i = 0; i < 3; i++) limiter.take('a');
    expect(() => limiter.take('a')).toThrow(RateLimitedError);
  });
});

describe('console with --rate-limit', () => {
  it('answers 429 with Retry-After past the limit, per key, and counts no unauthenticated request', async () => {
    const console_ = createConsole({ db: ':memory:', bootstrapKey: 'console-rl-admin', rateLimitPerSecond: 1 });
    await console_.app.ready();
    const other = (await console_.auth.createKey({ description: 't', userEmail: 'dev@example.com', role: 'member' })).secret;
    const get = (key?: string) => console_.app.inject({ method: 'GET', url: '/console/v1/gates', headers: key ? { 'service-api-key': key } : {} });
    try {
      expect((await get()).statusCode).toBe(401);
      expect((await get('console-rl-admin')).statusCode).toBe(200);
      expect((await get('console-rl-admin')).statusCode).toBe(200);
      const limited = await get('console-rl-admin');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.json()).toMatchObject({ status: 429, message: expect.stringMatching(/Rate limit of 1 requests per second/) });
      expect((await get(other)).statusCode).toBe(200);
    } finally {
      await console_.close();
    }
  });
});
