import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { httpClient } from '../mcp/support.js';

/**
 * A value that cannot be of the kind asked for is a 422 and free on every transport — REST, batch
 * items, /trpc, MCP, monitored values — never a 200 "not listed" charged one credit (issue #20,
 * item 9). One validator per kind (engine/normalize/validate.ts) decides everywhere.
 */
let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

async function usage(customerId: number): Promise<{ endpoint: string; credits: number }[]> {
  const { audit } = svc.service;
  await audit.usage.flush();
  const res = await audit.client.query({
    query: `SELECT endpoint, toUInt32(credits) AS credits FROM screening.usage WHERE customer_id = ${customerId} ORDER BY time`,
    format: 'JSONEachRow',
  });
  return (await res.json()) as { endpoint: string; credits: number }[];
}

const COUNTRY_MSG =
  'not a known country or region: use an ISO 3166 alpha-2, alpha-3 or numeric code, an English name, or a designated region (e.g. Crimea, UA-43)';
const CRYPTO_MSG =
  'not a crypto address: expected 0x and 40 hexadecimal digits (EVM), 25 to 128 letters and digits (other chains, optionally after a chain prefix such as bitcoincash:), or an ENS name';

const issue = (loc: (string | number)[], input: string, error: string) => ({
  type: 'value_error',
  loc,
  msg: `Value error, ${error}`,
  input,
  ctx: { error },
});

test('REST: invalid e-mails, countries, addresses, IDs and websites are 422 with the reason, and cost nothing', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const cases: [string, (string | number)[], string, string][] = [
    ['email/not-an-email', ['path', 'email'], 'not-an-email', 'not a valid e-mail address'],
    ['email/a@localhost', ['path', 'email'], 'a@localhost', 'not a valid e-mail address'],
    ['country/XX', ['path', 'country'], 'XX', COUNTRY_MSG],
    ['country/Iarn', ['path', 'country'], 'Iarn', COUNTRY_MSG],
    ['country/Korea', ['path', 'country'], 'Korea', COUNTRY_MSG],
    ['crypto/not-an-address', ['path', 'address'], 'not-an-address', CRYPTO_MSG],
    [
      'crypto/0x1234',
      ['path', 'address'],
      '0x1234',
      'not a crypto address: an EVM address is 0x and 40 hexadecimal digits',
    ],
    ['crypto/bad..name.eth', ['path', 'address'], 'bad..name.eth', 'not a valid ENS name'],
    ['id/--%20--', ['path', 'government_id'], '-- --', 'not a government identifier: it has no letters or digits'],
    ['website?address=not%20a%20site', ['query', 'address'], 'not a site', 'not a website address or domain'],
  ];
  for (const [path, loc, input, error] of cases) {
    const res = await fetch(`${svc.url}/api/v1/screen/${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 422, path);
    assert.deepEqual(await res.json(), { detail: [issue(loc, input, error)] }, path);
  }
  // Valid values of each kind are screened as before, one credit each.
  for (const path of [
    'email/someone@例え.jp',
    'country/Iran',
    'country/UA-43',
    'crypto/0x000000000000000000000000000000000000dEaD',
    'crypto/bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    'id/AB%20850-901',
  ]) {
    const res = await fetch(`${svc.url}/api/v1/screen/${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
  }
  assert.deepEqual((await usage(customerId)).length, 6);
});

test('an unauthenticated request with an invalid value is a 422 too, before any challenge', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/country/XX`);
  assert.equal(res.status, 422);
});

test('batch: invalid items are 422 lines in place, free; the valid ones cost one credit each', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const items = [
    { type: 'email', value: 'not-an-email' },
    { type: 'country', value: 'Iran' },
    { type: 'country', value: 'Iarn' },
    { type: 'crypto', value: 'hello' },
  ];
  const res = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
  });
  assert.equal(res.status, 200);
  const lines = (await res.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(lines[0], {
    detail: [
      {
        type: 'value_error',
        loc: ['body', 'items', 0, 'value'],
        msg: 'Value error, not a valid e-mail address',
        input: 'not-an-email',
        ctx: { error: 'not a valid e-mail address' },
      },
    ],
  });
  assert.equal(lines[1].sanctioned, true);
  assert.deepEqual(lines[2].detail[0].loc, ['body', 'items', 2, 'value']);
  assert.equal(lines[2].detail[0].msg, `Value error, ${COUNTRY_MSG}`);
  assert.equal(lines[3].detail[0].msg, `Value error, ${CRYPTO_MSG}`);
  assert.deepEqual(await usage(customerId), [{ endpoint: 'screen.batch', credits: 1 }]);
});

test('/trpc and MCP refuse the same values with the same reason, free', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  type AnyClient = Record<string, Record<string, { query: (input: unknown) => Promise<unknown> }>>;
  const trpc = createTRPCClient({
    links: [httpBatchLink({ url: `${svc.url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  }) as unknown as AnyClient;
  await assert.rejects(trpc.screen.country.query({ country: 'Iarn' }), (err: unknown) => {
    assert.ok(err instanceof TRPCClientError);
    const data = err.data as { detail: { detail: { msg: string; loc: unknown[] }[] } };
    assert.equal(data.detail.detail[0].msg, `Value error, ${COUNTRY_MSG}`);
    assert.deepEqual(data.detail.detail[0].loc, ['body', 'country']);
    return true;
  });
  const mcp = await httpClient(svc.url, { authorization: `Bearer ${token}` });
  try {
    const result = (await mcp.callTool({ name: 'screen_email', arguments: { email: 'not-an-email' } })) as unknown as {
      isError: boolean;
      structuredContent: { detail: { msg: string; loc: unknown[] }[] };
    };
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent.detail[0].loc, ['body', 'email']);
    assert.equal(result.structuredContent.detail[0].msg, 'Value error, not a valid e-mail address');
  } finally {
    await mcp.close();
  }
  assert.deepEqual(await usage(customerId), []);
});

test('monitored values go through the same validators', async () => {
  const { token } = await createCustomerToken(svc.url, 100);
  const post = (body: unknown) =>
    fetch(`${svc.url}/api/v1/account/monitored-entities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const bad = await post({ entity_type: 'country', value: 'XX' });
  assert.equal(bad.status, 422);
  assert.deepEqual(await bad.json(), { detail: [issue(['body', 'value'], 'XX', COUNTRY_MSG)] });
  const badAddress = await post({ entity_type: 'onchain_address', value: 'hello' });
  assert.equal(badAddress.status, 422);
  assert.equal(
    ((await badAddress.json()) as { detail: { msg: string }[] }).detail[0].msg,
    `Value error, ${CRYPTO_MSG}`,
  );
  assert.equal((await post({ entity_type: 'country', value: 'Iran' })).status, 200);
});
