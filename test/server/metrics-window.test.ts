import { test } from 'node:test';
import assert from 'node:assert/strict';
import { histogramQuantile, Metrics, MetricsWindow } from '../../src/server/metrics.js';

test('histogram quantiles interpolate within a bucket, as Prometheus does', () => {
  const buckets = new Float64Array(17);
  assert.equal(histogramQuantile(0.5, buckets), null);
  buckets[3] = 10; // (0.5 ms, 1 ms]
  assert.equal(histogramQuantile(0.5, buckets), 0.00075);
  buckets[16] = 10; // +Inf: the last finite bound
  assert.equal(histogramQuantile(0.99, buckets), 10);
});

test('the window compares the live counters with the oldest copy kept', () => {
  let now = 0;
  const metrics = new Metrics();
  const route = metrics.route('GET /api/v1/stats', 'GET');
  const window = new MetricsWindow(() => metrics.allRoutes(), { intervalMs: 10_000, keep: 6, now: () => now });
  for (let i = 0; i < 30; i++) route.observe(200, 0.002);
  now = 10_000;
  window.snapshot();
  for (let i = 0; i < 8; i++) route.observe(200, 0.02);
  route.observe(500, 0.02);
  route.observe(503, 0.02);
  now = 20_000;
  const s = window.summary();
  assert.equal(s.window_seconds, 20);
  assert.equal(s.requests_per_second, 40 / 20);
  assert.equal(s.errors, 2);
  assert.deepEqual(
    s.routes.map((r) => [r.route, r.total, r.errors]),
    [['GET /api/v1/stats', 40, 2]],
  );
  assert.equal(s.latency_ms.p50, 2, 'the 20th of 40: two thirds into the 1-2.5 ms bucket of the first 30');
  assert.equal(s.routes[0].latency_ms.p99, 24.4);
  window.snapshot();
  for (let i = 0; i < 6; i++) {
    now += 10_000;
    window.snapshot();
  }
  const later = window.summary();
  assert.equal(later.window_seconds, 60, 'one minute: older copies are dropped');
  assert.equal(later.requests_per_second, 0);
  assert.deepEqual(later.latency_ms, { p50: null, p95: null, p99: null });
});
