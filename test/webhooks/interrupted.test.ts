import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../../harness/service.js';
import { INTERRUPTED_ERROR } from '../../src/webhooks/claims.js';
import { startReceiver } from './receiver.js';

/**
 * Issue #36 item 8: the service killed while a webhook attempt waits for the receiver. The
 * receiver got the POST, so the delivery log must show that attempt: in flight while it runs,
 * interrupted once its node is gone, and the retry after the restart as attempt 2.
 */

type Attempt = { attempt: number; status_code: number | null; error: string | null };
type Delivery = { status: string; attempts: number; attempt_log: Attempt[] };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(200);
  }
}

test('SIGKILL during an attempt: the attempt is logged before its POST, interrupted after the restart, then retried', async () => {
  const receiver = await startReceiver();
  receiver.script.set('/hook', ['hang']);
  const dataDir = await prepareDataDir();
  // The shortest lease the configuration takes: the restarted node retries 11 s after the claim.
  const env = testEnv(dataDir, { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_LEASE_MS: '11000', LOG_LEVEL: 'info' });
  let first = await spawnService(env);
  try {
    let url = `http://127.0.0.1:${first.port}`;
    const headers = {
      authorization: `Bearer ${(await createCustomerToken(url, 10)).token}`,
      'content-type': 'application/json',
    };
    const created = (await (
      await fetch(`${url}/api/v1/account/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url('/hook') }),
      })
    ).json()) as { id: number; secret: string };
    receiver.secrets.set('/hook', created.secret);
    assert.equal(
      (await fetch(`${url}/api/v1/account/webhooks/${created.id}/test`, { method: 'POST', headers })).status,
      200,
    );
    const log = async () =>
      (
        (await (await fetch(`${url}/api/v1/account/webhooks/${created.id}/deliveries`, { headers })).json()) as {
          items: Delivery[];
        }
      ).items[0];
    const shape = (d: Delivery) => [
      d.status,
      d.attempts,
      d.attempt_log.map((a) => [a.attempt, a.status_code, a.error]),
    ];

    await until('the first POST', 60, async () => (receiver.received.length === 1 ? true : undefined));
    assert.deepEqual(shape(await log()), ['pending', 1, [[1, null, 'in flight']]]);

    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    first = await spawnService(env);
    url = `http://127.0.0.1:${first.port}`;
    // Once the killed node's lease expires, the restarted node retries.
    const delivered = await until('the retry to be delivered', 180, async () => {
      const d = await log();
      return d.status === 'delivered' ? d : undefined;
    });
    assert.deepEqual(shape(delivered), [
      'delivered',
      2,
      [
        [1, null, INTERRUPTED_ERROR],
        [2, 200, null],
      ],
    ]);
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1].body.id, receiver.received[0].body.id);
    assert.ok(receiver.received.every((r) => r.verified));
  } finally {
    first.child.kill('SIGKILL');
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
