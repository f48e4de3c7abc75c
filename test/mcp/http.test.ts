import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Hex } from 'viem';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { startTestService, type TestService } from '../../harness/service.js';
import { httpClient } from './support.js';
import { pay, startPaymentChain, PRICE, type PaymentChain } from '../support/payments.js';
import { toolSpecs } from '../../src/mcp/index.js';
import { KINDS } from '../../src/core/kinds.js';

// The real service (real lists, PGlite, chDB) with /mcp beside the REST routes, a Hardhat chain at
// 84532 with an EIP-3009 token, the SDK's own client over Streamable HTTP, x402's own client signing.

const SANCTIONED = '0x7F367cC41522cE07553e823bf3be79A889DEbe1B';

let svc: TestService;
let pc: PaymentChain;
let token: string;
let customerId: number;
const clients: Client[] = [];

async function client(headers: Record<string, string> = {}): Promise<Client> {
  const c = await httpClient(svc.url, headers);
  clients.push(c);
  return c;
}

async function rest(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}/api/v1${path}`, { headers });
}

async function call(
  c: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
}

async function rows<T>(table: string, where: string, params: Record<string, unknown>): Promise<T[]> {
  await Promise.all([
    svc.service.audit.usage.flush(),
    svc.service.audit.matches.flush(),
    svc.service.audit.settlements.flush(),
  ]);
  const rs = await svc.service.audit.client.query({
    query: `SELECT * FROM screening.${table} WHERE ${where} ORDER BY time`,
    query_params: params,
    format: 'JSONEachRow',
  });
  return (await rs.json()) as T[];
}

before(async () => {
  pc = await startPaymentChain();
  svc = await startTestService(pc.env);
  const customer = await svc.service.customers.createCustomer({ name: 'mcp-test', monthlyQuota: 1000 });
  customerId = customer.id;
  token = (await svc.service.tokens.create(customerId)).token;
});

after(async () => {
  for (const c of clients) await c.close();
  await svc?.close();
  await pc?.chain.stop();
});

describe('catalog', () => {
  test('initialize and tools/list need no credentials; one tool per capability from the endpoint schemas', async () => {
    const c = await client();
    assert.deepEqual(c.getServerVersion(), { name: 'sanctions-screening', version: '2.0.0' });
    const { tools } = await c.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'screen_crypto',
        'screen_email',
        'screen_website',
        'screen_government_id',
        'screen_country',
        'screen_name',
        'screen_pep',
        'vpn_check',
        'ip_geolocation',
        'search',
        'list_sources',
        'list_entities',
        'stats',
        'delisted',
      ],
    );
    const byId = new Map(svc.service.endpoints.map((e) => [e.id, e]));
    for (const spec of toolSpecs(KINDS)) {
      const tool = tools.find((t) => t.name === spec.name)!;
      const ep = byId.get(spec.endpoint)!;
      const omit = Object.fromEntries((spec.omit ?? []).map((k) => [k, true] as const));
      const { $schema: _s, ...expected } = z.toJSONSchema(ep.input.omit(omit as never), {
        io: 'input',
        target: 'draft-7',
        unrepresentable: 'any',
      }) as Record<string, unknown>;
      assert.deepEqual(tool.inputSchema, { type: 'object', ...expected }, spec.name);
      assert.equal(tool.title, ep.summary);
      assert.equal(tool.annotations?.readOnlyHint, true);
      assert.equal(tool.outputSchema?.type, 'object');
      assert.match(
        tool.description ?? '',
        ep.access === 'metered' ? /^.*\n\nMetered: one credit/s : /Free: no credentials needed\.$/,
      );
    }
    const vpn = tools.find((t) => t.name === 'vpn_check')!;
    assert.equal(vpn.inputSchema.required, undefined);
    assert.deepEqual(Object.keys(tools.find((t) => t.name === 'list_entities')!.inputSchema.properties ?? {}), [
      'slug',
      'limit',
    ]);
  });
});

describe('free tools', () => {
  test('every free tool answers without credentials with the REST JSON', async () => {
    const c = await client();
    const cases: [string, Record<string, unknown>, string][] = [
      ['search', { q: 'Putin', limit: 3 }, '/search?q=Putin&limit=3'],
      ['list_sources', {}, '/screen/lists'],
      ['list_entities', { slug: 'ofac_sdn', limit: 2 }, '/screen/lists/ofac_sdn/entities?limit=2'],
      ['stats', {}, '/stats'],
      ['delisted', { limit: 5 }, '/delisted?limit=5'],
    ];
    for (const [name, args, path] of cases) {
      const result = await call(c, name, args);
      const expected = await (await rest(path)).json();
      assert.equal(result.isError, undefined, name);
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), expected, name);
      assert.deepEqual(result.structuredContent, Array.isArray(expected) ? { result: expected } : expected, name);
    }
  });

  test('a validation failure is an error result with the 422 detail; an unknown list is the REST 404', async () => {
    const c = await client();
    const bad = await call(c, 'search', { q: 'ab', limit: 26 });
    assert.equal(bad.isError, true);
    assert.deepEqual(bad.structuredContent, {
      detail: [
        {
          type: 'string_too_short',
          loc: ['body', 'q'],
          msg: 'String should have at least 3 characters',
          input: 'ab',
          ctx: { min_length: 3 },
        },
        {
          type: 'less_than_equal',
          loc: ['body', 'limit'],
          msg: 'Input should be less than or equal to 25',
          input: 26,
          ctx: { le: 25 },
        },
      ],
    });
    const missing = await call(c, 'list_entities', { slug: 'no_such_list' });
    assert.equal(missing.isError, true);
    assert.deepEqual(missing.structuredContent, await (await rest('/screen/lists/no_such_list/entities')).json());
    assert.deepEqual(missing.structuredContent, { detail: 'List not found: no_such_list' });
  });
});

describe('metered tools with a bearer token', () => {
  test('every metered tool answers with the REST JSON; usage and audit rows as for REST', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const c = await client({ ...auth, 'x-request-id': 'mcp-token-calls' });
    const cases: [string, Record<string, unknown>, string][] = [
      ['screen_crypto', { address: SANCTIONED }, `/screen/crypto/${SANCTIONED}`],
      ['screen_email', { email: 'someone@mailinator.com' }, '/screen/email/someone@mailinator.com'],
      [
        'screen_website',
        { address: 'https://www.example.com/path' },
        '/screen/website?address=https%3A%2F%2Fwww.example.com%2Fpath',
      ],
      ['screen_government_id', { government_id: 'AB 123456' }, '/screen/id/AB%20123456'],
      ['screen_country', { country: 'IR' }, '/screen/country/IR'],
      [
        'screen_name',
        { name: 'Saddam Hussein', birth_date: '1937', limit: 2 },
        '/screen/name?name=Saddam%20Hussein&birth_date=1937&limit=2',
      ],
      ['screen_pep', { name: 'Jake Auchincloss', limit: 2 }, '/screen/pep?name=Jake%20Auchincloss&limit=2'],
      ['vpn_check', { ip_address: '8.8.8.8' }, '/vpn?ip_address=8.8.8.8'],
      ['vpn_check', {}, '/vpn'],
      ['ip_geolocation', { ip_address: '8.8.8.8' }, '/geo?ip_address=8.8.8.8'],
      ['ip_geolocation', {}, '/geo'],
    ];
    for (const [name, args, path] of cases) {
      const result = await call(c, name, args);
      const res = await rest(path, auth);
      assert.equal(res.status, 200, `${name} REST`);
      const expected = await res.json();
      assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result.structuredContent)}`);
      assert.deepEqual(result.structuredContent, expected, name);
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), expected, name);
      assert.equal(result._meta?.['x402/payment-response'], undefined, 'no receipt for a quota-funded call');
      // A screening says which list versions it was screened against, as REST does in a header.
      assert.equal(result._meta?.['screening/list-versions'], res.headers.get('x-list-versions') ?? undefined, name);
    }
    assert.equal((await call(c, 'vpn_check', {})).structuredContent?.ip, '127.0.0.1');

    const usage = await rows<{
      customer_id: number;
      endpoint: string;
      method: string;
      credits: number;
      status: number;
      payer: string;
    }>('usage', 'request_id = {id:String}', { id: 'mcp-token-calls' });
    assert.deepEqual(
      usage.map((u) => [u.customer_id, u.endpoint, u.method, u.credits, u.status, u.payer]).sort(),
      [
        'screen.crypto',
        'screen.email',
        'screen.website',
        'screen.id',
        'screen.country',
        'screen.name',
        'screen.pep',
        'ip.vpnClient',
        'ip.vpnClient',
        'ip.vpnClient',
        'ip.geoClient',
        'ip.geoClient',
      ]
        .map((e) => [customerId, e, 'quota', 1, 200, ''])
        .sort(),
    );
    const matches = await rows<{
      customer_id: number;
      endpoint: string;
      screened_value: string;
      list: string;
      match: string;
    }>('audit_matches', 'request_id = {id:String} AND endpoint = {ep:String}', {
      id: 'mcp-token-calls',
      ep: 'screen.crypto',
    });
    assert.ok(matches.length >= 1);
    for (const m of matches) {
      assert.equal(m.customer_id, customerId);
      assert.equal(m.screened_value, SANCTIONED);
      assert.equal(m.match, 'exact');
    }
  });

  test('an invalid Authorization header is the REST 401 detail; a token in _meta does not override the header', async () => {
    const c = await client({ authorization: 'Bearer sk_live_not_a_real_token_000000000000' });
    const result = await call(c, 'screen_country', { country: 'IR' }, { authorization: `Bearer ${token}` });
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, { detail: 'Invalid or revoked API token' });
  });

  test('a token under quota takes precedence over a payment header: nothing is paid', async () => {
    const anon = await client();
    const challenge = await call(anon, 'screen_country', { country: 'CU' });
    const payload = await pay(pc.payer, challenge._meta!['x402/payment-required']);
    const before = await pc.balance(pc.payer.address);
    const c = await client({
      authorization: `Bearer ${token}`,
      'payment-signature': encodePaymentSignatureHeader(payload),
    });
    const result = await call(c, 'screen_country', { country: 'CU' });
    assert.equal(result.isError, undefined);
    assert.equal(result._meta?.['x402/payment-response'], undefined);
    assert.equal(await pc.balance(pc.payer.address), before);
  });
});

describe('x402 payments', () => {
  test('the unpaid challenge is the REST 402 body; the v2 challenge is the decoded PAYMENT-REQUIRED', async () => {
    const c = await client();
    const cases: [string, Record<string, unknown>, string][] = [
      ['screen_crypto', { address: SANCTIONED }, `/screen/crypto/${SANCTIONED}`],
      ['screen_pep', { name: 'Jake Auchincloss', limit: 2 }, '/screen/pep?name=Jake+Auchincloss&limit=2'],
      ['vpn_check', { ip_address: '8.8.8.8' }, '/vpn?ip_address=8.8.8.8'],
      ['ip_geolocation', {}, '/geo'],
    ];
    for (const [name, args, path] of cases) {
      const result = await call(c, name, args);
      const res = await rest(path);
      assert.equal(res.status, 402);
      const body = (await res.json()) as {
        x402Version: number;
        accepts: { resource: string; maxAmountRequired: string }[];
      };
      assert.equal(result.isError, true);
      assert.deepEqual(result.structuredContent, body, name);
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), body);
      assert.deepEqual(
        result._meta,
        { 'x402/payment-required': decodePaymentRequiredHeader(res.headers.get('payment-required')!) },
        name,
      );
      assert.equal(body.x402Version, 1);
      assert.equal(body.accepts[0].resource, `${svc.url}/api/v1${path}`);
      assert.equal(body.accepts[0].maxAmountRequired, PRICE.toString());
    }
  });

  test('paid through the HTTP PAYMENT-SIGNATURE header: settled once, receipt in _meta; a replay is refused', async () => {
    const anon = await client();
    const args = { address: SANCTIONED };
    const challenge = await call(anon, 'screen_crypto', args);
    const payload = await pay(pc.payer, challenge._meta!['x402/payment-required']);
    const header = { 'payment-signature': encodePaymentSignatureHeader(payload) };
    const [p0, m0] = [await pc.balance(pc.payer.address), await pc.balance(pc.merchant.address)];

    const paid = await call(await client(header), 'screen_crypto', args);
    assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
    assert.equal((paid.structuredContent as { sanctioned: boolean }).sanctioned, true);
    const receipt = paid._meta!['x402/payment-response'] as {
      success: boolean;
      transaction: Hex;
      network: string;
      payer: string;
    };
    assert.deepEqual(receipt, {
      success: true,
      transaction: receipt.transaction,
      network: 'eip155:84532',
      payer: pc.payer.address,
    });
    assert.equal((await pc.chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status, 'success');
    assert.equal(await pc.balance(pc.payer.address), p0 - PRICE);
    assert.equal(await pc.balance(pc.merchant.address), m0 + PRICE);

    const replay = await call(await client(header), 'screen_crypto', args);
    assert.equal(replay.isError, true);
    assert.equal((replay.structuredContent as { error: string }).error, 'authorization already used, sign a fresh one');
    assert.equal(replay._meta!['x402/payment-response'], undefined);
    assert.equal(await pc.balance(pc.payer.address), p0 - PRICE);

    const settlements = await rows<{
      customer_id: number;
      payer: string;
      endpoint: string;
      x402_version: number;
      amount: string | number;
    }>('x402_settlements', 'tx_hash = {tx:String}', {
      tx: receipt.transaction,
    });
    assert.deepEqual(
      settlements.map((s) => [s.customer_id, s.payer, s.endpoint, s.x402_version, String(s.amount)]),
      [[0, pc.payer.address, 'screen.crypto', 2, PRICE.toString()]],
    );
    const usage = await rows<{
      method: string;
      customer_id: number;
      payer: string;
      amount: string | number;
      network: string;
    }>('usage', 'tx_hash = {tx:String}', { tx: receipt.transaction });
    assert.deepEqual(
      usage.map((u) => [u.method, u.customer_id, u.payer, String(u.amount), u.network]),
      [['x402', 0, pc.payer.address, PRICE.toString(), 'eip155:84532']],
    );
    const matches = await rows<{ payer: string }>(
      'audit_matches',
      'payer = {p:String} AND screened_value = {v:String}',
      { p: pc.payer.address, v: SANCTIONED },
    );
    assert.ok(matches.length >= 1);
  });

  test('paid through _meta["x402/payment"] (v2 object, v1 base64): settled once each, receipts in _meta; replay refused', async () => {
    const c = await client();
    const p0 = await pc.balance(pc.payer.address);

    const v2Challenge = await call(c, 'screen_country', { country: 'IR' });
    const v2 = await pay(pc.payer, v2Challenge._meta!['x402/payment-required']);
    const paid = await call(c, 'screen_country', { country: 'IR' }, { 'x402/payment': v2 });
    assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
    const receipt = paid._meta!['x402/payment-response'] as { transaction: string };
    assert.deepEqual(paid._meta!['x402/payment-response'], {
      success: true,
      transaction: receipt.transaction,
      network: 'eip155:84532',
      payer: pc.payer.address,
    });
    const replay = await call(c, 'screen_country', { country: 'IR' }, { 'x402/payment': v2 });
    assert.equal(replay.isError, true);
    assert.equal((replay.structuredContent as { error: string }).error, 'authorization already used, sign a fresh one');

    const v1Challenge = await call(c, 'vpn_check', { ip_address: '8.8.8.8' });
    const v1 = await pay(pc.payer, v1Challenge.structuredContent);
    assert.equal(v1.x402Version, 1);
    const paidV1 = await call(
      c,
      'vpn_check',
      { ip_address: '8.8.8.8' },
      { 'x402/payment': encodePaymentSignatureHeader(v1) },
    );
    assert.equal(paidV1.isError, undefined, JSON.stringify(paidV1.structuredContent));
    assert.deepEqual(paidV1.structuredContent, { ip: '8.8.8.8', vpn: false });
    const receiptV1 = paidV1._meta!['x402/payment-response'] as { transaction: string };
    assert.deepEqual(paidV1._meta, {
      'x402/payment-response': {
        success: true,
        transaction: receiptV1.transaction,
        network: 'base-sepolia',
        payer: pc.payer.address,
      },
    });

    assert.equal(await pc.balance(pc.payer.address), p0 - 2n * PRICE);
    for (const tx of [receipt.transaction, receiptV1.transaction]) {
      assert.equal((await rows('x402_settlements', 'tx_hash = {tx:String}', { tx })).length, 1);
    }
  });

  test('invalid arguments are refused before the payment is touched', async () => {
    const c = await client();
    const challenge = await call(c, 'screen_pep', { name: 'Jake Auchincloss' });
    const payload = await pay(pc.payer, challenge._meta!['x402/payment-required']);
    const p0 = await pc.balance(pc.payer.address);
    const bad = await call(c, 'screen_pep', { name: 'Jake Auchincloss', limit: 11 }, { 'x402/payment': payload });
    assert.equal(bad.isError, true);
    assert.deepEqual(bad.structuredContent, {
      detail: [
        {
          type: 'less_than_equal',
          loc: ['body', 'limit'],
          msg: 'Input should be less than or equal to 10',
          input: 11,
          ctx: { le: 10 },
        },
      ],
    });
    assert.equal(await pc.balance(pc.payer.address), p0);
  });
});

describe('HTTP transport', () => {
  test('JSON by default, SSE when the client ranks text/event-stream first; GET and DELETE are 405', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const post = (accept: string) =>
      fetch(`${svc.url}/mcp`, {
        method: 'POST',
        headers: { accept, 'content-type': 'application/json' },
        body: JSON.stringify(list),
      });
    const json = await post('application/json, text/event-stream');
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.equal(((await json.json()) as { result: { tools: unknown[] } }).result.tools.length, 14);

    const sse = await post('text/event-stream, application/json');
    assert.equal(sse.status, 200);
    assert.equal(sse.headers.get('content-type'), 'text/event-stream');
    const events = (await sse.text()).split('\n').filter((l) => l.startsWith('data: '));
    assert.equal(events.length, 1);
    assert.equal((JSON.parse(events[0].slice(6)) as { result: { tools: unknown[] } }).result.tools.length, 14);

    assert.equal((await post('application/json')).status, 406);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${svc.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    }
  });
});
