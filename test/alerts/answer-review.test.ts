import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';

/**
 * `metadata.review` in a customer's screening answers: absent until the match's alert is decided,
 * then the decision at once in the next answer of this node (single routes and batch lines alike),
 * and what the trigger of migration 077 announces when the alert changes by any other way.
 */
let svc: TestService;
let alice: Record<string, string>;
let other: Record<string, string>;

const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

type Match = { list: string; metadata: { review?: unknown } };
type Answer = { matches: Match[] };
type Alert = { id: number; version: number; status: string; screened_value: string; decided_at: string | null };

before(async () => {
  svc = await startTestService();
  alice = json((await createCustomerToken(svc.url, 100, 'reviews A')).token);
  other = json((await createCustomerToken(svc.url, 100, 'reviews B')).token);
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
  assert.equal(res.status, 200, `${method} ${path}`);
  return res;
}

const screen = async (headers: Record<string, string>, path: string) =>
  (await (await api(headers, 'GET', path)).json()) as Answer;

async function batchLine(headers: Record<string, string>, items: unknown[], lists: string): Promise<Answer> {
  const text = await (await api(headers, 'POST', '/screen/batch', { items, lists })).text();
  return JSON.parse(text.trim().split('\n')[0]) as Answer;
}

const reviews = (a: Answer) => a.matches.map((m) => m.metadata.review);

/** The alerts are recorded after the answer (fire and forget): wait until `ready` holds. */
async function alertsWhen(ready: (items: Alert[]) => boolean): Promise<Alert[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const body = (await (await api(alice, 'GET', '/account/alerts?limit=500')).json()) as { items: Alert[] };
    if (ready(body.items)) return body.items;
    assert.ok(Date.now() < deadline, `alerts not as expected within 30 s: ${JSON.stringify(body.items)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a decided alert is named in the next answer of its customer only; single route and batch line', async () => {
  const crypto = `/screen/crypto/${XBT}?lists=ofac_crypto`;
  assert.deepEqual(reviews(await screen(alice, crypto)), [undefined], 'no alert yet');
  const [alert] = await alertsWhen((items) => items.length === 1);
  assert.deepEqual(reviews(await screen(alice, crypto)), [undefined], 'an open alert nobody decided');

  const decided = (await (
    await api(alice, 'POST', `/account/alerts/${alert.id}/decision`, {
      status: 'false_positive',
      comment: 'Our own cold wallet, reviewed by compliance',
      version: alert.version,
    })
  ).json()) as Alert;
  assert.equal(typeof decided.decided_at, 'string');
  const review = { alert_id: alert.id, status: 'false_positive', decided_at: decided.decided_at };

  assert.deepEqual(reviews(await screen(alice, crypto)), [review], 'the very next answer');
  assert.deepEqual(reviews(await batchLine(alice, [{ type: 'crypto', value: XBT }], 'ofac_crypto')), [review]);
  assert.deepEqual(reviews(await screen(other, crypto)), [undefined], 'another customer screening the same value');
  assert.deepEqual(reviews(await screen(alice, `/screen/crypto/${XBT}?lists=ofac_sdn`)), [undefined], 'another list');
});

test('a name match: its party is the alert; a change made outside the API reaches the answers by NOTIFY', async () => {
  const name = `/screen/name?name=${encodeURIComponent('Kim Jong Un')}&lists=ofac_sdn`;
  assert.deepEqual(reviews(await screen(alice, name)), [undefined]);
  const isKim = (a: Alert) => a.screened_value === 'Kim Jong Un';
  const alert = (await alertsWhen((items) => items.some(isKim))).find(isKim)!;
  const decided = (await (
    await api(alice, 'POST', `/account/alerts/${alert.id}/decision`, { status: 'escalated', version: alert.version })
  ).json()) as Alert;
  const escalated = { alert_id: alert.id, status: 'escalated', decided_at: decided.decided_at };
  assert.deepEqual(reviews(await screen(alice, name)), [escalated]);
  assert.deepEqual(reviews(await batchLine(alice, [{ type: 'name', value: 'Kim Jong Un' }], 'ofac_sdn')), [escalated]);

  // As the alert store reopens an alert whose party changed: a statement of its own, not a decision of this API.
  await svc.service.db.query(`UPDATE alerts SET status = 'open', version = version + 1 WHERE id = $1`, [alert.id]);
  const reopened = { ...escalated, status: 'open' };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = reviews(await screen(alice, name));
    if (JSON.stringify(now) === JSON.stringify([reopened])) break;
    assert.ok(Date.now() < deadline, `the reopened alert not in the answers within 30 s: ${JSON.stringify(now)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});
