import { tooManyRequests } from './errors.js';

/**
 * Token bucket per key (client IP): `burst` requests at once, refilled at `ratePerSecond`. Buckets
 * that are full again are dropped, so memory follows the number of recently active clients.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(
    private readonly burst: number,
    private readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key` or throws 429 with Retry-After. */
  take(key: string): void {
    const now = this.now();
    this.sweep(now);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    if (b.tokens < 1) {
      this.buckets.set(key, b);
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond));
      throw tooManyRequests('Too many requests: the search is burst-limited per client IP', {
        'Retry-After': String(retryAfter),
      });
    }
    b.tokens -= 1;
    this.buckets.set(key, b);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    const full = (this.burst / this.ratePerSecond) * 1000;
    for (const [k, b] of this.buckets) if (now - b.at > full) this.buckets.delete(k);
  }
}
