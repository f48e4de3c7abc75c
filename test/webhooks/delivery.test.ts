import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Db } from '../../src/store/db.js';
import { INTERRUPTED_ERROR } from '../../src/webhooks/claims.js';
import { createWebhookDelivery, type WebhookDeliveryOptions } from '../../src/webhooks/delivery.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { WebhookStore, WebhookUrlError } from '../../src/webhooks/store.js';
import { BACKENDS, closeBackends, type TestDb } from '../store/backends.js';
import { startReceiver, verifyLikeACustomer, type Receiver } from './receiver.js';

/**
 * The delivery worker against real databases (PGlite, and a PostgreSQL server) and a receiver
 * on 127.0.0.1: retries on 500 and on timeout with the same event id, a restart mid-retry, secret
 * rotation, delivery-time SSRF refusal, test events, failure after the last attempt, isolation of
 * a dead endpoint, concurrent workers.
 */

const log = pino({ level: 'silent' });
const policy = { allowLoopback: true, allowPrivate: false };
let t: TestDb;
let db: Db;
let receiver: Receiver;
let store: WebhookStore;

async function customer(name: string): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO customers (name, monthly_quota) VALUES ($1, 1000) RETURNING id',
    [name],
  );
  return rows[0].id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The workers' clock: a retry falls due when the test moves it past the backoff, never because the
 * machine was slow (the suite runs on busy CI machines). It moves forward within a backend's suite,
 * and stays well inside the five minutes a receiver accepts a signature's timestamp.
 */
let skew = 0;
const RETRY_MS = 10_000;
const afterBackoff = () => (skew += RETRY_MS + 1);
const worker = (extra: Partial<WebhookDeliveryOptions> = {}) =>
  createWebhookDelivery({
    db,
    log,
    policy,
    timeoutMs: 10_000,
    retryDelaysMs: [RETRY_MS, RETRY_MS, RETRY_MS],
    jitter: 0,
    now: () => Date.now() + skew,
    ...extra,
  });

async function endpointFor(path: string, customerId: number) {
  const ep = await store.createEndpoint(customerId, { url: receiver.url(path) });
  receiver.secrets.set(path, ep.secret);
  return ep;
}

async function log_(customerId: number, endpointId: number) {
  const page = await store.deliveries(customerId, endpointId, { limit: 10, offset: 0 });
  return page!.items;
}

before(async () => {
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await closeBackends();
});

for (const backend of BACKENDS)
  describe(`webhook delivery on ${backend.name}`, () => {
    before(async () => {
      t = await backend.database();
      db = t.db;
      skew = 0;
      store = new WebhookStore(db, { policy });
    });
    // Receiver paths are per backend: both suites share the receiver.
    const P = (path: string) => `/${backend.name}${path}`;

    test('a test event: type test, evt_test_<uuid>, null monitored entity id, signed', async () => {
      const c = await customer('test-event');
      const ep = await endpointFor(P('/test'), c);
      const sent = await store.sendTest(c, ep.id);
      assert.ok(sent);
      assert.match(sent.event.id, /^evt_test_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(await worker().runOnce(), 1);
      const got = receiver.received.filter((r) => r.path === P('/test'));
      assert.equal(got.length, 1);
      assert.equal(got[0].verified, true);
      assert.deepEqual(got[0].body, sent.event);
      assert.equal(got[0].body.type, 'test');
      assert.deepEqual((got[0].body.monitored_entity as { id: null }).id, null);
      // The project's helper agrees with the receiver's own check, on the raw bytes only.
      const header = got[0].headers['x-service-signature'] as string;
      assert.equal(verifyWebhookSignature(got[0].raw, header, receiver.secrets.get(P('/test'))!), true);
      assert.equal(
        verifyWebhookSignature(
          Buffer.concat([got[0].raw, Buffer.from(' ')]),
          header,
          receiver.secrets.get(P('/test'))!,
        ),
        false,
      );
      const [d] = await log_(c, ep.id);
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts, 1);
      assert.equal(d.attempt_log[0].status_code, 200);
    });

    test('500, then a timeout, then success: three attempts of the same event id, all logged', async () => {
      const c = await customer('retries');
      const ep = await endpointFor(P('/flaky'), c);
      receiver.script.set(P('/flaky'), [500, 'hang', 204]);
      const sent = (await store.sendTest(c, ep.id))!;
      const registry = new Registry();
      const w = worker({ registry, timeoutMs: 1000 });
      assert.equal(await w.runOnce(), 1);
      assert.equal(await w.runOnce(), 0, 'the retry waits for its backoff');
      afterBackoff();
      assert.equal(await w.runOnce(), 1);
      afterBackoff();
      assert.equal(await w.runOnce(), 1);
      const got = receiver.received.filter((r) => r.path === P('/flaky'));
      assert.deepEqual(
        got.map((r) => [r.body.id, r.answered, r.verified]),
        [
          [sent.event.id, 500, true],
          [sent.event.id, 'hang', true],
          [sent.event.id, 204, true],
        ],
      );
      assert.ok(
        got.every((r) => r.raw.equals(got[0].raw)),
        'the same body at every attempt',
      );
      const [d] = await log_(c, ep.id);
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts, 3);
      assert.deepEqual(
        d.attempt_log.map((a) => [a.attempt, a.status_code, a.error]),
        [
          [1, 500, 'HTTP 500'],
          [2, null, 'timeout: no response within 1000 ms'],
          [3, 204, null],
        ],
      );
      assert.ok(d.attempt_log[1].latency_ms >= 990);
      const metrics = await registry.getSingleMetricAsString('webhook_delivery_attempts_total');
      assert.match(metrics, /result="http_error"} 1/);
      assert.match(metrics, /result="timeout"} 1/);
      assert.match(metrics, /result="success"} 1/);
    });

    test('a worker stopped mid-retry and a restarted database: the next worker delivers the same id', async () => {
      const c = await customer('restart');
      const ep = await endpointFor(P('/restart'), c);
      receiver.script.set(P('/restart'), [503]);
      const sent = (await store.sendTest(c, ep.id))!;
      const first = worker();
      first.start();
      while (!receiver.received.some((r) => r.path === P('/restart'))) await sleep(20);
      await first.stop();
      // The service goes down and comes back: close the database, open it again.
      db = await t.restart();
      store = new WebhookStore(db, { policy });
      afterBackoff();
      const second = worker();
      assert.equal(await second.runOnce(), 1);
      const got = receiver.received.filter((r) => r.path === P('/restart'));
      assert.deepEqual(
        got.map((r) => [r.body.id, r.answered]),
        [
          [sent.event.id, 503],
          [sent.event.id, 200],
        ],
      );
      const [d] = await log_(c, ep.id);
      assert.deepEqual([d.status, d.attempts, d.attempt_log.map((a) => a.status_code)], ['delivered', 2, [503, 200]]);
    });

    test('secret rotation: the old secret no longer signs, retries included', async () => {
      const c = await customer('rotation');
      const ep = await endpointFor(P('/rotate'), c);
      const old = receiver.secrets.get(P('/rotate'))!;
      await store.sendTest(c, ep.id);
      const rotated = (await store.rotateSecret(c, ep.id))!;
      assert.notEqual(rotated.secret, old);
      assert.equal(rotated.secret_prefix, rotated.secret.slice(0, 10));
      // The receiver still holds the old secret: it rejects the delivery (401), a failed attempt.
      assert.equal(await worker().runOnce(), 1);
      const [rejected] = receiver.received.filter((r) => r.path === P('/rotate'));
      assert.deepEqual([rejected.verified, rejected.answered], [false, 401]);
      assert.equal(
        verifyLikeACustomer(rejected.raw, rejected.headers['x-service-signature'] as string, rotated.secret),
        true,
      );
      // With the new secret configured, the retry is accepted.
      receiver.secrets.set(P('/rotate'), rotated.secret);
      afterBackoff();
      assert.equal(await worker().runOnce(), 1);
      const [, accepted] = receiver.received.filter((r) => r.path === P('/rotate'));
      assert.deepEqual([accepted.verified, accepted.answered, accepted.body.id], [true, 200, rejected.body.id]);
      assert.deepEqual(
        (await log_(c, ep.id))[0].attempt_log.map((a) => a.status_code),
        [401, 200],
      );
    });

    test('the last failed attempt marks the delivery failed, visible in the log; 3xx is not followed', async () => {
      const c = await customer('failing');
      const ep = await endpointFor(P('/gone'), c);
      receiver.script.set(P('/gone'), [302, 500]);
      await store.sendTest(c, ep.id);
      const w = worker({ retryDelaysMs: [RETRY_MS] });
      assert.equal(await w.runOnce(), 1);
      afterBackoff();
      assert.equal(await w.runOnce(), 1);
      afterBackoff();
      assert.equal(await w.runOnce(), 0);
      const failed = await store.deliveries(c, ep.id, { status: 'failed', limit: 10, offset: 0 });
      assert.equal(failed!.total, 1);
      const d = failed!.items[0];
      assert.deepEqual([d.status, d.attempts, d.last_status_code, d.next_attempt_at], ['failed', 2, 500, null]);
      assert.deepEqual(
        d.attempt_log.map((a) => [a.status_code, a.error]),
        [
          [302, 'HTTP 302: redirects are not followed'],
          [500, 'HTTP 500'],
        ],
      );
      assert.ok(d.completed_at);
    });

    test('a last attempt whose node died is interrupted: the delivery fails, with no further POST', async () => {
      const c = await customer('interrupted');
      const ep = await endpointFor(P('/cut'), c);
      receiver.script.set(P('/cut'), [500]);
      await store.sendTest(c, ep.id);
      const registry = new Registry();
      const w = worker({ retryDelaysMs: [RETRY_MS], registry });
      assert.equal(await w.runOnce(), 1);
      // What a node killed during attempt 2 leaves (test/webhooks/interrupted.test.ts kills a real
      // one): the attempt recorded without an outcome, and its lease, long expired.
      const [pending] = await log_(c, ep.id);
      await db.query(
        `UPDATE webhook_deliveries SET attempts = 2, locked_until = '2000-01-01T00:00:00Z' WHERE id = $1`,
        [pending.id],
      );
      await db.query(
        'INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error) VALUES ($1, 2, now(), NULL, 0, NULL)',
        [pending.id],
      );
      const shown = (await log_(c, ep.id))[0];
      assert.deepEqual(
        [shown.status, shown.attempts, shown.attempt_log.map((a) => [a.status_code, a.error])],
        [
          'pending',
          2,
          [
            [500, 'HTTP 500'],
            [null, INTERRUPTED_ERROR],
          ],
        ],
      );
      afterBackoff();
      assert.equal(await w.runOnce(), 1);
      const [d] = await log_(c, ep.id);
      assert.deepEqual(
        [d.status, d.attempts, d.last_status_code, d.last_error, d.next_attempt_at],
        ['failed', 2, null, INTERRUPTED_ERROR, null],
      );
      assert.deepEqual(
        d.attempt_log.map((a) => [a.attempt, a.status_code, a.error]),
        [
          [1, 500, 'HTTP 500'],
          [2, null, INTERRUPTED_ERROR],
        ],
      );
      const { rows } = await db.query<{ error: string }>(
        'SELECT error FROM webhook_attempts WHERE delivery_id = $1 AND attempt = 2',
        [d.id],
      );
      assert.deepEqual(rows, [{ error: INTERRUPTED_ERROR }], 'stored as interrupted, not only shown so');
      assert.equal(receiver.received.filter((r) => r.path === P('/cut')).length, 1);
      assert.match(
        await registry.getSingleMetricAsString('webhook_delivery_attempts_total'),
        /result="interrupted"} 1/,
      );
    });

    test('a dead endpoint does not delay another one; the per-endpoint limit holds', async () => {
      const c = await customer('isolation');
      const dead = await endpointFor(P('/dead'), c);
      const live = await endpointFor(P('/live'), c);
      receiver.script.set(P('/dead'), Array(6).fill('hang'));
      for (let i = 0; i < 6; i++) await store.sendTest(c, dead.id);
      await store.sendTest(c, live.id);
      const w = worker({ perEndpointConcurrency: 2 });
      const deadAttempts = () => receiver.received.filter((r) => r.path === P('/dead')).length;
      w.start();
      while (!receiver.received.some((r) => r.path === P('/live'))) await sleep(20);
      // Delivered while the dead endpoint's first attempts still hang (their timeout is 10 s): it waited for none of them.
      assert.ok(receiver.received.some((r) => r.path === P('/live') && r.answered === 200));
      assert.ok(deadAttempts() <= 2, `${deadAttempts()} attempts to the dead endpoint before the live one was served`);
      while (deadAttempts() < 2) await sleep(20);
      await sleep(200);
      assert.equal(deadAttempts(), 2, 'two attempts in flight at most');
      await w.stop();
      // Its backlog would otherwise stay due for the next tests' workers.
      await store.deleteEndpoint(c, dead.id);
    });

    test('SSRF: refused at configuration, and again at delivery when the policy no longer allows the address', async () => {
      const c = await customer('ssrf');
      const strict = new WebhookStore(db, { policy: { allowLoopback: false, allowPrivate: false } });
      const refused: [string, RegExp][] = [
        ['http://127.0.0.1:9/x', /must use https/],
        ['https://127.0.0.1/x', /loopback/],
        ['https://localhost/x', /loopback/],
        ['https://[::1]/x', /loopback/],
        ['https://[::ffff:127.0.0.1]/x', /loopback/],
        ['https://169.254.169.254/latest/meta-data', /metadata/],
        ['https://[fd00:ec2::254]/', /metadata/],
        ['https://[::ffff:169.254.169.254]/', /metadata/],
        ['https://10.1.2.3/', /private/],
        ['https://192.168.0.10/', /private/],
        ['https://172.16.5.5/', /private/],
        ['https://100.64.0.1/', /private/],
        ['https://[fd12:3456::1]/', /private/],
        ['https://169.254.1.1/', /link-local/],
        ['https://[fe80::1]/', /link-local/],
        ['https://0.0.0.0/', /unspecified/],
        ['https://224.0.0.1/', /multicast/],
        ['https://user:pw@example.com/', /credentials/],
        ['ftp://example.com/', /https/],
      ];
      for (const [url, why] of refused) {
        await assert.rejects(
          strict.createEndpoint(c, { url }),
          (e: unknown) => e instanceof WebhookUrlError && why.test(e.message),
          url,
        );
      }
      const privateOk = new WebhookStore(db, { policy: { allowLoopback: false, allowPrivate: true } });
      await assert.rejects(privateOk.createEndpoint(c, { url: 'https://169.254.169.254/' }), /metadata/);
      await assert.rejects(privateOk.createEndpoint(c, { url: 'https://127.0.0.1/' }), /loopback/);
      assert.equal(
        (await privateOk.createEndpoint(c, { url: 'https://10.1.2.3/hook', enabled: false })).enabled,
        false,
      );
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE customer_id = $1',
        [c],
      );
      assert.equal(rows[0].n, 1);

      // Configured while loopback was allowed; the worker's policy refuses it: a failed attempt, no request.
      const ep = await endpointFor(P('/ssrf'), c);
      await store.sendTest(c, ep.id);
      assert.equal(await worker({ policy: { allowLoopback: false, allowPrivate: false } }).runOnce(), 1);
      assert.equal(receiver.received.filter((r) => r.path === P('/ssrf')).length, 0);
      const [d] = await log_(c, ep.id);
      assert.deepEqual(
        [d.status, d.last_status_code, d.last_error],
        ['pending', null, 'refused: the URL must use https'],
      );
      await store.deleteEndpoint(c, ep.id);
    });

    test('workers racing on one database deliver each event once', async () => {
      const c = await customer('race');
      const ep = await endpointFor(P('/race'), c);
      const ids = new Set<string>();
      for (let i = 0; i < 8; i++) ids.add((await store.sendTest(c, ep.id))!.event.id);
      const a = worker({ perEndpointConcurrency: 8 });
      const b = worker({ perEndpointConcurrency: 8 });
      const counts = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
      assert.equal(
        counts.reduce((x, y) => x + y, 0),
        8,
      );
      const got = receiver.received.filter((r) => r.path === P('/race')).map((r) => r.body.id);
      assert.equal(got.length, 8);
      assert.deepEqual(new Set(got), ids);
    });

    test('a disabled endpoint gets no new events and its pending deliveries wait', async () => {
      const c = await customer('disabled');
      const ep = await endpointFor(P('/off'), c);
      await store.sendTest(c, ep.id);
      await store.updateEndpoint(c, ep.id, { enabled: false });
      assert.equal(await worker().runOnce(), 0);
      await assert.rejects(store.sendTest(c, ep.id), /disabled/);
      await store.updateEndpoint(c, ep.id, { enabled: true });
      assert.equal(await worker().runOnce(), 1);
      assert.equal(receiver.received.filter((r) => r.path === P('/off')).length, 1);
    });
  });
