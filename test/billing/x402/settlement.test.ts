import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import pino from 'pino';
import { PGlite } from '@electric-sql/pglite';
import { toHex, type Address, type Hex } from 'viem';
import type { HDAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { Network, PaymentPayload, PaymentRequired, PaymentRequiredV1 } from '@x402/core/types';
import { ExactEvmScheme, authorizationTypes } from '@x402/evm';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { endpoint, type RequestMeta } from '../../../src/core/endpoint.js';
import { loadConfig } from '../../../src/config.js';
import { HttpError } from '../../../src/core/errors.js';
import type { Payments, VerifiedPayment } from '../../../src/core/payments.js';
import { createPayments } from '../../../src/billing/x402/index.js';
import { startChain, type Deployed, type LocalChain } from '../../support/chain.js';
import { startFacilitator, type LocalFacilitator } from '../../support/facilitator.js';

// A real Hardhat 2 chain with chain id 84532 (v1 name `base-sepolia`), an EIP-3009 token compiled
// with solc, x402's own clients producing the payments, and settlement both by the service's wallet
// and through x402's facilitator served over HTTP. Every refusal checks the chain did not move.

const CHAIN_ID = 84532;
const PRICE = 10_000n;
const log = pino({ level: 'silent' });

const screenCrypto = endpoint({
  id: 'screen.crypto',
  method: 'GET',
  path: '/screen/crypto/{address}',
  tags: ['screening'],
  summary: 'Screen a crypto address',
  access: 'metered',
  input: z.object({ address: z.string().min(1), lists: z.string().optional() }),
  output: z.object({ value: z.string(), flagged: z.boolean() }),
  example: { value: '0x00000000000000000000000000000000000000aa', flagged: false },
  handler: ({ address }) => ({ value: address, flagged: false }),
});

let chain: LocalChain;
let token: Deployed;
let facilitator: LocalFacilitator;
let merchant: HDAccount;
let settler: HDAccount;
let payer: HDAccount;
let payer2: HDAccount;
let drained: HDAccount;
let stranger: HDAccount;
let viaWallet: Payments;
let viaFacilitator: Payments;

const keyOf = (a: HDAccount): Hex => toHex(a.getHdKey().privateKey!);
const nowS = () => Math.floor(Date.now() / 1000);
const URL_ = 'http://127.0.0.1/api/v1/screen/crypto/0xabc';

function meta(headers: Record<string, string> = {}, url = URL_): RequestMeta {
  return { requestId: 'r', transport: 'rest', method: 'GET', url, clientIp: '127.0.0.1', headers };
}

async function balance(a: Address): Promise<bigint> {
  return (await chain.publicClient.readContract({
    address: token.address,
    abi: token.abi,
    functionName: 'balanceOf',
    args: [a],
  })) as bigint;
}

async function tokenCall(from: HDAccount, functionName: 'mint' | 'transfer', args: unknown[]): Promise<void> {
  const hash = await chain.walletClient(from).writeContract({
    address: token.address,
    abi: token.abi,
    functionName,
    args,
    account: from,
    chain: chain.chain,
  });
  const r = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  assert.equal(r.status, 'success');
}

function paymentsConfig(extra: Record<string, string>) {
  return loadConfig({
    X402_PAY_TO: merchant.address,
    X402_NETWORK: `eip155:${CHAIN_ID}`,
    X402_ASSET: token.address,
    X402_ASSET_NAME: 'Test USD',
    X402_ASSET_VERSION: '1',
    ...extra,
  });
}

/** x402's own client, both generations; a local test token needs spend controls off. */
function clientFor(account: HDAccount): x402Client {
  return x402Client.fromConfig({
    schemes: [
      { network: `eip155:${CHAIN_ID}`, client: new ExactEvmScheme(account) },
      { network: 'base-sepolia' as Network, client: new ExactEvmSchemeV1(account), x402Version: 1 },
    ],
    spendControls: false,
  });
}

function challengeOf(payments: Payments, credits = 1, url = URL_) {
  const err = payments.challenge(screenCrypto, meta({}, url), { error: 'payment required', credits });
  return { v1: err.toBody() as PaymentRequiredV1, v2: decodePaymentRequiredHeader(err.headers['PAYMENT-REQUIRED']) };
}

/** A v2 PAYMENT-SIGNATURE header built by x402Client from our own challenge header. */
async function payV2(payments: Payments, account: HDAccount, credits = 1): Promise<Record<string, string>> {
  const payload = await clientFor(account).createPaymentPayload(challengeOf(payments, credits).v2);
  return { 'payment-signature': encodePaymentSignatureHeader(payload) };
}

/** A v1 X-PAYMENT header built by x402's v1 client scheme from our body-only challenge. */
async function payV1(payments: Payments, account: HDAccount): Promise<Record<string, string>> {
  const payload = await clientFor(account).createPaymentPayload(challengeOf(payments).v1 as unknown as PaymentRequired);
  return { 'x-payment': encodePaymentSignatureHeader(payload) };
}

interface Crafted {
  to?: Address;
  value?: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  chainId?: number;
  signer?: HDAccount;
  version?: 1 | 2;
  accepted?: Record<string, unknown>;
  network?: string;
}

/** A hand-signed EIP-3009 authorization, for the cases no honest client produces. */
async function craft(from: HDAccount, c: Crafted = {}): Promise<Record<string, string>> {
  const authorization = {
    from: from.address,
    to: c.to ?? merchant.address,
    value: c.value ?? PRICE,
    validAfter: c.validAfter ?? BigInt(nowS() - 600),
    validBefore: c.validBefore ?? BigInt(nowS() + 300),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await (c.signer ?? from).signTypedData({
    domain: { name: 'Test USD', version: '1', chainId: c.chainId ?? CHAIN_ID, verifyingContract: token.address },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const wire = {
    authorization: Object.fromEntries(
      Object.entries(authorization).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
    ),
    signature,
  };
  if (c.version === 1) {
    return {
      'x-payment': encodePaymentSignatureHeader({
        x402Version: 1,
        scheme: 'exact',
        network: c.network ?? 'base-sepolia',
        payload: wire,
      } as never),
    };
  }
  const required = challengeOf(viaWallet).v2;
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: required.resource,
    accepted: { ...required.accepts[0], ...c.accepted },
    payload: wire,
    extensions: required.extensions,
  };
  return { 'payment-signature': encodePaymentSignatureHeader(payload) };
}

async function refused(
  payments: Payments,
  headers: Record<string, string>,
  reason: string,
  credits = 1,
): Promise<void> {
  const watched = [payer.address, payer2.address, merchant.address];
  const before = await Promise.all(watched.map(balance));
  await assert.rejects(payments.verify(screenCrypto, meta(headers), credits), (e: HttpError) => {
    assert.ok(e instanceof HttpError, String(e));
    assert.equal(e.status, 402);
    assert.equal((e.toBody() as { error: string }).error, reason);
    assert.equal(decodePaymentRequiredHeader(e.headers['PAYMENT-REQUIRED']).error, reason);
    return true;
  });
  assert.deepEqual(await Promise.all(watched.map(balance)), before);
}

before(async () => {
  chain = await startChain({ chainId: CHAIN_ID });
  const [deployer, m, s, f, p, p2, d, x] = chain.accounts;
  merchant = m;
  settler = s;
  payer = p;
  payer2 = p2;
  drained = d;
  stranger = x;
  const source = readFileSync(new URL('../../fixtures/contracts/Eip3009Token.sol', import.meta.url), 'utf8');
  token = await chain.deploy(source, 'Eip3009Token', ['Test USD', '1'], deployer);
  for (const a of [payer, payer2]) await tokenCall(deployer, 'mint', [a.address, 1_000_000n]);
  facilitator = await startFacilitator(chain, f);
  viaWallet = createPayments({
    config: paymentsConfig({ X402_RPC_URL: chain.rpcUrl, X402_SETTLER_PRIVATE_KEY: keyOf(settler) }),
    log,
    chainPollingMs: 50,
  });
  // No RPC of its own: the facilitator's /verify simulates, its /settle settles.
  viaFacilitator = createPayments({ config: paymentsConfig({ X402_FACILITATOR_URL: facilitator.url }), log });
});

after(async () => {
  await facilitator?.stop();
  await chain?.stop();
});

describe('settlement by the service wallet', () => {
  test('v2 payment from x402Client: verified, settled on chain, PAYMENT-RESPONSE receipt', async () => {
    const [p0, m0] = [await balance(payer.address), await balance(merchant.address)];
    const headers = await payV2(viaWallet, payer);
    const verified = await viaWallet.verify(screenCrypto, meta(headers), 1);
    assert.deepEqual(
      { ...verified, nonce: undefined },
      {
        version: 2,
        payer: payer.address,
        amount: PRICE,
        network: 'eip155:84532',
        nonce: undefined,
      },
    );
    assert.match(verified.nonce, /^0x[0-9a-f]{64}$/);
    const settled = await viaWallet.settle(screenCrypto, meta(headers), verified);
    assert.deepEqual(Object.keys(settled.headers), ['PAYMENT-RESPONSE']);
    assert.deepEqual(decodePaymentResponseHeader(settled.headers['PAYMENT-RESPONSE']), {
      success: true,
      transaction: settled.transaction,
      network: 'eip155:84532',
      payer: payer.address,
    });
    assert.equal(settled.network, 'eip155:84532');
    assert.equal(settled.amount, PRICE);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), settler.address.toLowerCase());
    assert.equal(await balance(payer.address), p0 - PRICE);
    assert.equal(await balance(merchant.address), m0 + PRICE);

    // Replays: to this node, and to a node that never saw it (the chain's own record answers).
    await refused(viaWallet, headers, 'authorization already used, sign a fresh one');
    const otherNode = createPayments({
      config: paymentsConfig({ X402_RPC_URL: chain.rpcUrl, X402_SETTLER_PRIVATE_KEY: keyOf(settler) }),
      log,
    });
    await refused(otherNode, headers, 'authorization already used, sign a fresh one');
  });

  test('v1 payment from the v1 client scheme: X-PAYMENT-RESPONSE with the plain network name', async () => {
    const m0 = await balance(merchant.address);
    const headers = await payV1(viaWallet, payer);
    const verified = await viaWallet.verify(screenCrypto, meta(headers), 1);
    assert.equal(verified.version, 1);
    const settled = await viaWallet.settle(screenCrypto, meta(headers), verified);
    assert.deepEqual(Object.keys(settled.headers), ['X-PAYMENT-RESPONSE']);
    assert.deepEqual(decodePaymentResponseHeader(settled.headers['X-PAYMENT-RESPONSE']), {
      success: true,
      transaction: settled.transaction,
      network: 'base-sepolia',
      payer: payer.address,
    });
    assert.equal(await balance(merchant.address), m0 + PRICE);
  });

  test('a batch of 3 credits costs 3 × the price', async () => {
    const m0 = await balance(merchant.address);
    const headers = await payV2(viaWallet, payer, 3);
    const verified = await viaWallet.verify(screenCrypto, meta(headers), 3);
    assert.equal(verified.amount, 3n * PRICE);
    await viaWallet.settle(screenCrypto, meta(headers), verified);
    assert.equal(await balance(merchant.address), m0 + 3n * PRICE);
    await refused(viaWallet, headers, 'authorization already used, sign a fresh one', 3);
    await refused(viaWallet, headers, 'payment accepted amount 30000; the price of this request is 10000', 1);
  });

  test('refused: wrong amount', async () => {
    await refused(
      viaWallet,
      await craft(payer, { version: 1, value: PRICE - 1n }),
      'authorization amount 9999 is below the price 10000',
    );
    await refused(
      viaWallet,
      await craft(payer, { value: PRICE - 1n, accepted: { amount: '9999' } }),
      'payment accepted amount 9999; the price of this request is 10000',
    );
    // A v2 payment honest about the challenge but signing less than it.
    await refused(viaWallet, await craft(payer, { value: 1n }), 'authorization amount 1 is below the price 10000');
    // One credit's payment for a three-credit request.
    const one = await payV2(viaWallet, payer, 1);
    await assert.rejects(
      viaWallet.verify(screenCrypto, meta(one), 3),
      (e: HttpError) =>
        (e.toBody() as { error: string }).error === 'payment accepted amount 10000; the price of this request is 30000',
    );
  });

  test('refused: wrong payTo', async () => {
    await refused(
      viaWallet,
      await craft(payer, { version: 1, to: stranger.address }),
      `authorization pays ${stranger.address}, not this server's payTo ${merchant.address}`,
    );
    await refused(
      viaWallet,
      await craft(payer, { to: stranger.address, accepted: { payTo: stranger.address } }),
      `payment accepted payTo ${stranger.address}; this server's payTo is ${merchant.address}`,
    );
  });

  test('refused: wrong chain id', async () => {
    await refused(
      viaWallet,
      await craft(payer, { version: 1, chainId: 8453 }),
      `invalid signature: the authorization is not signed by ${payer.address} for Test USD v1 on chain 84532`,
    );
    await refused(
      viaWallet,
      await craft(payer, { version: 1, chainId: 8453, network: 'base' }),
      'payment is for network "base"; this server accepts "base-sepolia"',
    );
    await refused(
      viaWallet,
      await craft(payer, { chainId: 1, accepted: { network: 'eip155:1' } }),
      'payment is for network "eip155:1"; this server accepts "eip155:84532"',
    );
  });

  test('refused: expired, not yet valid, and longer than the 300 s timeout', async () => {
    await refused(
      viaWallet,
      await craft(payer, { validBefore: BigInt(nowS() - 1) }),
      'authorization has expired (validBefore has passed or is too close to settle)',
    );
    await refused(
      viaWallet,
      await craft(payer, { version: 1, validAfter: BigInt(nowS() + 120), validBefore: BigInt(nowS() + 300) }),
      'authorization is not yet valid (validAfter is in the future)',
    );
    await refused(
      viaWallet,
      await craft(payer, { validBefore: BigInt(nowS() + 3600) }),
      'authorization is valid for longer than the 300 s payment timeout',
    );
  });

  test('refused: bad signature', async () => {
    const reason = `invalid signature: the authorization is not signed by ${payer.address} for Test USD v1 on chain 84532`;
    await refused(viaWallet, await craft(payer, { signer: stranger }), reason);
    const good = JSON.parse(Buffer.from((await craft(payer, { version: 1 }))['x-payment'], 'base64').toString());
    good.payload.signature = `${good.payload.signature.slice(0, 10)}${good.payload.signature[10] === 'a' ? 'b' : 'a'}${good.payload.signature.slice(11)}`;
    await refused(viaWallet, { 'x-payment': Buffer.from(JSON.stringify(good)).toString('base64') }, reason);
  });

  test('refused: a v2 payment that does not echo the offered extensions, or names another resource', async () => {
    const payload = JSON.parse(Buffer.from((await payV2(viaWallet, payer))['payment-signature'], 'base64').toString());
    const noEcho = { ...payload, extensions: undefined };
    await refused(
      viaWallet,
      { 'payment-signature': encodePaymentSignatureHeader(noEcho) },
      'payment does not echo the extensions block of the challenge',
    );
    const altered = structuredClone(payload);
    altered.extensions.bazaar.info.input.method = 'DELETE';
    await refused(
      viaWallet,
      { 'payment-signature': encodePaymentSignatureHeader(altered) },
      'payment does not echo the extensions block of the challenge',
    );
    const elsewhere = {
      ...payload,
      resource: { ...payload.resource, url: 'http://127.0.0.1/api/v1/screen/email/a@b.c' },
    };
    await refused(
      viaWallet,
      { 'payment-signature': encodePaymentSignatureHeader(elsewhere) },
      'payment was made for another resource; repeat the identical request',
    );
  });

  test('N concurrent copies of one authorization: exactly one proceeds, one transfer', async () => {
    const [p0, m0] = [await balance(payer2.address), await balance(merchant.address)];
    const headers = await payV2(viaWallet, payer2);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => viaWallet.verify(screenCrypto, meta(headers), 1)),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<VerifiedPayment> => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const r of results) {
      if (r.status === 'rejected') {
        assert.equal((r.reason as HttpError).status, 402);
        assert.equal(
          ((r.reason as HttpError).toBody() as { error: string }).error,
          'authorization is already being used by another request, sign a fresh one',
        );
      }
    }
    // Settling the winner twice still moves the money once.
    const settles = await Promise.allSettled([
      viaWallet.settle(screenCrypto, meta(headers), won[0].value),
      viaWallet.settle(screenCrypto, meta(headers), won[0].value),
    ]);
    assert.deepEqual(settles.map((s) => s.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(await balance(payer2.address), p0 - PRICE);
    assert.equal(await balance(merchant.address), m0 + PRICE);
  });

  test('two nodes sharing PostgreSQL (PGlite): concurrent copies across nodes settle once', async () => {
    const db = new PGlite();
    try {
      await db.exec(
        readFileSync(new URL('../../../src/store/migrations/010_x402_nonces.sql', import.meta.url), 'utf8'),
      );
      const cfg = paymentsConfig({ X402_RPC_URL: chain.rpcUrl, X402_SETTLER_PRIVATE_KEY: keyOf(settler) });
      const nodes = [0, 1].map(() => createPayments({ config: cfg, db, log, chainPollingMs: 50 }));
      const [p0, m0] = [await balance(payer2.address), await balance(merchant.address)];
      const headers = await payV1(nodes[0], payer2);
      const results = await Promise.allSettled(
        [0, 1, 0, 1].map((i) => nodes[i].verify(screenCrypto, meta(headers), 1)),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const winner = results.findIndex((r) => r.status === 'fulfilled');
      const verified = (results[winner] as PromiseFulfilledResult<VerifiedPayment>).value;
      await nodes[[0, 1, 0, 1][winner]].settle(screenCrypto, meta(headers), verified);
      const { rows } = await db.query<{ state: string; transaction: string }>(
        'SELECT state, transaction FROM x402_nonces',
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0].state, 'settled');
      assert.match(rows[0].transaction, /^0x[0-9a-f]{64}$/);
      assert.equal(await balance(payer2.address), p0 - PRICE);
      assert.equal(await balance(merchant.address), m0 + PRICE);
      await refused(nodes[1 - [0, 1, 0, 1][winner]], headers, 'authorization already used or in use, sign a fresh one');
    } finally {
      await db.close();
    }
  });

  test('a failed request releases the authorization: nothing moves and it stays usable', async () => {
    const [p0, m0] = [await balance(payer.address), await balance(merchant.address)];
    const headers = await payV1(viaWallet, payer);
    viaWallet.release(await viaWallet.verify(screenCrypto, meta(headers), 1));
    await new Promise((r) => setImmediate(r));
    assert.equal(await balance(payer.address), p0);
    const again = await viaWallet.verify(screenCrypto, meta(headers), 1);
    await viaWallet.settle(screenCrypto, meta(headers), again);
    assert.equal(await balance(merchant.address), m0 + PRICE);
  });

  test('settlement failure (payer drained between verify and settle): fresh 402, no transfer, authorization usable after refunding', async () => {
    await tokenCall(chain.accounts[0], 'mint', [drained.address, PRICE]);
    const m0 = await balance(merchant.address);
    const headers = await payV2(viaWallet, drained);
    const verified = await viaWallet.verify(screenCrypto, meta(headers), 1);
    await tokenCall(drained, 'transfer', [stranger.address, PRICE]);
    await assert.rejects(viaWallet.settle(screenCrypto, meta(headers), verified), (e: HttpError) => {
      assert.equal(e.status, 402);
      assert.equal(
        (e.toBody() as { error: string }).error,
        "payment settlement failed: the payer's token balance is insufficient for the authorized transfer; the response was withheld and nothing was charged",
      );
      assert.ok(e.headers['PAYMENT-REQUIRED']);
      return true;
    });
    assert.equal(await balance(merchant.address), m0);
    assert.equal(await balance(drained.address), 0n);
    await refused(viaWallet, headers, "the payer's token balance is insufficient for the authorized transfer");
    await tokenCall(stranger, 'transfer', [drained.address, PRICE]);
    await viaWallet.settle(screenCrypto, meta(headers), await viaWallet.verify(screenCrypto, meta(headers), 1));
    assert.equal(await balance(merchant.address), m0 + PRICE);
    assert.equal(await balance(drained.address), 0n);
  });
});

describe('settlement through an x402 facilitator over HTTP', () => {
  test('v2 and v1 payments settle through /settle, verified by /verify', async () => {
    const m0 = await balance(merchant.address);
    const calls0 = { ...facilitator.calls };
    for (const headers of [await payV2(viaFacilitator, payer), await payV1(viaFacilitator, payer)]) {
      const verified = await viaFacilitator.verify(screenCrypto, meta(headers), 1);
      const settled = await viaFacilitator.settle(screenCrypto, meta(headers), verified);
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
      assert.equal(receipt.from.toLowerCase(), facilitator.address.toLowerCase());
      const [name, value] = Object.entries(settled.headers)[0];
      assert.deepEqual(decodePaymentResponseHeader(value), {
        success: true,
        transaction: settled.transaction,
        network: name === 'PAYMENT-RESPONSE' ? 'eip155:84532' : 'base-sepolia',
        payer: payer.address,
      });
      await refused(viaFacilitator, headers, 'authorization already used, sign a fresh one');
    }
    assert.deepEqual(
      { verify: facilitator.calls.verify - calls0.verify, settle: facilitator.calls.settle - calls0.settle },
      { verify: 2, settle: 2 },
    );
    assert.equal(await balance(merchant.address), m0 + 2n * PRICE);
  });

  test('the facilitator refuses what the chain would refuse; a drained payer fails settlement with a fresh 402', async () => {
    await tokenCall(chain.accounts[0], 'mint', [drained.address, PRICE]);
    const m0 = await balance(merchant.address);
    const headers = await payV2(viaFacilitator, drained);
    const verified = await viaFacilitator.verify(screenCrypto, meta(headers), 1);
    await tokenCall(drained, 'transfer', [stranger.address, PRICE]);
    await assert.rejects(viaFacilitator.settle(screenCrypto, meta(headers), verified), (e: HttpError) => {
      assert.equal(e.status, 402);
      assert.equal(
        (e.toBody() as { error: string }).error,
        'payment settlement failed: facilitator settlement failed (invalid_exact_evm_insufficient_balance); the response was withheld and nothing was charged',
      );
      return true;
    });
    assert.equal(await balance(merchant.address), m0);
    await refused(
      viaFacilitator,
      headers,
      'the payment facilitator refused the payment (invalid_exact_evm_transaction_simulation_failed)',
    );
    await tokenCall(stranger, 'transfer', [drained.address, PRICE]);
  });
});

/**
 * The pipeline's payment steps over real HTTP, as the gate and the server run them: no payment →
 * challenge; payment → verify, produce the response, settle, send it with the receipt.
 */
async function serve(payments: Payments): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`;
    const m = meta(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), url);
    (async () => {
      if (!payments.hasPayment(m)) throw payments.challenge(screenCrypto, m, { error: 'payment required', credits: 1 });
      const verified = await payments.verify(screenCrypto, m, 1);
      const body = JSON.stringify({ value: req.url!.split('/').pop(), flagged: false });
      const settled = await payments.settle(screenCrypto, m, verified);
      res.writeHead(200, { 'content-type': 'application/json', ...settled.headers }).end(body);
    })().catch((e: unknown) => {
      const err = e instanceof HttpError ? e : new HttpError(500, String(e));
      res
        .writeHead(err.status, { 'content-type': 'application/json', ...err.headers })
        .end(JSON.stringify(err.toBody()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/screen/crypto/0xabc`, server };
}

describe('over HTTP', () => {
  for (const [name, payments] of [
    ['service wallet', () => viaWallet],
    ['facilitator', () => viaFacilitator],
  ] as const) {
    test(`@x402/fetch, unmodified, pays (v2), settled by the ${name}`, async () => {
      const { url, server } = await serve(payments());
      try {
        const m0 = await balance(merchant.address);
        const paidFetch = wrapFetchWithPayment(fetch, clientFor(payer2));
        const res = await paidFetch(url);
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { value: '0xabc', flagged: false });
        const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
        assert.equal(receipt.success, true);
        assert.equal(receipt.network, 'eip155:84532');
        assert.equal(receipt.payer, payer2.address);
        assert.equal(res.headers.get('X-PAYMENT-RESPONSE'), null);
        assert.equal(await balance(merchant.address), m0 + PRICE);
      } finally {
        server.close();
      }
    });
  }

  test('v1: a body-only challenge answered with X-PAYMENT', async () => {
    const { url, server } = await serve(viaFacilitator);
    try {
      const m0 = await balance(merchant.address);
      const challenge = await fetch(url);
      assert.equal(challenge.status, 402);
      const body = (await challenge.json()) as PaymentRequiredV1;
      assert.equal(body.x402Version, 1);
      assert.equal(body.accepts[0].resource, url);
      const payload = await clientFor(payer).createPaymentPayload(body as unknown as PaymentRequired);
      const res = await fetch(url, { headers: { 'X-PAYMENT': encodePaymentSignatureHeader(payload) } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('PAYMENT-RESPONSE'), null);
      const receipt = decodePaymentResponseHeader(res.headers.get('X-PAYMENT-RESPONSE')!);
      assert.deepEqual(
        { ...receipt, transaction: undefined },
        { success: true, network: 'base-sepolia', payer: payer.address, transaction: undefined },
      );
      assert.equal(await balance(merchant.address), m0 + PRICE);
    } finally {
      server.close();
    }
  });
});
