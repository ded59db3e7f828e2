import { RateLimitedError } from '../../errors.js';

/**
 * A token bucket per API key: `perSecond` requests a second on average, bursts up to `burst`.
 * In memory, per console process (a shared deployment runs one console per database).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly options: { perSecond: number; burst: number },
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes one token for the key, or throws RateLimitedError saying when to retry. */
  take(key: string): void {
    const now = this.clock();
    const { perSecond, burst } = this.options;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    throw new RateLimitedError(`Rate limit of ${perSecond} requests per second for this key exceeded; retry in ${retryAfterSeconds} s.`, retryAfterSeconds);
  }
}
