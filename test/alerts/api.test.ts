import pino from 'pino';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { AlertStore } from '../../src/alerts/store.js';

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
      '/api/v1/account/alerts/export',
      '/api/v1/account/alerts/{alert_id}',
      '/api/v1/account/alerts/{alert_id}/comments',
      '/api/v1/account/alerts/{alert_id}/decision',
      '/api/v1/admin/alerts/counts',
    ],
  );
});

test('the review list over HTTP: score filter and sort, cursors of one order, exports with history', async () => {
  const carol = await createCustomerToken(svc.url, 100, 'alerts C');
  const headers = json(carol.token);
  const T0 = Date.parse('2026-11-02T09:00:00.000Z');
  const formula = '=HYPERLINK("http://evil.example","click")';
  const row = (screened: string, s: number, score: number, list = 'ofac_sdn') => ({
    time: T0 + s * 1000,
    customer_id: carol.customerId,
    payer: '',
    request_id: `req-${s}`,
    endpoint: 'screen.name',
    screened_value: screened,
    matched_value: `LISTED, ${screened}`,
    list,
    list_type: 'sanctions',
    match: 'fuzzy',
    list_version: 'v7',
    as_of: null,
    evidence: { value: `LISTED, ${screened}`, metadata: { id: `party-${s}`, score } },
  });
  // Recorded as the alerting sink records audited matches, with values a screening could not give.
  await new AlertStore(svc.service.db, {
    decisions: svc.service.audit.alertDecisions,
    log: pino({ level: 'silent' }),
  }).record([
    row('Mary Major', 1, 0.75),
    row(formula, 2, 0.95, 'un_sc'),
    row('Marie Majeur', 3, 0.95),
    row('Mario Maggiore', 4, 0.82),
  ]);
  const list = async (query: string) => {
    const res = await api(headers, 'GET', `/account/alerts?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { items: Alert[]; next_cursor: string | null };
  };
  const all = (await list('limit=10')).items;
  const id = (screened: string) => all.find((a) => a.screened_value === screened)!.id;
  assert.deepEqual(
    all.map((a) => a.id),
    ['Mario Maggiore', 'Marie Majeur', formula, 'Mary Major'].map(id),
  );
  assert.deepEqual(
    (await list('sort=score&limit=10')).items.map((a) => a.id),
    ['Marie Majeur', formula, 'Mario Maggiore', 'Mary Major'].map(id),
  );
  assert.deepEqual(
    (await list('min_score=0.8&max_score=0.95&sort=score&order=asc')).items.map((a) => a.id),
    ['Mario Maggiore', formula, 'Marie Majeur'].map(id),
  );
  assert.deepEqual(
    (await list('text=mari&list=ofac_sdn')).items.map((a) => a.id),
    ['Mario Maggiore', 'Marie Majeur'].map(id),
  );

  const first = await list('sort=score&limit=2');
  const second = await list(`sort=score&limit=2&cursor=${first.next_cursor}`);
  assert.deepEqual(
    [...first.items, ...second.items].map((a) => a.id),
    ['Marie Majeur', formula, 'Mario Maggiore', 'Mary Major'].map(id),
  );
  assert.equal(second.next_cursor, null);
  const wrongSort = await api(headers, 'GET', `/account/alerts?limit=2&cursor=${first.next_cursor}`);
  assert.equal(wrongSort.status, 422);
  assert.match(
    JSON.stringify(wrongSort.body),
    /this cursor was issued for sort=score and order=desc: ask with the same sort and order/,
  );
  const inverted = await api(headers, 'GET', '/account/alerts?min_score=0.9&max_score=0.8');
  assert.equal(inverted.status, 422);
  assert.match(JSON.stringify(inverted.body), /min_score must not be above max_score/);
  assert.equal((await api(headers, 'GET', '/account/alerts?min_score=1.5')).status, 422);
  assert.equal((await api(headers, 'GET', '/account/alerts?sort=name')).status, 422);

  const decided = await api(headers, 'POST', `/account/alerts/${id(formula)}/decision`, {
    status: 'false_positive',
    comment: 'a test value, not a person',
    version: 1,
  });
  assert.equal(decided.status, 200);

  const csv = await fetch(`${svc.url}/api/v1/account/alerts/export?format=csv&min_score=0.9`, { headers });
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="alerts.csv"');
  const decidedAt = (decided.body as { decided_at: string }).decided_at;
  const historyAt = (decided.body as { history: { at: string }[] }).history[0].at;
  assert.equal(
    await csv.text(),
    'id,status,version,screened_value,matched_value,listed_party,list,list_type,match,score,occurrences,' +
      'first_seen,last_seen,decided_at,list_version,request_id,subject_external_id,history\r\n' +
      `${id(formula)},false_positive,2,"'=HYPERLINK(""http://evil.example"",""click"")",` +
      `"LISTED, =HYPERLINK(""http://evil.example"",""click"")",party-2,un_sc,sanctions,fuzzy,0.95,1,` +
      `2026-11-02T09:00:02.000Z,2026-11-02T09:00:02.000Z,${decidedAt},v7,req-2,,` +
      `"${historyAt} decision false_positive on version 1 by an unnamed token (token ${carol.tokenId}): a test value, not a person"\r\n` +
      `${id('Marie Majeur')},open,1,Marie Majeur,"LISTED, Marie Majeur",party-3,ofac_sdn,sanctions,fuzzy,0.95,1,` +
      '2026-11-02T09:00:03.000Z,2026-11-02T09:00:03.000Z,,v7,req-3,,\r\n',
  );

  const exported = await fetch(`${svc.url}/api/v1/account/alerts/export?format=json&status=false_positive`, {
    headers,
  });
  assert.equal(exported.status, 200);
  assert.equal(exported.headers.get('content-type'), 'application/json; charset=utf-8');
  const alerts = (await exported.json()) as (Alert & { history: unknown[]; evidence: { list_version: string } })[];
  assert.deepEqual(
    alerts.map((a) => [a.id, a.screened_value, a.status, a.evidence.list_version]),
    [[id(formula), formula, 'false_positive', 'v7']],
  );
  assert.deepEqual(alerts[0].history, [
    {
      kind: 'decision',
      status: 'false_positive',
      comment: 'a test value, not a person',
      on_version: 1,
      token_id: carol.tokenId,
      token_label: null,
      at: historyAt,
      changes: null,
    },
  ]);

  const page = await fetch(`${svc.url}/api/v1/account/alerts/export?format=json&limit=2&after_id=${id(formula)}`, {
    headers,
  });
  assert.deepEqual(
    ((await page.json()) as Alert[]).map((a) => a.id),
    ['Marie Majeur', 'Mario Maggiore'].map(id),
  );
  const theirs = await fetch(`${svc.url}/api/v1/account/alerts/export?format=json`, { headers: other });
  assert.deepEqual(await theirs.json(), []);
  const theirCsv = await fetch(`${svc.url}/api/v1/account/alerts/export`, { headers: other });
  assert.equal((await theirCsv.text()).split('\r\n').length, 2, 'a header line only');
  assert.equal((await api(headers, 'GET', '/account/alerts/export?limit=100001')).status, 422);
  assert.equal((await api(headers, 'GET', '/account/alerts/export?format=xlsx')).status, 422);
});
