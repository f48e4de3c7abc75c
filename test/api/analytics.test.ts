import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import type { AuditMatchRow, UsageRow } from '../../src/audit/rows.js';

/**
 * The dashboard's reads over HTTP, against rows written through the service's own ClickHouse
 * writers: analytics per day, endpoint, list and value (a customer's and the operator's), the
 * audit trail's keyset pages, filters, CSV and match detail, and x402 payments.
 */
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
let svc: TestService;
let a: { customerId: number; token: string };
let b: { customerId: number; token: string };

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const at = (day: string, ms = 0) => Date.parse(`${day}T10:00:00Z`) + ms;

function usage(
  customer: number,
  time: number,
  endpoint: string,
  credits = 1,
  method: 'quota' | 'x402' = 'quota',
): UsageRow {
  return {
    time,
    customer_id: customer,
    payer: '',
    request_id: `u${time}-${endpoint}`,
    endpoint,
    status: 200,
    credits,
    method,
    amount: '0',
    tx_hash: '',
    network: '',
  };
}

function match(
  customer: number,
  time: number,
  request: string,
  endpoint: string,
  value: string,
  list: string,
  screened = value,
): AuditMatchRow {
  return {
    time,
    customer_id: customer,
    payer: '',
    request_id: request,
    endpoint,
    screened_value: screened,
    matched_value: value,
    list,
    list_type: 'sanctions',
    match: 'exact',
    list_version: '',
    as_of: null,
    evidence: {},
  };
}

before(async () => {
  svc = await startTestService({ AUDIT_STRICT: 'true' });
  a = await createCustomerToken(svc.url, 1000, 'Analytics A');
  b = await createCustomerToken(svc.url, 1000, 'Analytics B');
  const A = a.customerId;
  await svc.service.audit.usage.write([
    usage(A, at('2025-03-10', 1), 'screen.crypto'),
    usage(A, at('2025-03-10', 2), 'screen.crypto', 1, 'x402'),
    usage(A, at('2025-03-10', 3), 'screen.crypto'),
    usage(A, at('2025-03-10', 4), 'screen.email'),
    usage(A, at('2025-03-12', 5), 'screen.batch', 10),
    usage(b.customerId, at('2025-03-10', 6), 'screen.crypto'),
    usage(b.customerId, at('2025-03-11', 7), 'screen.crypto'),
  ]);
  await svc.service.audit.matches.write([
    match(A, at('2025-03-10', 1), 'r1', 'screen.crypto', '0xaaa', 'ofac_sdn'),
    match(A, at('2025-03-10', 2), 'r2', 'screen.crypto', '0xaaa', 'ofac_sdn'),
    match(A, at('2025-03-10', 3), 'r3', 'screen.crypto', '0xaaa', 'ofac_crypto'),
    match(A, at('2025-03-12', 5), 'r5', 'screen.batch', 'evil.com', 'cryptoscamdb', 'www.evil.com'),
    match(A, at('2025-03-12', 5), 'r5', 'screen.batch', 'evil.com', 'cryptoscamdb', 'shop.evil.com'),
    match(A, at('2025-03-12', 5), 'r5', 'screen.batch', '0xbbb', 'ofac_sdn'),
    match(b.customerId, at('2025-03-10', 6), 'rb', 'screen.crypto', '0xaaa', 'ofac_sdn'),
  ]);
  // Strict rows are durable in the audit log first; the assertions read ClickHouse.
  await svc.service.audit.usage.flush();
});
after(async () => {
  await svc?.close();
});

async function get<T>(path: string, token: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${svc.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    body: (res.headers.get('content-type')?.startsWith('text/csv') ? await res.text() : await res.json()) as T,
  };
}

const RANGE = 'from=2025-03-10&to=2025-03-12';

describe('analytics', () => {
  test('per day: every day of the range, requests and credits from usage, matches from the audit trail', async () => {
    const { body } = await get(`/account/analytics/daily?${RANGE}`, a.token);
    assert.deepEqual(body, [
      { day: '2025-03-10', requests: 4, credits: 4, paid_requests: 1, matches: 3 },
      { day: '2025-03-11', requests: 0, credits: 0, paid_requests: 0, matches: 0 },
      { day: '2025-03-12', requests: 1, credits: 10, paid_requests: 0, matches: 3 },
    ]);
    const operatorView = await get(`/admin/analytics/daily?${RANGE}&customer_id=${a.customerId}`, TEST_ADMIN_KEY);
    assert.deepEqual(operatorView.body, body, 'the operator sees one customer alike');
    const all = (
      await get<{ day: string; requests: number; matches: number }[]>(`/admin/analytics/daily?${RANGE}`, TEST_ADMIN_KEY)
    ).body;
    assert.deepEqual(
      all.map((d) => [d.requests, d.matches]),
      [
        [5, 4],
        [1, 0],
        [1, 3],
      ],
      'and every customer together',
    );
  });

  test('per endpoint, per list, top values, per customer', async () => {
    assert.deepEqual((await get(`/account/analytics/endpoints?${RANGE}`, a.token)).body, [
      { endpoint: 'screen.crypto', requests: 3, credits: 3, paid_requests: 1, matches: 3 },
      { endpoint: 'screen.batch', requests: 1, credits: 10, paid_requests: 0, matches: 3 },
      { endpoint: 'screen.email', requests: 1, credits: 1, paid_requests: 0, matches: 0 },
    ]);
    const lists = (
      await get<{ list: string; list_name: string; list_type: string; matches: number; last_match_at: string }[]>(
        `/account/analytics/lists?${RANGE}`,
        a.token,
      )
    ).body;
    assert.deepEqual(
      lists.map((l) => [l.list, l.matches, l.last_match_at]),
      [
        ['ofac_sdn', 3, '2025-03-12T10:00:00.005Z'],
        ['cryptoscamdb', 2, '2025-03-12T10:00:00.005Z'],
        ['ofac_crypto', 1, '2025-03-10T10:00:00.003Z'],
      ],
    );
    assert.equal(lists[0].list_name, 'OFAC Specially Designated Nationals (SDN) List');
    assert.deepEqual(
      (
        await get<{ matched_value: string; list: string; matches: number }[]>(
          `/account/analytics/top-values?${RANGE}`,
          a.token,
        )
      ).body.map((v) => [v.matched_value, v.list, v.matches]),
      [
        ['evil.com', 'cryptoscamdb', 2],
        ['0xaaa', 'ofac_sdn', 2],
        ['0xaaa', 'ofac_crypto', 1],
        ['0xbbb', 'ofac_sdn', 1],
      ],
    );
    assert.deepEqual(
      (
        await get<{ matched_value: string; last_match_at: string }[]>(
          `/account/analytics/top-values?${RANGE}&limit=2`,
          a.token,
        )
      ).body.map((v) => [v.matched_value, v.last_match_at]),
      [
        ['evil.com', '2025-03-12T10:00:00.005Z'],
        ['0xaaa', '2025-03-10T10:00:00.002Z'],
      ],
      'the last match of a value absent from the range’s last day comes from the whole range',
    );
    assert.deepEqual((await get(`/admin/analytics/customers?${RANGE}`, TEST_ADMIN_KEY)).body, [
      { customer_id: a.customerId, name: 'Analytics A', requests: 5, credits: 14, paid_requests: 1 },
      { customer_id: b.customerId, name: 'Analytics B', requests: 2, credits: 2, paid_requests: 0 },
    ]);
    assert.deepEqual((await get(`/account/analytics/daily?from=2025-03-11&to=2025-03-11`, b.token)).body, [
      { day: '2025-03-11', requests: 1, credits: 1, paid_requests: 0, matches: 0 },
    ]);
  });

  test('ranges: at most 366 days, `from` not after `to`', async () => {
    const long = await get<{ detail: { loc: string[]; msg: string }[] }>(
      '/account/analytics/daily?from=2024-01-01&to=2025-03-12',
      a.token,
    );
    assert.equal(long.status, 422);
    assert.deepEqual(long.body.detail[0].loc, ['query', 'from']);
    assert.equal(long.body.detail[0].msg, 'Value error, the range is longer than 366 days');
    const reversed = await get<{ detail: { msg: string }[] }>(
      '/account/analytics/lists?from=2025-03-12&to=2025-03-10',
      a.token,
    );
    assert.deepEqual(
      [reversed.status, reversed.body.detail[0].msg],
      [422, 'Value error, `from` must not be after `to`'],
    );
  });
});

describe('audit trail', () => {
  test('keyset pages: every row once, newest first, unshifted by newer rows', async () => {
    const { customerId, token } = await createCustomerToken(svc.url, 10, 'Pager');
    const rows = Array.from({ length: 7 }, (_, i) =>
      match(customerId, at('2025-04-01', i < 4 ? 0 : i), `p${i}`, 'screen.crypto', `0x${i}`, 'ofac_sdn'),
    );
    await svc.service.audit.matches.write(rows);
    const range = 'from=2025-04-01&to=2025-04-01';
    const whole = (
      await get<{ items: { request_id: string }[] }>(`/account/audit?${range}&limit=100`, token)
    ).body.items.map((i) => i.request_id);
    assert.deepEqual(whole, ['p6', 'p5', 'p4', 'p0', 'p1', 'p2', 'p3']);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = (
        await get<{ items: { request_id: string }[]; next_cursor: string | null; total: number }>(
          `/account/audit?${range}&limit=3${q}`,
          token,
        )
      ).body;
      assert.equal(page.total, 7 + (pages > 0 ? 1 : 0));
      seen.push(...page.items.map((i) => i.request_id));
      cursor = page.next_cursor;
      if (pages++ === 0)
        await svc.service.audit.matches.write([
          match(customerId, at('2025-04-01', 100), 'newer', 'screen.crypto', '0xn', 'ofac_sdn'),
        ]);
    } while (cursor);
    assert.deepEqual(seen, whole);
    assert.equal(pages, 3);
    const bad = await get<{ detail: { loc: string[] }[] }>(`/account/audit?cursor=bm90LWEtY3Vyc29y`, token);
    assert.deepEqual([bad.status, bad.body.detail[0].loc], [422, ['query', 'cursor']]);
  });

  test('filters by endpoint and by text in a value; the CSV export has them and defuses formulas', async () => {
    const { customerId, token } = await createCustomerToken(svc.url, 10, 'Filters');
    await svc.service.audit.matches.write([
      match(
        customerId,
        at('2025-05-02', 1),
        'f1',
        'screen.email',
        'mailinator.com',
        'disposable_email',
        'Someone@MAILINATOR.com',
      ),
      match(
        customerId,
        at('2025-05-02', 2),
        'f2',
        'screen.website',
        'evil.com',
        'cryptoscamdb',
        '=HYPERLINK("http://evil.com")',
      ),
      match(customerId, at('2025-05-02', 3), 'f3', 'screen.crypto', '0xabc', 'ofac_sdn'),
    ]);
    const range = 'from=2025-05-02&to=2025-05-02';
    const ids = async (q: string) =>
      (await get<{ items: { request_id: string }[] }>(`/account/audit?${range}&${q}`, token)).body.items.map(
        (i) => i.request_id,
      );
    assert.deepEqual(await ids('endpoint=screen.email'), ['f1']);
    assert.deepEqual(await ids('value_contains=someone%40mail'), ['f1'], 'case-insensitive, in the screened value');
    assert.deepEqual(await ids('value_contains=EVIL'), ['f2'], 'or in the matched value');
    const csv = (await get<string>(`/account/audit/export?${range}&endpoint=screen.website`, token)).body;
    assert.equal(
      csv,
      'time,request_id,endpoint,screened_value,matched_value,list,list_type,match,list_version,as_of\r\n' +
        '2025-05-02T10:00:00.002Z,f2,screen.website,"\'=HYPERLINK(""http://evil.com"")",evil.com,cryptoscamdb,sanctions,exact,,\r\n',
    );
  });

  test('a match’s detail: the evidence as answered; a row without it, the metadata it had when last listed', async () => {
    const { customerId, token } = await createCustomerToken(svc.url, 10, 'Detail');
    const screened = await fetch(`${svc.url}/api/v1/screen/crypto/${LISTED_BTC}?lists=ofac_crypto`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(screened.status, 200);
    const [row] = (await get<{ items: { request_id: string; time: string }[] }>('/account/audit', token)).body.items;
    const detail = (
      await get<{
        endpoint: string;
        matches: {
          list: string;
          list_name: string;
          metadata: Record<string, unknown> | null;
          source_url: string | null;
        }[];
      }>(`/account/audit/requests/${row.request_id}?day=${row.time.slice(0, 10)}`, token)
    ).body;
    assert.equal(detail.endpoint, 'screen.crypto');
    assert.equal(detail.matches.length, 1);
    assert.equal(detail.matches[0].list_name, 'OFAC Sanctioned Digital Currency Addresses');
    assert.equal(detail.matches[0].metadata?.symbol, 'XBT');

    await svc.service.audit.listChanges.write([
      {
        seq: 1,
        change_id: 'chg_test_listed',
        owner: 0,
        list: 'ofac_sdn',
        version: 'v1',
        kind: 'listed',
        at: at('2025-01-01'),
        entity_type: 'crypto_address',
        value: '0xgone',
        metadata: JSON.stringify({ sdn_name: 'GONE LTD' }),
        source_url: 'https://example.com/gone',
      },
      {
        seq: 2,
        change_id: 'chg_test_delisted',
        owner: 0,
        list: 'ofac_sdn',
        version: 'v2',
        kind: 'delisted',
        at: at('2025-02-01'),
        entity_type: 'crypto_address',
        value: '0xgone',
        metadata: '{}',
        source_url: null,
      },
    ]);
    // A row of the release before evidence was kept: written without it, so it reads ''.
    const { evidence: _, ...legacy } = match(
      customerId,
      at('2025-01-15'),
      'old-request',
      'screen.crypto',
      '0xgone',
      'ofac_sdn',
    );
    await svc.service.audit.client.insert({
      table: 'screening.audit_matches',
      values: [legacy],
      format: 'JSONEachRow',
    });
    const past = (
      await get<{ matches: { metadata: unknown; source_url: string | null }[] }>(
        '/account/audit/requests/old-request?day=2025-01-15',
        token,
      )
    ).body;
    assert.deepEqual(
      [past.matches[0].metadata, past.matches[0].source_url],
      [{ sdn_name: 'GONE LTD' }, 'https://example.com/gone'],
    );
    assert.equal((await get('/account/audit/requests/old-request?day=2025-01-16', token)).status, 404);
    assert.equal(
      (await get('/account/audit/requests/old-request?day=2025-01-15', a.token)).status,
      404,
      'another customer’s request',
    );
  });

  test('x402 payments of the customer’s requests', async () => {
    await svc.service.audit.settlements.write([
      {
        time: at('2025-03-10', 2),
        request_id: 'u-paid',
        customer_id: a.customerId,
        payer: '0x1111111111111111111111111111111111111111',
        endpoint: 'screen.crypto',
        network: 'eip155:8453',
        x402_version: 2,
        amount: '10000',
        tx_hash: '0xfeed',
      },
      {
        time: at('2025-03-10', 3),
        request_id: 'anon',
        customer_id: 0,
        payer: '0x2222222222222222222222222222222222222222',
        endpoint: 'screen.crypto',
        network: 'eip155:8453',
        x402_version: 1,
        amount: '10000',
        tx_hash: '0xbeef',
      },
    ]);
    assert.deepEqual((await get(`/account/payments?${RANGE}`, a.token)).body, [
      {
        time: '2025-03-10T10:00:00.002Z',
        request_id: 'u-paid',
        endpoint: 'screen.crypto',
        payer: '0x1111111111111111111111111111111111111111',
        amount: '10000',
        network: 'eip155:8453',
        tx_hash: '0xfeed',
        x402_version: 2,
      },
    ]);
  });
});

test('a monitored value shows its latest listing change', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 10, 'Monitor');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = (await (
    await fetch(`${svc.url}/api/v1/account/monitored-entities`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ entity_type: 'email', value: 'a@b.io' }),
    })
  ).json()) as {
    id: number;
    last_event: unknown;
  };
  assert.equal(created.last_event, null);
  await svc.service.db.query(
    `INSERT INTO webhook_events (id, customer_id, type, created_at, monitored_entity_id, entity_type, value, label, listing) VALUES
       ('evt_1', $1, 'entity.listed', '2025-06-01T00:00:00.000Z', $2, 'email', 'a@b.io', NULL, '{"list":"ofac_sdn_web"}'),
       ('evt_2', $1, 'entity.delisted', '2025-07-01T00:00:00.000Z', $2, 'email', 'a@b.io', NULL, '{"list":"ofac_sdn_web"}')`,
    [customerId, created.id],
  );
  const [listed] = (await (await fetch(`${svc.url}/api/v1/account/monitored-entities`, { headers })).json()) as {
    last_event: unknown;
  }[];
  assert.deepEqual(listed.last_event, {
    type: 'entity.delisted',
    list: 'ofac_sdn_web',
    at: '2025-07-01T00:00:00.000Z',
  });
});

test('the operator’s list status and health', async () => {
  const lists = (
    await get<{ slug: string; loaded: boolean; version: string | null; total: number; enabled: boolean }[]>(
      '/admin/lists/status',
      TEST_ADMIN_KEY,
    )
  ).body;
  const crypto = lists.find((l) => l.slug === 'ofac_crypto')!;
  assert.ok(crypto.loaded && crypto.version && crypto.total > 0);
  const refreshed = await fetch(`${svc.url}/api/v1/admin/lists/ofac_crypto/refresh`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(refreshed.status, 200);
  const job = (await refreshed.json()) as {
    status: string;
    results: { list: string; result: string; version: string | null }[];
  };
  assert.deepEqual(
    [job.status, job.results.map((r) => [r.list, r.result, r.version])],
    ['done', [['ofac_crypto', 'unchanged', crypto.version]]],
  );
  const health = (
    await get<{ ready: boolean; leader: boolean; routes: { route: string; total: number }[] }>(
      '/admin/health',
      TEST_ADMIN_KEY,
    )
  ).body;
  assert.deepEqual([health.ready, health.leader], [true, true]);
  assert.equal(health.routes.find((r) => r.route === 'POST /api/v1/admin/lists/{slug}/refresh')?.total, 1);
  assert.equal(health.routes.find((r) => r.route === 'GET /api/v1/admin/lists/status')?.total, 1);
});
