import { RateLimitedError } from '../../errors.js';

/** Addresses remembered at most: a scan from many addresses must not grow the map without bound. */
const ADDRESSES_MAX = 10_000;
const WINDOW_MS = 60_000;

/**
 * Failed authentications per client address, in windows of a minute: after `perMinute` failures an
 * address gets 429 (with Retry-After, until its window ends) for every request, before any key it
 * sends is looked at, so guessing keys costs a minute per `perMinute` guesses. In memory, per console
 * process.
 */
export class FailedAuthLimiter {
  private readonly windows = new Map<string, { start: number; failures: number; logged: boolean }>();

  constructor(
    private readonly options: { perMinute: number; log?: (address: string, failures: number) => void },
    private readonly clock: () => number = Date.now,
  ) {}

  /** Throws RateLimitedError while the address is over the limit in its current window. */
  check(address: string): void {
    const window = this.current(address);
    if (!window || window.failures < this.options.perMinute) return;
    if (!window.logged) {
      window.logged = true;
      this.options.log?.(address, window.failures);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + WINDOW_MS - this.clock()) / 1000));
    throw new RateLimitedError(`Too many failed authentications from this address (${this.options.perMinute} a minute at most); retry in ${retryAfterSeconds} s.`, retryAfterSeconds);
  }

  /** Counts one failed authentication of the address. */
  fail(address: string): void {
    const window = this.current(address);
    if (window) {
      window.failures += 1;
      return;
    }
    // Oldest first out (a Map iterates in insertion order).
    if (this.windows.size >= ADDRESSES_MAX) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(address, { start: this.clock(), failures: 1, logged: false });
  }

  private current(address: string): { start: number; failures: number; logged: boolean } | undefined {
    const window = this.windows.get(address);
    if (window && this.clock() - window.start >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }
}
