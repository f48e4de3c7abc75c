import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';

/**
 * Metering on every transport: REST, /trpc (batched) and batch screening cost exactly their
 * credits with a token, answer the challenge without one, and write exact usage and audit rows.
 */
let svc: TestService;
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

before(async () => {
  // An explicit upgrade target (the default, the dashboard's billing page, is tested in dashboard-access.test.ts).
  svc = await startTestService({ UPGRADE_URL: 'https://example.com/dashboard/billing' });
});
after(async () => {
  await svc?.close();
});

async function rows(customerId: number): Promise<{
  usage: { endpoint: string; credits: number; method: string; status: number }[];
  audit: { endpoint: string; list: string; match: string; matched_value: string }[];
}> {
  const { audit } = svc.service;
  await audit.usage.flush();
  await audit.matches.flush();
  const q = async <T>(sql: string) =>
    (await (await audit.client.query({ query: sql, format: 'JSONEachRow' })).json()) as T[];
  return {
    usage: await q(
      `SELECT endpoint, toUInt32(credits) AS credits, method, toUInt32(status) AS status FROM screening.usage WHERE customer_id = ${customerId} ORDER BY time, endpoint`,
    ),
    audit: await q(
      `SELECT endpoint, list, match, matched_value FROM screening.audit_matches WHERE customer_id = ${customerId} ORDER BY time, list`,
    ),
  };
}

test('REST: one credit per request however many lists match; failures cost nothing', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const auth = { authorization: `Bearer ${token}` };
  const ok = await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}`, { headers: auth });
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as { matches: unknown[] }).matches.length, 2);
  assert.equal((await fetch(`${svc.url}/api/v1/screen/crypto/${XBT}?lists=nope`, { headers: auth })).status, 400);
  assert.equal((await fetch(`${svc.url}/api/v1/screen/website`, { headers: auth })).status, 422);
  const r = await rows(customerId);
  assert.deepEqual(r.usage, [{ endpoint: 'screen.crypto', credits: 1, method: 'quota', status: 200 }]);
  assert.deepEqual(r.audit, [
    { endpoint: 'screen.crypto', list: 'ofac_crypto', match: 'exact', matched_value: XBT },
    { endpoint: 'screen.crypto', list: 'ofac_sdn', match: 'exact', matched_value: XBT },
  ]);
});

test('batch: NDJSON in input order, invalid items answered in place and free, N valid items cost N', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const items = [
    { type: 'crypto', value: XBT },
    { type: 'email', value: 'someone@mailinator.com' },
    { type: 'phone', value: '123' },
    { type: 'country', value: 'Iran' },
    { type: 'website', value: '' },
  ];
  const res = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items, lists: 'ofac_sdn,disposable_email,ofac_countries' }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
  const lines = (await res.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 5);
  assert.deepEqual(
    lines.map((l) => (l.detail ? 'error' : `${l.value}:${l.flagged}:${l.sanctioned}`)),
    [`${XBT}:true:true`, 'someone@mailinator.com:true:false', 'error', 'Iran:true:true', 'error'],
  );
  assert.deepEqual(lines[2], {
    detail: [
      {
        type: 'literal_error',
        loc: ['body', 'items', 2, 'type'],
        msg: "Input should be 'crypto', 'email', 'website', 'id', 'country' or 'name'",
        input: 'phone',
        ctx: { expected: "'crypto', 'email', 'website', 'id', 'country' or 'name'" },
      },
    ],
  });
  assert.deepEqual(lines[4].detail[0].loc, ['body', 'items', 4, 'value']);
  const r = await rows(customerId);
  assert.deepEqual(r.usage, [{ endpoint: 'screen.batch', credits: 3, method: 'quota', status: 200 }]);
  assert.deepEqual(r.audit.map((a) => `${a.list}:${a.match}`).sort(), [
    'disposable_email:domain',
    'ofac_countries:exact',
    'ofac_sdn:exact',
  ]);
});

test('batch: refused whole (402) when fewer credits remain; body limits are 422', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 2);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const items = [1, 2, 3].map(() => ({ type: 'country', value: 'Iran' }));
  const refused = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ items }),
  });
  assert.equal(refused.status, 402);
  const challenge = (await refused.json()) as { options: { type: string; url?: string }[] };
  // Pay-per-request is not configured in this service (no X402_PAY_TO), so only the upgrade is offered;
  // test/billing/x402 covers the challenge with both options.
  assert.deepEqual(challenge.options, [
    {
      type: 'upgrade_plan',
      url: 'https://example.com/dashboard/billing',
      description: 'Upgrade the plan for a larger monthly quota of API requests',
    },
  ]);
  const empty = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ items: [] }),
  });
  assert.equal(empty.status, 422);
  assert.equal(((await empty.json()) as { detail: { type: string }[] }).detail[0].type, 'too_short');
  const tooMany = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ items: new Array(10_001).fill({ type: 'country', value: 'FR' }) }),
  });
  assert.equal(tooMany.status, 422);
  assert.deepEqual((await rows(customerId)).usage, []);
  const two = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ items: items.slice(0, 2) }),
  });
  assert.equal(two.status, 200);
  assert.deepEqual((await rows(customerId)).usage, [
    { endpoint: 'screen.batch', credits: 2, method: 'quota', status: 200 },
  ]);
});

test('tRPC with httpBatchLink: public and metered procedures; metered without credentials is PAYMENT_REQUIRED with the challenge', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  type AnyClient = Record<string, Record<string, { query: (input: unknown) => Promise<unknown> }>> & {
    stats: { query: (i: unknown) => Promise<unknown> };
  };
  const client = createTRPCClient({
    links: [httpBatchLink({ url: `${svc.url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  }) as unknown as AnyClient;
  const [stats, screened, country] = await Promise.all([
    client.stats.query({}),
    client.screen.crypto.query({ address: XBT }),
    client.screen.country.query({ country: 'Crimea', lists: 'ofac_countries' }),
  ]);
  assert.equal((stats as { countries: number }).countries, 8);
  assert.equal((screened as { sanctioned: boolean }).sanctioned, true);
  assert.deepEqual(
    (country as { matches: { match: string }[] }).matches.map((m) => m.match),
    ['exact'],
  );
  const r = await rows(customerId);
  assert.deepEqual(r.usage.map((u) => `${u.endpoint}:${u.credits}:${u.method}`).sort(), [
    'screen.country:1:quota',
    'screen.crypto:1:quota',
  ]);

  const anonymous = createTRPCClient({ links: [httpBatchLink({ url: `${svc.url}/trpc` })] }) as unknown as AnyClient;
  await assert.rejects(anonymous.screen.crypto.query({ address: XBT }), (err: unknown) => {
    assert.ok(err instanceof TRPCClientError);
    const data = err.data as { code: string; httpStatus: number; detail: { x402Version: number; accepts: unknown[] } };
    assert.equal(data.code, 'PAYMENT_REQUIRED');
    assert.equal(data.httpStatus, 402);
    assert.equal(data.detail.x402Version, 1);
    return true;
  });
  const bad = createTRPCClient({
    links: [httpBatchLink({ url: `${svc.url}/trpc`, headers: { authorization: 'Bearer sk_invalid' } })],
  }) as unknown as AnyClient;
  await assert.rejects(
    bad.screen.email.query({ email: 'a@b.com' }),
    (err: unknown) => err instanceof TRPCClientError && (err.data as { httpStatus: number }).httpStatus === 401,
  );
});
