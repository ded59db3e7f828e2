import { describe, expect, it } from 'vitest';
import { createConsole } from '../../compose.js';
import { RateLimitedError } from '../../errors.js';
import { FailedAuthLimiter } from './failed-auth-limiter.js';

describe('FailedAuthLimiter', () => {
  it('refuses an address after perMinute failures until its minute ends, logging once', () => {
    let now = 0;
    const logged: [string, number][] = [];
    const limiter = new FailedAuthLimiter({ perMinute: 3, log: (address, failures) => logged.push([address, failures]) }, () => now);
    for (let i = 0; i < 3; i++) {
      limiter.check('10.0.0.1');
      limiter.fail('10.0.0.1');
    }
    now = 15_000;
    expect(() => limiter.check('10.0.0.1')).toThrow(RateLimitedError);
    expect(() => limiter.check('10.0.0.1')).toThrow(/retry in 45 s/);
    limiter.check('10.0.0.2');
    expect(logged).toEqual([['10.0.0.1', 3]]);
    now = 60_000;
    limiter.check('10.0.0.1');
  });
});

describe('console with failedAuthPerMinute', () => {
  it('answers 429 with Retry-After to an address past the limit, for every key it sends, and not to other addresses', async () => {
    const console_ = createConsole({ db: ':memory:', bootstrapKey: 'console-failed-auth-admin', failedAuthPerMinute: 3 });
    await console_.app.ready();
    const get = (key: string | undefined, remoteAddress = '192.0.2.1') =>
      console_.app.inject({ method: 'GET', url: '/console/v1/gates', remoteAddress, headers: key === undefined ? {} : { 'service-api-key': key } });
    try {
      // A missing key is not a guess: it is answered 401 and not counted.
      for (let i = 0; i < 5; i++) expect((await get(undefined)).statusCode).toBe(401);
      for (let i = 0; i < 3; i++) expect((await get(`console-guess-${i}`)).statusCode).toBe(401);
      const limited = await get('console-guess-3');
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.json()).toMatchObject({ status: 429, message: expect.stringMatching(/^Too many failed authentications from this address/) });
      // The right key from that address learns nothing until the minute ends.
      expect((await get('console-failed-auth-admin')).statusCode).toBe(429);
      expect((await get('console-failed-auth-admin', '192.0.2.2')).statusCode).toBe(200);
    } finally {
      await console_.close();
    }
  });
});
