import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';

/**
 * Idempotency-Key (issue #20, item 11): a retry with the same key from the same customer gets the
 * stored answer without being charged or audited again; a different request with the key is a
 * 422; a retry while the first still runs is a 409; failures are not stored.
 */
let svc: TestService;
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

async function rows(customerId: number): Promise<{ usage: number; credits: number; audit: number }> {
  const { audit } = svc.service;
  await audit.usage.flush();
  await audit.matches.flush();
  const q = async (sql: string) =>
    Number(((await (await audit.client.query({ query: sql, format: 'JSONEachRow' })).json()) as { n: number }[])[0].n);
  return {
    usage: await q(`SELECT count() AS n FROM screening.usage WHERE customer_id = ${customerId}`),
    credits: await q(`SELECT sum(credits) AS n FROM screening.usage WHERE customer_id = ${customerId}`),
    audit: await q(`SELECT count() AS n FROM screening.audit_matches WHERE customer_id = ${customerId}`),
  };
}

test('a retried request with the same key gets the stored answer, charged and audited once', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const headers = { authorization: `Bearer ${token}`, 'idempotency-key': 'order-1234' };
  const first = await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}`, { headers });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('idempotency-replayed'), null);
  const body = await first.text();
  for (let i = 0; i < 3; i++) {
    const again = await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}`, { headers });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(await again.text(), body);
  }
  assert.deepEqual(await rows(customerId), { usage: 1, credits: 1, audit: 2 });
  // Another key is another request; another customer's same key is theirs.
  assert.equal(
    (
      await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}`, {
        headers: { ...headers, 'idempotency-key': 'order-1235' },
      })
    ).headers.get('idempotency-replayed'),
    null,
  );
  const other = await createCustomerToken(svc.url, 100);
  const theirs = await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}`, {
    headers: { authorization: `Bearer ${other.token}`, 'idempotency-key': 'order-1234' },
  });
  assert.equal(theirs.headers.get('idempotency-replayed'), null);
  assert.deepEqual(await rows(customerId), { usage: 2, credits: 2, audit: 4 });
  assert.deepEqual(await rows(other.customerId), { usage: 1, credits: 1, audit: 2 });
});

test('the same key with a different request is a 422; a malformed key is a 422', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const headers = { authorization: `Bearer ${token}`, 'idempotency-key': 'k-1' };
  assert.equal((await fetch(`${svc.url}/api/v1/screen/country/Iran`, { headers })).status, 200);
  const different = await fetch(`${svc.url}/api/v1/screen/country/Cuba`, { headers });
  assert.equal(different.status, 422);
  assert.deepEqual(await different.json(), {
    detail: [
      {
        type: 'value_error',
        loc: ['header', 'Idempotency-Key'],
        msg: 'Value error, this Idempotency-Key was used for a different request',
        input: 'k-1',
        ctx: { error: 'this Idempotency-Key was used for a different request' },
      },
    ],
  });
  const bad = await fetch(`${svc.url}/api/v1/screen/country/Iran`, {
    headers: { ...headers, 'idempotency-key': 'with space' },
  });
  assert.equal(bad.status, 422);
  assert.deepEqual((await rows(customerId)).usage, 1);
});

test('a retry while the first request still runs (on any node) is a 409 with Retry-After; a failed request is not stored', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const headers = { authorization: `Bearer ${token}`, 'idempotency-key': 'running-1' };
  // The first request's claim, as another node holding it while it runs would have written it.
  const fingerprint = (await import('../../src/core/idempotency.js')).fingerprint('screen.country', {
    country: 'Iran',
  });
  await svc.service.db.query(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, state) VALUES ($1, $2, $3, 'running')`,
    [`customer:${customerId}`, 'running-1', fingerprint],
  );
  const busy = await fetch(`${svc.url}/api/v1/screen/country/Iran`, { headers });
  assert.equal(busy.status, 409);
  assert.equal(busy.headers.get('retry-after'), '1');
  assert.deepEqual(await busy.json(), { detail: 'a request with this Idempotency-Key is still running; retry later' });
  assert.deepEqual((await rows(customerId)).usage, 0);

  const failing = { ...headers, 'idempotency-key': 'fails-1' };
  assert.equal((await fetch(`${svc.url}/api/v1/screen/country/Iran?lists=eu_fsf`, { headers: failing })).status, 503);
  const { rows: stored } = await svc.service.db.query(`SELECT 1 FROM idempotency_keys WHERE key = 'fails-1'`);
  assert.deepEqual(stored, []);
  assert.equal((await fetch(`${svc.url}/api/v1/screen/country/Iran?lists=eu_fsf`, { headers: failing })).status, 503);
});

test('a batch retried with its key gets the same NDJSON, charged once', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'idempotency-key': 'batch-7',
  };
  const body = JSON.stringify({
    items: [
      { type: 'crypto', value: XBT },
      { type: 'country', value: 'Iarn' },
      { type: 'country', value: 'Cuba' },
    ],
  });
  const first = await fetch(`${svc.url}/api/v1/screen/batch`, { method: 'POST', headers, body });
  const text = await first.text();
  assert.equal(first.status, 200);
  const again = await fetch(`${svc.url}/api/v1/screen/batch`, { method: 'POST', headers, body });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotency-replayed'), 'true');
  assert.equal(again.headers.get('content-type'), 'application/x-ndjson');
  assert.equal(await again.text(), text);
  assert.deepEqual(await rows(customerId), { usage: 1, credits: 2, audit: 3 });
});
