import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCustomerToken, startTestService, type TestService } from '../../harness/service.js';

/**
 * A customer's book over HTTP on the real lists (issue #39): PUT screens a new or changed subject
 * for one credit and opens its alerts with `subject`, an unchanged PUT costs nothing, the book is
 * the customer's own, a deleted subject is gone, and SUBJECTS_PER_CUSTOMER (3 here) bounds it.
 */
let svc: TestService;
let alice: Record<string, string>;
let other: Record<string, string>;
let broke: Record<string, string>;

const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

before(async () => {
  svc = await startTestService({ SUBJECTS_PER_CUSTOMER: '3' });
  alice = json((await createCustomerToken(svc.url, 100, 'book A')).token);
  other = json((await createCustomerToken(svc.url, 100, 'book B')).token);
  broke = json((await createCustomerToken(svc.url, 0, 'book C')).token);
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
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const used = async (headers: Record<string, string>) =>
  (await api(headers, 'GET', '/account')).body.quota.used as number;
const ids = (body: { subjects: { external_id: string }[] }) => body.subjects.map((s) => s.external_id);

// UN CDi.001 ERIC BADEGE, born 1971, Congolese.
const LISTED = { type: 'person', names: ['Eric Badege'], birth_date: '1971', countries: ['CD'] };

test('a listed subject among unlisted ones opens exactly its alert, with the subject', async () => {
  const put = await api(alice, 'PUT', '/account/subjects/A-1', LISTED);
  assert.equal(put.status, 201, JSON.stringify(put.body));
  const { subject, ...rest } = put.body;
  assert.deepEqual(
    { ...subject, created_at: '', updated_at: '', screened_at: typeof subject.screened_at },
    {
      external_id: 'A-1',
      type: 'person',
      names: ['Eric Badege'],
      birth_date: '1971',
      countries: ['CD'],
      identifiers: [],
      values: { crypto: [], email: [], website: [] },
      created_at: '',
      updated_at: '',
      screened_at: 'string',
      open_alerts: 2,
    },
  );
  assert.equal(rest.created, true);
  assert.equal(rest.screened, true);
  assert.equal(rest.alerts.length, 2);

  for (const [id, names] of [
    ['B-2', ['Wilhelmina Featherstonehaugh']],
    ['C-3', ['Cornelius Quigglesworth']],
  ] as const) {
    const r = await api(alice, 'PUT', `/account/subjects/${id}`, { type: 'person', names, birth_date: '1984-02-29' });
    assert.equal(r.status, 201);
    assert.deepEqual([r.body.screened, r.body.alerts, r.body.subject.open_alerts], [true, [], 0]);
  }
  assert.equal(await used(alice), 3);

  // ERIC BADEGE is on the UN list and OFAC's SDN list: one alert each, both the subject's.
  const alerts = (await api(alice, 'GET', '/account/alerts?limit=100')).body.items as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  alerts.sort((x, y) => x.list.localeCompare(y.list));
  assert.deepEqual(alerts.map((a) => a.id).sort(), [...rest.alerts].sort());
  assert.deepEqual(
    alerts.map((a) => [a.list, a.subject, a.screened_value, a.status]),
    ['ofac_sdn', 'un_sc'].map((list) => [
      list,
      { external_id: 'A-1', type: 'person', names: ['Eric Badege'] },
      'Eric Badege',
      'open',
    ]),
  );
  assert.equal(alerts[1].listed_party, 'un_sc:CDi.001');

  // The same fields again: neither screened nor charged, and the alert is not seen again.
  const again = await api(alice, 'PUT', '/account/subjects/A-1', LISTED);
  assert.equal(again.status, 200);
  assert.deepEqual([again.body.created, again.body.screened, again.body.alerts], [false, false, []]);
  assert.equal(again.body.subject.screened_at, subject.screened_at);
  assert.equal(await used(alice), 3);
  const after = (await api(alice, 'GET', '/account/alerts?limit=100')).body.items;
  assert.deepEqual(
    after.map((a: { id: number; occurrences: number }) => [a.id, a.occurrences]).sort(),
    alerts.map((a) => [a.id, 1]).sort(),
  );

  // The book holds 3: a fourth is refused, and costs nothing; a change of one held still passes.
  const full = await api(alice, 'PUT', '/account/subjects/D-4', { names: ['Dora Explorer'] });
  assert.equal(full.status, 409);
  assert.match(full.body.detail, /at most 3 subjects/);
  assert.equal(await used(alice), 3);
  const changed = await api(alice, 'PUT', '/account/subjects/C-3', { names: ['Cornelius Quigglesworth', 'C. Q.'] });
  assert.deepEqual([changed.status, changed.body.created, changed.body.screened], [200, false, true]);
  assert.equal(await used(alice), 4);

  assert.deepEqual(ids((await api(alice, 'GET', '/account/subjects')).body as never), ['C-3', 'B-2', 'A-1']);
  assert.deepEqual(ids((await api(alice, 'GET', '/account/subjects?q=BADEGE')).body as never), ['A-1']);
  assert.deepEqual(ids((await api(alice, 'GET', '/account/subjects?has_alerts=true')).body as never), ['A-1']);
  assert.deepEqual(ids((await api(alice, 'GET', '/account/subjects?country=cd&type=person')).body as never), ['A-1']);
  const page = (await api(alice, 'GET', '/account/subjects?limit=2')).body;
  assert.deepEqual(ids(page as never), ['C-3', 'B-2']);
  const rest2 = (await api(alice, 'GET', `/account/subjects?limit=2&cursor=${page.next_cursor}`)).body;
  assert.deepEqual([ids(rest2 as never), rest2.next_cursor], [['A-1'], null]);
  assert.equal((await api(alice, 'GET', '/account/subjects?cursor=bm9wZQ')).status, 422);
  assert.equal((await api(alice, 'GET', '/account/subjects?country=Atlantis')).status, 422);

  // Another customer sees none of it.
  assert.equal((await api(other, 'GET', '/account/subjects/A-1')).status, 404);
  assert.deepEqual((await api(other, 'GET', '/account/subjects')).body, { subjects: [], next_cursor: null });
  assert.deepEqual((await api(other, 'GET', '/account/alerts')).body, { items: [], next_cursor: null });
  assert.equal((await api(other, 'DELETE', '/account/subjects/A-1')).status, 404);

  // Deleted: gone from the book; its alert stays.
  const gone = await api(alice, 'DELETE', '/account/subjects/A-1');
  assert.deepEqual([gone.status, gone.body.external_id, gone.body.open_alerts], [200, 'A-1', 2]);
  assert.equal((await api(alice, 'GET', '/account/subjects/A-1')).status, 404);
  assert.equal((await api(alice, 'DELETE', '/account/subjects/A-1')).status, 404);
  assert.deepEqual(ids((await api(alice, 'GET', '/account/subjects')).body as never), ['C-3', 'B-2']);
  assert.equal((await api(alice, 'GET', '/account/alerts')).body.items.length, 2);
});

test('no credit: 402, nothing stored as screened; bad fields: 422 with the field path', async () => {
  const r = await api(broke, 'PUT', '/account/subjects/X', { names: ['Eric Badege'] });
  assert.equal(r.status, 402);
  assert.deepEqual((await api(broke, 'GET', '/account/subjects')).body, { subjects: [], next_cursor: null });

  const bad = await api(other, 'PUT', '/account/subjects/Y', { names: ['Ok Name'], countries: ['Atlantis'] });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.detail[0].loc, ['body', 'countries', 0]);
  const type = await api(other, 'PUT', '/account/subjects/Y', { names: ['Ok Name'], type: 'robot' });
  assert.deepEqual([type.status, type.body.detail[0].loc], [422, ['body', 'type']]);
  assert.equal(await used(other), 0);
});

test('name_threshold: shown by GET /account, set by PATCH within 0.5-1', async () => {
  assert.equal((await api(other, 'GET', '/account')).body.name_threshold, 0.7);
  assert.equal((await api(other, 'PATCH', '/account', { name_threshold: 0.4 })).status, 422);
  const set = await api(other, 'PATCH', '/account', { name_threshold: 0.85 });
  assert.deepEqual([set.status, set.body.name_threshold, set.body.rescreen_job], [200, 0.85, null]);
  assert.equal((await api(other, 'GET', '/account')).body.name_threshold, 0.85);
});

test('the subjects paths are in the OpenAPI document', async () => {
  const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, object> };
  assert.deepEqual(Object.keys(doc.paths['/api/v1/account/subjects/{external_id}']).sort(), ['delete', 'get', 'put']);
  assert.deepEqual(Object.keys(doc.paths['/api/v1/account/subjects']), ['get']);
  const put = doc.paths['/api/v1/account/subjects/{external_id}'] as { put: { responses: Record<string, unknown> } };
  assert.ok(put.put.responses['201'] && put.put.responses['200'] && put.put.responses['409']);
});
