import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { SubjectStore } from '../../src/subjects/store.js';
import type { SubjectRecord } from '../../src/subjects/model.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/**
 * Issue #39, watching the books: a new version of an operator list is screened against every
 * customer's subjects; a listed name opens its subject's alert and one signed `subject.alert`
 * event, a listed crypto address matches a subject's value, a deleted subject is never alerted,
 * another customer's book is untouched, and a delisting marks the alert `delisted`.
 */

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const LIST = 'watch_ops';
const LISTED_NAME = 'Quendolyn Marisol Vantablack';
const DELETED_NAME = 'Ottoline Brisbane Karamazova';
const ADDRESS = '0x7f367cc41522ce07553e823bf3be79a889debe1b';

let svc: TestService;
let receiver: Receiver;
let alice: { customerId: number; token: string };
let bob: { customerId: number; token: string };

function subject(external_id: string, names: string[], crypto: string[] = []): SubjectRecord {
  return {
    external_id,
    type: 'person',
    names,
    birth_date: null,
    countries: [],
    identifiers: [],
    values: { crypto, email: [], website: [] },
  };
}

/** An admin list call, followed to its job's end. */
async function adminList(path: string, body: unknown) {
  const res = await fetch(`${svc.url}/api/v1/admin/lists${path}`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify(body),
  });
  const r = await settled(svc.url, { status: res.status, headers: res.headers, body: await res.json() }, ADMIN);
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

const upload = (rows: { entity_type: string; value: string }[]) => adminList(`/${LIST}/upload`, rows);

type Alert = { id: number; status: string; screened_value: string; subject: { external_id: string } | null };
async function alertsOf(token: string): Promise<Alert[]> {
  const res = await fetch(`${svc.url}/api/v1/account/alerts?limit=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { items: Alert[] }).items;
}

async function webhook(token: string, path: string): Promise<void> {
  const res = await fetch(`${svc.url}/api/v1/account/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url(path) }),
  });
  assert.equal(res.status, 200);
  receiver.secrets.set(path, ((await res.json()) as { secret: string }).secret);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  alice = await createCustomerToken(svc.url, 1000, 'Alice');
  bob = await createCustomerToken(svc.url, 1000, 'Bob');
  await webhook(alice.token, '/alice');
  await webhook(bob.token, '/bob');
  await adminList('', {
    slug: LIST,
    display_name: 'Watch operator list',
    list_type: 'sanctions',
    entity_types: ['name', 'crypto_address'],
  });
  // The first version is the baseline: it lists nothing new.
  await upload([{ entity_type: 'name', value: 'Baseline Person Zebediah' }]);
});

after(async () => {
  await svc?.close();
  await receiver?.close();
});

test('a new operator list version opens the alerts of the subjects it names, with one signed webhook each', async () => {
  const store = new SubjectStore(svc.service.db, { maxPerCustomer: 1000 });
  await store.upsertMany(alice.customerId, [
    subject('A-1', [LISTED_NAME]),
    subject('A-2', ['Harold Ordinary Person']),
    subject('A-3', ['Wallet Owner Gertrude'], [ADDRESS]),
    subject('A-4', [DELETED_NAME]),
  ]);
  await store.upsertMany(bob.customerId, [subject('B-1', ['Someone Else Entirely'])]);
  assert.equal(await store.delete(alice.customerId, 'A-4'), true);

  await upload([
    { entity_type: 'name', value: 'Baseline Person Zebediah' },
    { entity_type: 'name', value: LISTED_NAME },
    { entity_type: 'name', value: DELETED_NAME },
    { entity_type: 'crypto_address', value: ADDRESS },
  ]);

  // The upload's job is done once the change went to every sink, the books included.
  const alerts = await alertsOf(alice.token);
  assert.deepEqual(alerts.map((a) => [a.subject?.external_id, a.screened_value, a.status]).sort(), [
    ['A-1', LISTED_NAME, 'open'],
    ['A-3', ADDRESS, 'open'],
  ]);
  assert.deepEqual(await alertsOf(bob.token), []);

  const events = await until('two subject.alert deliveries', async () => {
    const got = receiver.received.filter((r) => r.body.type === 'subject.alert');
    return got.length >= 2 ? got : undefined;
  });
  // Nothing more arrives: one event per alert.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(receiver.received.filter((r) => r.body.type === 'subject.alert').length, 2);
  for (const e of events) {
    assert.equal(e.path, '/alice');
    const secret = receiver.secrets.get('/alice')!;
    assert.ok(verifyWebhookSignature(e.raw, e.headers['x-service-signature'] as string, secret));
  }
  const subjects = events
    .map((e) => e.body.subject as { external_id: string; alert_id: number; names: string[] })
    .sort((a, b) => a.external_id.localeCompare(b.external_id));
  const byId = new Map(alerts.map((a) => [a.subject!.external_id, a.id]));
  assert.deepEqual(subjects, [
    {
      external_id: 'A-1',
      type: 'person',
      names: [LISTED_NAME],
      alert_id: byId.get('A-1'),
      screened_value: LISTED_NAME,
      score: 1,
    },
    {
      external_id: 'A-3',
      type: 'person',
      names: ['Wallet Owner Gertrude'],
      alert_id: byId.get('A-3'),
      screened_value: ADDRESS,
      score: 1,
    },
  ]);
  assert.equal((events[0].body.listing as { list: string }).list, LIST);

  const runs = await svc.service.db.query<{ state: string; alerts_opened: string }>(
    'SELECT state, alerts_opened FROM book_runs WHERE list = $1 ORDER BY started_at',
    [LIST],
  );
  // The created list was empty: the baseline's name was a change too, naming nobody.
  assert.deepEqual(
    runs.rows.map((r) => [r.state, Number(r.alerts_opened)]),
    [
      ['done', 0],
      ['done', 2],
    ],
  );
  const versions = await svc.service.db.query<{ customer_id: number }>(
    'SELECT customer_id FROM book_versions WHERE list = $1 ORDER BY customer_id',
    [LIST],
  );
  assert.ok(versions.rows.some((r) => r.customer_id === alice.customerId));
  assert.ok(versions.rows.some((r) => r.customer_id === bob.customerId));

  // The name leaves the list: its alert is delisted, for a person to close.
  await upload([
    { entity_type: 'name', value: 'Baseline Person Zebediah' },
    { entity_type: 'name', value: DELETED_NAME },
    { entity_type: 'crypto_address', value: ADDRESS },
  ]);
  const after = await alertsOf(alice.token);
  const delisted = after.find((a) => a.subject?.external_id === 'A-1')!;
  assert.equal(delisted.status, 'delisted');
  assert.equal(after.find((a) => a.subject?.external_id === 'A-3')!.status, 'open');
  const headers = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' };
  const detail = (await (await fetch(`${svc.url}/api/v1/account/alerts/${delisted.id}`, { headers })).json()) as {
    version: number;
    history: { kind: string; status: string; token_label: string }[];
  };
  assert.deepEqual(
    detail.history.map((h) => [h.kind, h.status, h.token_label]),
    [['delisted', 'delisted', 'system']],
  );
  const decide = (status: string) =>
    fetch(`${svc.url}/api/v1/account/alerts/${delisted.id}/decision`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ status, version: detail.version, comment: 'checked' }),
    });
  assert.equal((await decide('escalated')).status, 409);
  assert.equal((await decide('closed')).status, 200);
});
