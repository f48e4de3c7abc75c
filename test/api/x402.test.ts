import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { wrapFetchWithPayment } from '@x402/fetch';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { pay, payerClient, startPaymentChain, PRICE, type PaymentChain } from '../support/payments.js';

/**
 * Pay-per-request against the real service over REST, on a local chain (84532) with an EIP-3009
 * token: the official @x402/fetch client pays unmodified (v2); a v1 client answers the body
 * challenge with X-PAYMENT; a replay is refused; a token with quota takes precedence; a failed
 * request settles nothing. (test/billing/x402 covers every refusal case on the payments module itself.)
 */
let pc: PaymentChain;
let svc: TestService;
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

before(async () => {
  pc = await startPaymentChain();
  svc = await startTestService(pc.env);
});
after(async () => {
  await svc?.close();
  await pc?.chain.stop();
});

async function usageRows(): Promise<
  { method: string; payer: string; amount: string; network: string; tx_hash: string; endpoint: string }[]
> {
  await svc.service.audit.usage.flush();
  return (await (
    await svc.service.audit.client.query({
      query:
        "SELECT method, payer, amount, network, tx_hash, endpoint FROM screening.usage WHERE method = 'x402' ORDER BY time",
      format: 'JSONEachRow',
    })
  ).json()) as never;
}

test('@x402/fetch pays the running server (v2): 200 with PAYMENT-RESPONSE, exactly the price moved, usage row with the transaction', async () => {
  const [p0, m0] = [await pc.balance(pc.payer.address), await pc.balance(pc.merchant.address)];
  const paidFetch = wrapFetchWithPayment(fetch, payerClient(pc.payer));
  const res = await paidFetch(`${svc.url}/api/v1/screen/crypto/${XBT}?lists=ofac_crypto`);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { sanctioned: boolean }).sanctioned, true);
  const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
  assert.equal(receipt.success, true);
  assert.equal(receipt.network, 'eip155:84532');
  assert.equal(receipt.payer?.toLowerCase(), pc.payer.address.toLowerCase());
  assert.equal(await pc.balance(pc.payer.address), p0 - PRICE);
  assert.equal(await pc.balance(pc.merchant.address), m0 + PRICE);
  const rows = await usageRows();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].tx_hash, receipt.transaction);
  assert.equal(String(rows[0].amount), String(PRICE));
  assert.equal(rows[0].endpoint, 'screen.crypto');
});

test('v1: the body challenge answered with X-PAYMENT; the same header replayed is a 402 asking for a fresh authorization', async () => {
  const url = `${svc.url}/api/v1/screen/country/Iran`;
  const challenge = await fetch(url);
  assert.equal(challenge.status, 402);
  const body = (await challenge.json()) as {
    x402Version: number;
    accepts: { network: string; maxAmountRequired: string; resource: string }[];
  };
  assert.equal(body.x402Version, 1);
  assert.equal(body.accepts[0].network, 'base-sepolia');
  assert.equal(body.accepts[0].maxAmountRequired, '10000');
  assert.equal(body.accepts[0].resource, url);
  const header = Buffer.from(JSON.stringify(await pay(pc.payer, body))).toString('base64');
  const m0 = await pc.balance(pc.merchant.address);
  const paid = await fetch(url, { headers: { 'X-PAYMENT': header } });
  assert.equal(paid.status, 200);
  const receipt = JSON.parse(Buffer.from(paid.headers.get('X-PAYMENT-RESPONSE')!, 'base64').toString('utf8')) as {
    success: boolean;
    network: string;
  };
  assert.deepEqual([receipt.success, receipt.network], [true, 'base-sepolia']);
  assert.equal(await pc.balance(pc.merchant.address), m0 + PRICE);
  const replay = await fetch(url, { headers: { 'X-PAYMENT': header } });
  assert.equal(replay.status, 402);
  assert.match(((await replay.json()) as { error: string }).error, /already used/);
  assert.equal(await pc.balance(pc.merchant.address), m0 + PRICE);
});

test('a token with quota takes precedence over a payment header; a failed request settles nothing', async () => {
  const { token } = await createCustomerToken(svc.url, 10);
  const url = `${svc.url}/api/v1/screen/country/Cuba`;
  const body = await (await fetch(url)).json();
  const header = Buffer.from(JSON.stringify(await pay(pc.payer, body))).toString('base64');
  const p0 = await pc.balance(pc.payer.address);
  const withToken = await fetch(url, { headers: { 'X-PAYMENT': header, authorization: `Bearer ${token}` } });
  assert.equal(withToken.status, 200);
  assert.equal(withToken.headers.get('X-PAYMENT-RESPONSE'), null);
  assert.equal(await pc.balance(pc.payer.address), p0);

  const failing = `${svc.url}/api/v1/screen/country/Cuba?lists=eu_fsf`;
  const failBody = await (await fetch(failing)).json();
  const failHeader = Buffer.from(JSON.stringify(await pay(pc.payer, failBody))).toString('base64');
  const failed = await fetch(failing, { headers: { 'X-PAYMENT': failHeader } });
  assert.equal(failed.status, 503);
  assert.equal(await pc.balance(pc.payer.address), p0);
});
