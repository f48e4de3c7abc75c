import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import pino from 'pino';
import { PGlite } from '@electric-sql/pglite';
import { decodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { validateDiscoveryExtension, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { privateKeyToAccount } from 'viem/accounts';
import { endpoint, type RequestMeta } from '../../../src/core/endpoint.js';
import { loadConfig } from '../../../src/config.js';
import { HttpError } from '../../../src/core/errors.js';
import { screeningEndpoints } from '../../../src/api/endpoints/screen.js';
import { batchEndpoint } from '../../../src/api/endpoints/batch.js';
import { nameEndpoints } from '../../../src/api/endpoints/names.js';
import { pepEndpoints } from '../../../src/api/endpoints/pep.js';
import { ipIntelEndpoints } from '../../../src/api/endpoints/ipintel.js';
import { KINDS } from '../../../src/core/kinds.js';
import {
  createPayments,
  mcpPaymentResponse,
  MemoryNonceStore,
  paymentHeaderFromMcpMeta,
  SqlNonceStore,
  type NonceStore,
} from '../../../src/billing/x402/index.js';

// No chain here: challenge shapes, header decoding and the nonce stores. Chain-backed verification
// and settlement are in settlement.test.ts.

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ASSET = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const log = pino({ level: 'silent' });

const screenCrypto = endpoint({
  id: 'screen.crypto',
  method: 'GET',
  path: '/screen/crypto/{address}',
  tags: ['screening'],
  summary: 'Screen a crypto address',
  access: 'metered',
  input: z.object({
    address: z.string().min(1).describe('Address on any chain, or an ENS name'),
    lists: z.string().optional().describe('Comma-separated list slugs'),
  }),
  output: z.object({
    value: z.string(),
    flagged: z.boolean(),
    sanctioned: z.boolean(),
    lists_checked: z.array(z.string()),
    matches: z.array(z.unknown()),
  }),
  example: {
    value: '0x00000000000000000000000000000000000000aa',
    flagged: false,
    sanctioned: false,
    lists_checked: ['ofac-sdn'],
    matches: [],
  },
  handler: () => ({ value: '', flagged: false, sanctioned: false, lists_checked: [], matches: [] }),
});

const URL_ = 'https://api.example.com/api/v1/screen/crypto/0xabc?lists=ofac-sdn';

function meta(headers: Record<string, string> = {}, url = URL_): RequestMeta {
  return { requestId: 'r1', transport: 'rest', method: 'GET', url, clientIp: '127.0.0.1', headers };
}

function config(extra: Record<string, string> = {}) {
  return loadConfig({
    X402_PAY_TO: PAY_TO,
    X402_NETWORK: 'eip155:84532',
    X402_ASSET: ASSET,
    X402_ASSET_NAME: 'Test USD',
    X402_ASSET_VERSION: '1',
    X402_RPC_URL: 'http://127.0.0.1:9',
    X402_SETTLER_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
    UPGRADE_URL: 'https://example.com/upgrade',
    ...extra,
  });
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64');

describe('challenge', () => {
  const payments = createPayments({ config: config(), log });

  test('v1 body: exact shape, price × credits, upgrade offered last', () => {
    const err = payments.challenge(screenCrypto, meta(), { error: 'payment required', credits: 3 });
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 402);
    assert.deepEqual(err.toBody(), {
      x402Version: 1,
      error: 'payment required',
      accepts: [
        {
          scheme: 'exact',
          network: 'base-sepolia',
          maxAmountRequired: '30000',
          resource: URL_,
          description: 'Screen a crypto address',
          mimeType: 'application/json',
          outputSchema: {
            input: {
              type: 'http',
              method: 'GET',
              discoverable: true,
              queryParams: { lists: { type: 'string', description: 'Comma-separated list slugs' } },
              pathParams: {
                address: { type: 'string', minLength: 1, description: 'Address on any chain, or an ENS name' },
              },
            },
            output: screenCrypto.example,
          },
          payTo: PAY_TO,
          maxTimeoutSeconds: 300,
          asset: ASSET,
          extra: { name: 'Test USD', version: '1' },
        },
      ],
      options: [
        {
          type: 'pay_per_request',
          description:
            'Pay this request with an x402 payment: an EIP-3009 transferWithAuthorization of the amount to payTo',
          x402Versions: [1, 2],
          scheme: 'exact',
          network: 'base-sepolia',
          caip2Network: 'eip155:84532',
          asset: ASSET,
          amount: '30000',
          amountUsd: '0.03',
          paymentHeaders: { v1: 'X-PAYMENT', v2: 'PAYMENT-SIGNATURE' },
        },
        {
          type: 'upgrade_plan',
          description: 'Upgrade the plan for a larger monthly quota of API requests',
          url: 'https://example.com/upgrade',
        },
      ],
    });
    assert.equal(err.headers['Cache-Control'], 'no-store');
  });

  test('v2 PAYMENT-REQUIRED header: resource, CAIP-2 accepts, bazaar discovery from the zod schemas', () => {
    const err = payments.challenge(screenCrypto, meta(), { error: 'payment required', credits: 1 });
    const v2 = decodePaymentRequiredHeader(err.headers['PAYMENT-REQUIRED']);
    assert.equal(v2.x402Version, 2);
    assert.equal(v2.error, 'payment required');
    assert.deepEqual(v2.resource, {
      url: URL_,
      description: 'Screen a crypto address',
      mimeType: 'application/json',
      serviceName: 'Sanctions and Risk Screening',
      tags: ['screening'],
      iconUrl: 'https://api.example.com/favicon.ico',
    });
    assert.deepEqual(v2.accepts, [
      {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: '10000',
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        asset: ASSET,
        extra: { name: 'Test USD', version: '1' },
      },
    ]);
    const bazaar = v2.extensions?.bazaar as DiscoveryExtension & { routeTemplate: string };
    assert.deepEqual(validateDiscoveryExtension(bazaar), { valid: true });
    assert.equal(bazaar.routeTemplate, '/api/v1/screen/crypto/:address');
    // The request's own values never go into the block (it is cataloged by facilitators).
    assert.deepEqual(bazaar.info, {
      input: { type: 'http', queryParams: {}, pathParams: { address: '{address}' }, method: 'GET' },
      output: { type: 'json', example: screenCrypto.example },
    });
    const input = (bazaar.schema.properties.input as { properties: Record<string, unknown> }).properties;
    assert.deepEqual(input.queryParams, {
      type: 'object',
      properties: { lists: { type: 'string', description: 'Comma-separated list slugs' } },
    });
    assert.deepEqual(input.pathParams, {
      type: 'object',
      properties: { address: { type: 'string', minLength: 1, description: 'Address on any chain, or an ENS name' } },
      required: ['address'],
    });
  });

  test('quota exhausted: upgrade_plan comes first', () => {
    const body = payments
      .challenge(screenCrypto, meta(), { error: 'monthly quota exhausted', credits: 1, quotaExhausted: true })
      .toBody() as {
      options: { type: string }[];
    };
    assert.deepEqual(
      body.options.map((o) => o.type),
      ['upgrade_plan', 'pay_per_request'],
    );
  });

  test('payments disabled without X402_PAY_TO: same shape, empty accepts, headers refused with 402', async () => {
    const off = createPayments({ config: loadConfig({ UPGRADE_URL: 'https://example.com/upgrade' }), log });
    const reason = 'pay-per-request is not configured on this server (no X402_PAY_TO)';
    const err = off.challenge(screenCrypto, meta(), { error: 'payment required', credits: 1 });
    assert.deepEqual(err.toBody(), {
      x402Version: 1,
      error: `payment required; ${reason}`,
      accepts: [],
      options: [
        {
          type: 'upgrade_plan',
          description: 'Upgrade the plan for a larger monthly quota of API requests',
          url: 'https://example.com/upgrade',
        },
      ],
    });
    const v2 = decodePaymentRequiredHeader(err.headers['PAYMENT-REQUIRED']);
    assert.deepEqual(v2.accepts, []);
    assert.equal(v2.error, `payment required; ${reason}`);

    const paid = meta({ 'x-payment': b64({ x402Version: 1 }) });
    assert.equal(off.hasPayment(paid), true);
    await assert.rejects(off.verify(screenCrypto, paid, 1), (e: HttpError) => {
      assert.equal(e.status, 402);
      assert.equal((e.toBody() as { error: string }).error, reason);
      return true;
    });
  });

  test('a pay-to without any settlement route also disables payments', () => {
    const cfg = loadConfig({ X402_PAY_TO: PAY_TO });
    const err = createPayments({ config: cfg, log }).challenge(screenCrypto, meta(), {
      error: 'payment required',
      credits: 1,
    });
    const body = err.toBody() as { error: string; accepts: unknown[] };
    assert.equal(
      body.error,
      'payment required; pay-per-request is not configured on this server (no settler key or facilitator)',
    );
    assert.deepEqual(body.accepts, []);
  });
});

describe("the service's metered endpoints", () => {
  const deps = { kinds: KINDS } as never;
  const names = nameEndpoints(deps);
  const metered = [
    ...screeningEndpoints(deps),
    ...names.endpoints,
    batchEndpoint(deps, names.lists),
    ...pepEndpoints(deps),
    ...ipIntelEndpoints(deps),
  ].filter((e) => e.access === 'metered');
  const payments = createPayments({ config: config(), log });

  test('each yields a valid bazaar block and a v2 payment header that fits in 3.5 KB', () => {
    assert.ok(metered.length >= 12);
    for (const e of metered) {
      const url = `https://screening.example.com/api/v1${e.path.replace(/\{[^}]+\}/g, '0x1234567890abcdef1234567890abcdef12345678')}?lists=ofac-sdn`;
      const required = decodePaymentRequiredHeader(
        payments.challenge(e, meta({}, url), { error: 'payment required', credits: 1 }).headers['PAYMENT-REQUIRED'],
      );
      assert.deepEqual(
        validateDiscoveryExtension(required.extensions!.bazaar as DiscoveryExtension),
        { valid: true },
        e.id,
      );
      // What x402Client sends back: the accepted requirement, the resource and the echoed extensions.
      const payment = {
        x402Version: 2,
        resource: required.resource,
        accepted: required.accepts[0],
        payload: {
          authorization: {
            from: PAY_TO,
            to: PAY_TO,
            value: '10000',
            validAfter: '1700000000',
            validBefore: '1700000300',
            nonce: `0x${'b'.repeat(64)}`,
          },
          signature: `0x${'c'.repeat(130)}`,
        },
        extensions: required.extensions,
      };
      assert.ok(b64(payment).length <= 3500, `${e.id}: ${b64(payment).length} characters`);
    }
  });
});

describe('payment header decoding: malformed input is a 402 with the reason, never a 500', () => {
  const payments = createPayments({ config: config(), log });
  const signer = privateKeyToAccount(`0x${'22'.repeat(32)}`);
  const auth = {
    from: signer.address,
    to: PAY_TO,
    value: '10000',
    validAfter: '0',
    validBefore: String(Math.floor(Date.now() / 1000) + 200),
    nonce: `0x${'ab'.repeat(32)}`,
  };

  const cases: [string, Record<string, string>, string][] = [
    ['not base64', { 'x-payment': 'not base64 !!!' }, 'malformed payment header: not base64'],
    ['base64 of text', { 'x-payment': b64('hello there') }, 'malformed payment header: not base64-encoded JSON'],
    [
      'unknown version',
      { 'payment-signature': b64({ x402Version: 3 }) },
      'malformed payment header: x402Version must be 1 or 2',
    ],
    [
      'JSON that is not an object',
      { 'x-payment': b64('[1,2]') },
      'malformed payment header: x402Version must be 1 or 2',
    ],
    [
      'v1 without signature',
      {
        'x-payment': b64({
          x402Version: 1,
          scheme: 'exact',
          network: 'base-sepolia',
          payload: { authorization: auth },
        }),
      },
      'malformed x402 v1 payment: payload.signature Invalid input: expected string, received undefined',
    ],
    [
      'v1 with a non-numeric value',
      {
        'x-payment': b64({
          x402Version: 1,
          scheme: 'exact',
          network: 'base-sepolia',
          payload: { authorization: { ...auth, value: '1e6' }, signature: `0x${'00'.repeat(65)}` },
        }),
      },
      'malformed x402 v1 payment: payload.authorization.value must be a decimal integer string',
    ],
    [
      'v2 without accepted',
      {
        'payment-signature': b64({
          x402Version: 2,
          payload: { authorization: auth, signature: `0x${'00'.repeat(65)}` },
        }),
      },
      'malformed x402 v2 payment: accepted Invalid input: expected object, received undefined',
    ],
    ['oversized header', { 'x-payment': 'A'.repeat(70_000) }, 'malformed payment header: too large'],
    [
      'v1 on another network',
      {
        'x-payment': b64({
          x402Version: 1,
          scheme: 'exact',
          network: 'base',
          payload: { authorization: auth, signature: `0x${'00'.repeat(65)}` },
        }),
      },
      'payment is for network "base"; this server accepts "base-sepolia"',
    ],
    [
      'v1 with another scheme',
      {
        'x-payment': b64({
          x402Version: 1,
          scheme: 'upto',
          network: 'base-sepolia',
          payload: { authorization: auth, signature: `0x${'00'.repeat(65)}` },
        }),
      },
      'unsupported payment scheme "upto"; this server accepts "exact"',
    ],
  ];

  for (const [name, headers, reason] of cases) {
    test(name, async () => {
      await assert.rejects(payments.verify(screenCrypto, meta(headers), 1), (e: HttpError) => {
        assert.ok(e instanceof HttpError);
        assert.equal(e.status, 402);
        const body = e.toBody() as { error: string; accepts: unknown[] };
        assert.equal(body.error, reason);
        assert.equal(body.accepts.length, 1);
        assert.equal(decodePaymentRequiredHeader(e.headers['PAYMENT-REQUIRED']).error, reason);
        return true;
      });
    });
  }

  test('hasPayment sees either header, ignoring empty values', () => {
    assert.equal(payments.hasPayment(meta()), false);
    assert.equal(payments.hasPayment(meta({ 'x-payment': '  ' })), false);
    assert.equal(payments.hasPayment(meta({ 'x-payment': 'e30=' })), true);
    assert.equal(payments.hasPayment(meta({ 'payment-signature': 'e30=' })), true);
  });
});

describe('model-tool transport helpers', () => {
  test('_meta["x402/payment"] as object or string becomes an X-PAYMENT value; the receipt decodes for _meta', async () => {
    const payments = createPayments({ config: config(), log });
    const header = paymentHeaderFromMcpMeta({ x402Version: 3 });
    assert.equal(header, b64({ x402Version: 3 }));
    await assert.rejects(
      payments.verify(screenCrypto, meta({ 'x-payment': header! }), 1),
      (e: HttpError) =>
        (e.toBody() as { error: string }).error === 'malformed payment header: x402Version must be 1 or 2',
    );
    assert.equal(paymentHeaderFromMcpMeta(' abc= '), 'abc=');
    assert.equal(paymentHeaderFromMcpMeta(''), undefined);
    assert.equal(paymentHeaderFromMcpMeta(42), undefined);
    const receipt = {
      success: true,
      transaction: `0x${'12'.repeat(32)}`,
      network: 'eip155:84532' as const,
      payer: PAY_TO,
    };
    const settled = {
      transaction: receipt.transaction,
      network: receipt.network,
      payer: PAY_TO,
      amount: 10000n,
      headers: { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(receipt) },
    };
    assert.deepEqual(mcpPaymentResponse(settled), receipt);
  });
});

describe('nonce stores', () => {
  const far = Math.floor(Date.now() / 1000) + 300;

  test('memory: reserve once, release frees, settled stays used, expired entries drop', async () => {
    let t = 1000;
    const store: NonceStore = new MemoryNonceStore(() => t);
    assert.equal(await store.reserve('k', 2000), true);
    assert.equal(await store.reserve('k', 2000), false);
    await store.release('k');
    assert.equal(await store.reserve('k', 2000), true);
    await store.markSettled('k', '0xtx');
    await store.release('k');
    assert.equal(await store.reserve('k', 2000), false);
    t = 2001;
    assert.equal(await store.reserve('k', 3000), true);
  });

  test('PostgreSQL (PGlite): the same rules, and two nodes racing for one key get one winner', async () => {
    const db = new PGlite();
    await db.exec(readFileSync(new URL('../../../src/store/migrations/010_x402_nonces.sql', import.meta.url), 'utf8'));
    const a = new SqlNonceStore(db);
    const b = new SqlNonceStore(db);
    assert.equal(await a.reserve('k', far), true);
    assert.equal(await b.reserve('k', far), false);
    await a.release('k');
    const raced = await Promise.all([
      a.reserve('k', far),
      b.reserve('k', far),
      a.reserve('k', far),
      b.reserve('k', far),
    ]);
    assert.deepEqual(raced.filter(Boolean).length, 1);
    await a.markSettled('k', '0xabc');
    await b.release('k');
    assert.equal(await b.reserve('k', far), false);
    const { rows } = await db.query<{ state: string; transaction: string }>(
      'SELECT state, transaction FROM x402_nonces',
    );
    assert.deepEqual(rows, [{ state: 'settled', transaction: '0xabc' }]);
    await db.close();
  });
});
