import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { afterAttempt, postEvent, statusOutcome, type PostEventOptions } from '../../src/webhooks/attempt.js';
import type { EventRow } from '../../src/webhooks/events.js';
import { startReceiver } from './receiver.js';

const row: EventRow = {
  id: 'evt_1',
  type: 'entity.listed',
  created_at: '2026-01-02T03:04:05.000Z',
  change_id: null,
  monitored_entity_id: null,
  entity_type: 'address',
  value: '0xabc',
  label: null,
  listing: '{}',
};

function options(policy: PostEventOptions['policy']): PostEventOptions {
  const latency = new Histogram({ name: 'test_latency', help: 'test', registers: [new Registry()] });
  return { policy, timeoutMs: 60_000, now: Date.now, latency };
}

test('statusOutcome: any 2xx acknowledges; a redirect or another status is a failed attempt', () => {
  assert.deepEqual(statusOutcome(204, 7), { ok: true, status: 204, error: null, latencyMs: 7, kind: 'success' });
  assert.deepEqual(statusOutcome(302, 7), {
    ok: false,
    status: 302,
    error: 'HTTP 302: redirects are not followed',
    latencyMs: 7,
    kind: 'http_error',
  });
  assert.deepEqual(statusOutcome(500, 7), {
    ok: false,
    status: 500,
    error: 'HTTP 500',
    latencyMs: 7,
    kind: 'http_error',
  });
});

test('afterAttempt: delivered at once, retried with jitter while attempts are left, failed after the last', () => {
  const policy = { delays: [1000, 4000], jitter: 0.2, random: () => 1 };
  assert.deepEqual(afterAttempt(1, true, policy), { final: 'delivered', wait: 0 });
  assert.deepEqual(afterAttempt(1, false, policy), { final: 'pending', wait: 1200 });
  assert.deepEqual(afterAttempt(2, false, { ...policy, random: () => 0 }), { final: 'pending', wait: 3200 });
  assert.deepEqual(afterAttempt(2, false, { ...policy, random: () => 0.5 }), { final: 'pending', wait: 4000 });
  assert.deepEqual(afterAttempt(3, false, policy), { final: 'failed', wait: 0 });
});

test('postEvent: a URL the SSRF guard refuses is a refused attempt, and nothing is sent', async () => {
  const receiver = await startReceiver();
  try {
    const out = await postEvent(
      receiver.url('/hook'),
      'secret',
      row,
      options({ allowLoopback: false, allowPrivate: false }),
    );
    assert.equal(out.ok, false);
    assert.equal(out.kind, 'refused');
    assert.equal(out.status, null);
    assert.match(out.error!, /^refused: /);
    assert.equal(receiver.received.length, 0);
  } finally {
    await receiver.close();
  }
});

test('postEvent: the stored body is POSTed signed with the given secret; the status decides the outcome', async () => {
  const receiver = await startReceiver();
  try {
    receiver.secrets.set('/hook', 'whsec_test');
    receiver.script.set('/hook', [503, 200]);
    const opts = options({ allowLoopback: true, allowPrivate: false });
    const failed = await postEvent(receiver.url('/hook'), 'whsec_test', row, opts);
    assert.deepEqual([failed.ok, failed.status, failed.error, failed.kind], [false, 503, 'HTTP 503', 'http_error']);
    const delivered = await postEvent(receiver.url('/hook'), 'whsec_test', row, opts);
    assert.deepEqual([delivered.ok, delivered.status, delivered.error, delivered.kind], [true, 200, null, 'success']);
    assert.equal(receiver.received.length, 2);
    assert.deepEqual(
      receiver.received.map((r) => [r.verified, r.body.id, r.headers['user-agent']]),
      [
        [true, 'evt_1', 'Service-Webhooks/1.0'],
        [true, 'evt_1', 'Service-Webhooks/1.0'],
      ],
    );
  } finally {
    await receiver.close();
  }
});
