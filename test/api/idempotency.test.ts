import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
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

/** Sends a GET whose Idempotency-Key is exactly `key` on the wire; the status and parsed body of the answer. */
async function rawKeyed(path: string, token: string, key: Buffer): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(svc.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(
    Buffer.concat([
      Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: `),
      key,
      Buffer.from('\r\nConnection: close\r\n\r\n'),
    ]),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return { status: Number(text.slice(9, 12)), body: body ? JSON.parse(body) : null };
}

test('a key with a byte outside visible ASCII is a 422 over the wire, never a key-less request', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const malformed = (input: string) => ({
    detail: [
      {
        type: 'value_error',
        loc: ['header', 'Idempotency-Key'],
        msg: 'Value error, Idempotency-Key must be 1 to 255 printable ASCII characters',
        input,
        ctx: { error: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
      },
    ],
  });
  // uWS trims bytes above 0x7F off both ends of a value: `é` alone (UTF-8 or latin1) arrives empty.
  const cases: [Buffer, string][] = [
    [Buffer.from('é'), ''],
    [Buffer.from([0xe9]), ''],
    [Buffer.from([0xc3, 0xa9, 0x20, 0xc3, 0xa9]), ''],
    [Buffer.from('qéN'), 'qéN'],
    [Buffer.from([0x71, 0xe9, 0x4e]), 'q\ufffdN'],
    [Buffer.from('q\x7fN', 'latin1'), 'q\x7fN'],
    [Buffer.from('q\tN', 'latin1'), 'q\tN'],
    [Buffer.from('q N'), 'q N'],
  ];
  for (const [key, input] of cases) {
    const answer = await rawKeyed(`/api/v1/screen/crypto/${XBT}`, token, key);
    assert.equal(answer.status, 422, key.toString('hex'));
    assert.deepEqual(answer.body, malformed(input), key.toString('hex'));
  }
  assert.deepEqual((await rows(customerId)).usage, 0);
  // A byte above 0x7F at either end of a longer key never reaches the service (docs/idempotency.md):
  // `qNé` is read as `qN`, and replays its answer rather than charging twice.
  assert.equal((await rawKeyed(`/api/v1/screen/crypto/${XBT}`, token, Buffer.from('qN'))).status, 200);
  assert.equal((await rawKeyed(`/api/v1/screen/crypto/${XBT}`, token, Buffer.from('qNé'))).status, 200);
  assert.deepEqual((await rows(customerId)).usage, 1);
});
