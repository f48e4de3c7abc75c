import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';

/**
 * Alerts through the running service over HTTP: metered screenings open and update an alert,
 * two analysts (two tokens of one customer) decide it, and the API answers 404, 409 and 422 where
 * the issue says.
 */
let svc: TestService;
let alice: Record<string, string>;
let bob: Record<string, string>;
let other: Record<string, string>;
let customerId = 0;
let bobTokenId = 0;
let aliceTokenId = 0;

const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

before(async () => {
  svc = await startTestService();
  const a = await createCustomerToken(svc.url, 100, 'alerts A');
  alice = json(a.token);
  aliceTokenId = a.tokenId;
  customerId = a.customerId;
  const created = await api(alice, 'POST', '/account/tokens', { name: 'bob' });
  bob = json(String(created.body.token));
  bobTokenId = Number(created.body.id);
  other = json((await createCustomerToken(svc.url, 100, 'alerts B')).token);
});
after(async () => {
  await svc?.close();
});

async function api(headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Alert = { id: number; version: number; status: string; occurrences: number; [k: string]: unknown };

/** The alerts are recorded after the answer (fire and forget): wait until `ready` holds. */
async function alertsWhen(ready: (items: Alert[]) => boolean): Promise<Alert[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { status, body } = await api(alice, 'GET', '/account/alerts?limit=500');
    assert.equal(status, 200);
    const items = body.items as Alert[];
    if (ready(items)) return items;
    assert.ok(Date.now() < deadline, `alerts not as expected within 30 s: ${JSON.stringify(items)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('screenings open one alert, decisions race on its version, the history keeps who did what', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}?lists=ofac_crypto`, { headers: alice });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { flagged: boolean }).flagged, true);
  }
  const [alert] = await alertsWhen((items) => items.length === 1 && items[0].occurrences === 2);
  assert.equal(alert.status, 'open');
  assert.equal(alert.version, 1);
  assert.equal(alert.screened_value, XBT);
  assert.equal(alert.matched_value, XBT);
  assert.equal(alert.list, 'ofac_crypto');
  assert.equal(alert.match, 'exact');
  assert.equal(alert.decided_at, null);

  assert.equal((await api(other, 'GET', `/account/alerts/${alert.id}`)).status, 404, 'another customer’s alert');
  assert.deepEqual((await api(other, 'GET', '/account/alerts')).body, { items: [], next_cursor: null });

  const noComment = await api(alice, 'POST', `/account/alerts/${alert.id}/decision`, {
    status: 'false_positive',
    version: 1,
  });
  assert.equal(noComment.status, 422);
  assert.match(JSON.stringify(noComment.body), /comment/);

  const [first, second] = await Promise.all([
    api(alice, 'POST', `/account/alerts/${alert.id}/decision`, { status: 'escalated', version: 1 }),
    api(bob, 'POST', `/account/alerts/${alert.id}/decision`, {
      status: 'confirmed',
      comment: 'same wallet',
      version: 1,
    }),
  ]);
  assert.deepEqual([first.status, second.status].sort(), [200, 409]);
  const winner = first.status === 200 ? first.body : second.body;
  assert.equal(winner.version, 2);

  const commented = await api(bob, 'POST', `/account/alerts/${alert.id}/comments`, { text: 'checked the chain' });
  assert.equal(commented.status, 200);
  const detail = await api(alice, 'GET', `/account/alerts/${alert.id}`);
  assert.equal(detail.status, 200);
  assert.equal(detail.body.occurrences, 2);
  assert.equal((detail.body.evidence as { list_version: string }).list_version.length > 0, true);
  const history = (detail.body.history as { kind: string; token_id: number; token_label: string | null }[]).map((e) => [
    e.kind,
    e.token_id,
    e.token_label,
  ]);
  assert.deepEqual(history, [
    first.status === 200 ? ['decision', aliceTokenId, null] : ['decision', bobTokenId, 'bob'],
    ['comment', bobTokenId, 'bob'],
  ]);

  const stale = await api(alice, 'POST', '/account/alerts/decisions', {
    decisions: [{ id: alert.id, status: 'closed', version: 1 }],
  });
  assert.equal(stale.status, 409);
  const missing = await api(alice, 'POST', '/account/alerts/decisions', {
    decisions: [
      { id: alert.id, status: 'closed', version: 2 },
      { id: 99999999, status: 'closed', version: 1 },
    ],
  });
  assert.equal(missing.status, 404);
  assert.equal((await api(alice, 'GET', `/account/alerts/${alert.id}`)).body.version, 2, 'nothing decided');
  const bulk = await api(alice, 'POST', '/account/alerts/decisions', {
    decisions: [{ id: alert.id, status: 'closed', version: 2 }],
  });
  assert.equal(bulk.status, 200);
  assert.deepEqual(
    (bulk.body.alerts as Alert[]).map((a) => [a.id, a.status, a.version]),
    [[alert.id, 'closed', 3]],
  );

  const counts = await api(json(TEST_ADMIN_KEY), 'GET', '/admin/alerts/counts');
  assert.equal(counts.status, 200);
  assert.deepEqual(counts.body, [{ customer_id: customerId, status: 'closed', count: 1 }]);
  assert.equal((await api(alice, 'GET', '/admin/alerts/counts')).status, 401);
});

test('bad input: unknown cursor, limits, a screen-only token', async () => {
  assert.equal((await api(alice, 'GET', '/account/alerts?cursor=bm90LWEtY3Vyc29y')).status, 422);
  assert.equal((await api(alice, 'GET', '/account/alerts?limit=501')).status, 422);
  assert.equal((await api(alice, 'GET', '/account/alerts?status=maybe')).status, 422);
  const tooMany = await api(alice, 'POST', '/account/alerts/decisions', {
    decisions: Array.from({ length: 1001 }, (_, i) => ({ id: i + 1, status: 'closed', version: 1 })),
  });
  assert.equal(tooMany.status, 422);
  const screenOnly = await api(alice, 'POST', '/account/tokens', { name: 'server', scopes: ['screen'] });
  assert.equal((await api(json(String(screenOnly.body.token)), 'GET', '/account/alerts')).status, 403);
  assert.equal((await fetch(`${svc.url}/api/v1/account/alerts`)).status, 401);
});

test('the OpenAPI document builds with the alert operations', async () => {
  const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.deepEqual(
    Object.keys(doc.paths)
      .filter((p) => p.includes('/alerts'))
      .sort(),
    [
      '/api/v1/account/alerts',
      '/api/v1/account/alerts/decisions',
      '/api/v1/account/alerts/{alert_id}',
      '/api/v1/account/alerts/{alert_id}/comments',
      '/api/v1/account/alerts/{alert_id}/decision',
      '/api/v1/admin/alerts/counts',
    ],
  );
});
