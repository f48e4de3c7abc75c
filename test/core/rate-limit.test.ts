import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../../src/core/rate-limit.js';
import { HttpError } from '../../src/core/errors.js';

test('burst then refill, per key, 429 with Retry-After', () => {
  let now = 1_000_000;
  const rl = new RateLimiter(3, 1, () => now);
  rl.take('a');
  rl.take('a');
  rl.take('a');
  assert.throws(
    () => rl.take('a'),
    (e: unknown) => e instanceof HttpError && e.status === 429 && e.headers['Retry-After'] === '1',
  );
  rl.take('b');
  now += 1000;
  rl.take('a');
  assert.throws(() => rl.take('a'), HttpError);
});
