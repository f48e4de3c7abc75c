import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/**
 * Webhooks through the running service over HTTP: a customer configures an endpoint and a
 * monitored value with the dashboard API, sends a test event, and a receiver on loopback checks the
 * signature with its own node:crypto code. (test/webhooks covers events from list changes, retries
 * and restarts in depth.)
 */
let svc: TestService;
let receiver: Receiver;
let headers: Record<string, string>;

before(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  headers = {
    authorization: `Bearer ${(await createCustomerToken(svc.url, 10)).token}`,
    'content-type': 'application/json',
  };
});
after(async () => {
  await svc?.close();
  await receiver?.close();
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('configure, send a test event, receive it signed; the delivery log shows it', async () => {
  const monitored = await api('POST', '/account/monitored-entities', {
    entity_type: 'onchain_address',
    value: 'vitalik.eth',
    label: 'treasury',
  });
  assert.equal(monitored.status, 200);
  assert.equal(monitored.body.value, 'vitalik.eth');
  const created = await api('POST', '/account/webhooks', { url: receiver.url('/hook') });
  assert.equal(created.status, 200);
  assert.match(String(created.body.secret), /^whsec_/);
  receiver.secrets.set('/hook', String(created.body.secret));
  const listed = await api('GET', '/account/webhooks');
  assert.ok(!JSON.stringify(listed.body).includes(String(created.body.secret)), 'the secret is shown only once');

  const sent = await api('POST', `/account/webhooks/${created.body.id}/test`);
  assert.equal(sent.status, 200);
  const deadline = Date.now() + 15_000;
  while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const [got] = receiver.received;
  assert.ok(got, 'no delivery within 15 s');
  assert.equal(got.verified, true);
  assert.equal(got.headers['user-agent'], 'Service-Webhooks/1.0');
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(got.body.type, 'test');
  assert.match(got.body.id, /^evt_test_[0-9a-f-]{36}$/);
  assert.equal((got.body.monitored_entity as { id: unknown }).id, null);
  assert.deepEqual(got.body, (sent.body as { event: unknown }).event);

  let status = '';
  while (status !== 'delivered' && Date.now() < deadline) {
    const log = await api('GET', `/account/webhooks/${created.body.id}/deliveries`);
    status = ((log.body as { items?: { status: string }[] }).items ?? [])[0]?.status ?? '';
    if (status !== 'delivered') await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 'delivered');
});

test('an https-less or private URL is refused; another customer cannot see the endpoint', async () => {
  const refused = await api('POST', '/account/webhooks', { url: 'http://10.0.0.1/hook' });
  assert.equal(refused.status, 422);
  const other = { authorization: `Bearer ${(await createCustomerToken(svc.url, 10, 'Other')).token}` };
  const list = await fetch(`${svc.url}/api/v1/account/webhooks`, { headers: other });
  assert.deepEqual(await list.json(), []);
});
