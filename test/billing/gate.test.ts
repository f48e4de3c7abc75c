import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { endpoint, type AnyEndpoint, type RequestMeta } from '../../src/core/endpoint.js';
import { openAuditStore, type AuditStore } from '../../src/audit/store.js';
import { CustomerService } from '../../src/billing/customers.js';
import { createGate } from '../../src/billing/gate.js';
import { QuotaManager } from '../../src/billing/quota.js';
import { TokenService } from '../../src/billing/tokens.js';
import { loadConfig } from '../../src/config.js';
import type { Gate } from '../../src/core/gate.js';
import { execute, type PipelineDeps } from '../../src/core/pipeline.js';
import pino from 'pino';
import type { ChallengeOptions, Payments, VerifiedPayment } from '../../src/core/payments.js';
import { HttpError } from '../../src/core/errors.js';
import { BACKENDS, closeBackends } from '../store/backends.js';

/**
 * A small x402 stand-in for this test only (the real one is src/billing/x402): the payment
 * header is JSON `{"payer": "...", "ok": true|false}`; settlement returns a made-up hash.
 */
class TestPayments implements Payments {
  challenges: ChallengeOptions[] = [];
  verified = 0;
  settled = 0;
  released = 0;
  challenge(ep: AnyEndpoint, meta: RequestMeta, opts: ChallengeOptions): HttpError {
    this.challenges.push(opts);
    const options: unknown[] = [{ type: 'pay_per_request', price: String(10_000 * opts.credits) }];
    if (opts.quotaExhausted) options.push({ type: 'upgrade_plan', url: 'https://example.com/upgrade' });
    return new HttpError(402, opts.error, {}, { x402Version: 1, error: opts.error, accepts: [], options });
  }
  hasPayment(meta: RequestMeta): boolean {
    return meta.headers['x-payment'] !== undefined;
  }
  async verify(ep: AnyEndpoint, meta: RequestMeta, credits: number): Promise<VerifiedPayment> {
    const p = JSON.parse(meta.headers['x-payment'] as string) as { payer: string; ok: boolean };
    if (!p.ok)
      throw new HttpError(402, 'invalid payment', {}, { x402Version: 1, error: 'invalid payment', accepts: [] });
    this.verified++;
    return {
      version: 1,
      payer: p.payer,
      amount: BigInt(10_000 * credits),
      network: 'base',
      nonce: `n${this.verified}`,
    };
  }
  async settle(ep: AnyEndpoint, meta: RequestMeta, payment: VerifiedPayment) {
    this.settled++;
    const transaction = `0x${'ab'.repeat(32)}`;
    return {
      transaction,
      network: payment.network,
      payer: payment.payer,
      amount: payment.amount,
      headers: { 'X-PAYMENT-RESPONSE': 'receipt' },
    };
  }
  release(): void {
    this.released++;
  }
}

const screen = endpoint({
  id: 'screen.test',
  method: 'GET',
  path: '/screen/test/{value}',
  tags: ['test'],
  summary: 'test',
  access: 'metered',
  input: z.object({ value: z.string() }),
  output: z.object({ ok: z.boolean() }),
  handler: () => ({ ok: true }),
});
const batch = endpoint({
  id: 'screen.batch',
  method: 'POST',
  path: '/screen/batch',
  tags: ['test'],
  summary: 'batch',
  access: 'metered',
  input: z.object({ items: z.array(z.string()) }),
  output: z.object({ ok: z.boolean() }),
  credits: (input) => input.items.length,
  handler: () => ({ ok: true }),
});
const account = endpoint({
  id: 'account.me',
  method: 'GET',
  path: '/account/me',
  tags: ['account'],
  summary: 'me',
  access: 'account',
  input: z.object({}),
  output: z.object({}),
  handler: () => ({}),
});
const admin = endpoint({
  id: 'admin.x',
  method: 'GET',
  path: '/admin/x',
  tags: ['admin'],
  summary: 'x',
  access: 'admin',
  input: z.object({}),
  output: z.object({}),
  handler: () => ({}),
});

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const chdir = mkdtempSync(join(tmpdir(), 'gate-test-'));
let audit: AuditStore;
before(async () => {
  audit = await openAuditStore(loadConfig({ DATA_DIR: chdir, AUDIT_FLUSH_MS: '50' }));
});
after(async () => {
  await audit.close();
  await closeBackends();
  rmSync(chdir, { recursive: true, force: true });
});

let seq = 0;
function meta(headers: Record<string, string | undefined>, requestId = `req-${++seq}`): RequestMeta {
  return {
    requestId,
    transport: 'rest',
    method: 'GET',
    url: 'http://127.0.0.1/api/v1/screen/test/x',
    clientIp: '127.0.0.1',
    headers,
  };
}

/** The HttpError a refused step rejects with: refusals are rejected promises, never synchronous throws or answers. */
async function rejection(p: unknown): Promise<HttpError> {
  assert.ok(p instanceof Promise, 'a refusal must be a rejected promise');
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof HttpError, String(err));
    return err;
  }
  assert.fail('expected an HttpError');
}

async function rows(table: string, requestId: string): Promise<Record<string, unknown>[]> {
  const rs = await audit.client.query({
    query: `SELECT * EXCEPT time FROM screening.${table} WHERE request_id = {r:String} ORDER BY ALL`,
    query_params: { r: requestId },
    format: 'JSONEachRow',
  });
  return rs.json();
}

for (const backend of BACKENDS) {
  describe(`gate on ${backend.name}`, () => {
    let gate: Gate;
    let lenient: Gate;
    let payments: TestPayments;
    let tokens: TokenService;
    let quota: QuotaManager;
    let customers: CustomerService;

    before(async () => {
      const { db } = await backend.database();
      customers = new CustomerService(db, 1000);
      tokens = new TokenService(db, { cacheSeconds: 5 });
      quota = new QuotaManager(db, { leaseSize: 2 });
      payments = new TestPayments();
      const deps = {
        tokens,
        quota,
        payments,
        audit: audit.matches,
        usage: audit.usage,
        settlements: audit.settlements,
      };
      gate = createGate({ ...deps, config: { ADMIN_KEY, AUDIT_STRICT: true } });
      lenient = createGate({ ...deps, config: { ADMIN_KEY: undefined, AUDIT_STRICT: false } });
    });
    after(async () => {
      await quota.close();
      await tokens.close();
    });

    async function customerToken(
      monthlyQuota: number,
    ): Promise<{ customerId: number; token: string; tokenId: number }> {
      const c = await customers.createCustomer({ name: `gate-${seq}`, monthlyQuota });
      const { token, record } = await tokens.create(c.id);
      return { customerId: c.id, token, tokenId: record.id };
    }

    test("no credentials: 402 challenge for the request's credits", async () => {
      const err = await rejection(gate.authorize(screen, { value: 'x' }, meta({})));
      assert.equal(err.status, 402);
      assert.deepEqual(err.toBody(), {
        x402Version: 1,
        error: 'X-PAYMENT header is required',
        accepts: [],
        options: [{ type: 'pay_per_request', price: '10000' }],
      });
    });

    test('an invalid, malformed or revoked token is 401 with WWW-Authenticate, even beside a payment header', async () => {
      const pay = JSON.stringify({ payer: '0xp', ok: true });
      const { token, tokenId, customerId } = await customerToken(10);
      await tokens.revoke(tokenId, customerId);
      for (const authorization of [
        'Bearer sk_00000000000000000000000000000000',
        'Basic abc',
        'Bearer',
        `Bearer ${token}`,
      ]) {
        const err = await rejection(gate.authorize(screen, { value: 'x' }, meta({ authorization, 'x-payment': pay })));
        assert.equal(err.status, 401, authorization);
        assert.deepEqual(err.toBody(), { detail: 'Invalid or revoked API token' });
        assert.deepEqual(err.headers, { 'WWW-Authenticate': 'Bearer' });
      }
      assert.equal(payments.verified, 0);
    });

    test('every spelling of a bearer credential is read alike: the usual one, other whitespace and case, a token cut short', async () => {
      const { token, customerId, tokenId } = await customerToken(10);
      for (const authorization of [
        `Bearer ${token}`,
        `bearer ${token}`,
        `Bearer  ${token}`,
        `Bearer\t${token}`,
        `Bearer ${token} \t`,
        `BEARER ${token}`,
      ]) {
        const charge = await gate.authorize(screen, { value: 'x' }, meta({ authorization }));
        assert.deepEqual(charge.caller, { kind: 'customer', customerId, tokenId }, JSON.stringify(authorization));
        charge.release({ status: 400 });
      }
      // As long as the usual spelling, but not a token: a space in it, or before it.
      for (const authorization of [
        `Bearer ${token.slice(0, -1)} `,
        `Bearer  ${token.slice(0, -1)}`,
        `Bearer ${token.slice(0, 10)} ${token.slice(11)}`,
      ]) {
        assert.equal(authorization.length, `Bearer ${token}`.length);
        assert.equal(
          (await rejection(gate.authorize(screen, { value: 'x' }, meta({ authorization })))).status,
          401,
          JSON.stringify(authorization),
        );
      }
    });

    test('a token under quota pays with one credit; a payment header beside it is ignored; usage and audit rows are exact', async () => {
      const { token, customerId, tokenId } = await customerToken(10);
      const m = meta({ authorization: `Bearer ${token}`, 'x-payment': JSON.stringify({ payer: '0xp', ok: true }) });
      const before = payments.verified;
      const charge = await gate.authorize(screen, { value: 'x' }, m);
      assert.deepEqual(charge.caller, { kind: 'customer', customerId, tokenId });
      const audited = [
        {
          screened_value: '0xabc',
          matched_value: '0xABC',
          list: 'ofac_sdn',
          list_type: 'sanctions' as const,
          match: 'exact',
          list_version: 'v1',
          as_of: null,
          evidence: {},
        },
        {
          screened_value: '0xabc',
          matched_value: '0xABC',
          list: 'crypto_scam',
          list_type: 'crime' as const,
          match: 'exact',
          list_version: 'v2',
          as_of: null,
          evidence: {},
        },
      ];
      assert.deepEqual(await charge.commit({ status: 200, audit: audited }), { headers: {} });
      assert.equal(payments.verified, before, 'no payment taken');
      assert.deepEqual(await rows('usage', m.requestId), [
        {
          customer_id: customerId,
          payer: '',
          request_id: m.requestId,
          endpoint: 'screen.test',
          status: 200,
          credits: 1,
          method: 'quota',
          amount: 0,
          tx_hash: '',
          network: '',
        },
      ]);
      const matches = await rows('audit_matches', m.requestId);
      assert.deepEqual(
        matches.map((r) => [
          r.customer_id,
          r.list,
          r.list_type,
          r.screened_value,
          r.matched_value,
          r.match,
          r.endpoint,
        ]),
        [
          [customerId, 'crypto_scam', 'crime', '0xabc', '0xABC', 'exact', 'screen.test'],
          [customerId, 'ofac_sdn', 'sanctions', '0xabc', '0xABC', 'exact', 'screen.test'],
        ],
      );
      assert.equal((await quota.status(customerId))?.used, 1);
    });

    test('a failed request costs nothing and writes no usage', async () => {
      const { token, customerId } = await customerToken(1);
      const m = meta({ authorization: `Bearer ${token}` });
      (await gate.authorize(screen, { value: 'x' }, m)).release({ status: 500 });
      assert.equal((await quota.status(customerId))?.used, 0);
      const ok = await gate.authorize(screen, { value: 'x' }, meta({ authorization: `Bearer ${token}` }));
      await ok.commit({ status: 200, audit: [] });
      assert.deepEqual(await rows('usage', m.requestId), []);
      assert.equal((await quota.status(customerId))?.used, 1);
    });

    test('through the pipeline: a handler or audit step that throws costs nothing; a warm request completes without a promise', async () => {
      const { token, customerId } = await customerToken(2);
      const deps: PipelineDeps = { gate: lenient, log: pino({ level: 'silent' }), now: Date.now, validateOutput: true };
      const throwing = endpoint({
        ...screen,
        id: 'screen.throwing',
        handler: () => {
          throw new HttpError(503, 'upstream down');
        },
      });
      const badAudit = endpoint({
        ...screen,
        id: 'screen.bad-audit',
        audit: () => {
          throw new Error('audit bug');
        },
      });
      const auth = { authorization: `Bearer ${token}` };
      assert.equal((await rejection(execute(throwing, { value: 'x' }, meta(auth), deps))).status, 503);
      await assert.rejects(
        Promise.resolve().then(() => execute(badAudit, { value: 'x' }, meta(auth), deps)),
        /audit bug/,
      );
      // Both credits are still there: the token is cached and a lease is held, so this runs synchronously.
      const warm = execute(screen, { value: 'x' }, meta(auth), deps);
      assert.ok(!(warm instanceof Promise), 'a cached token with leased quota should not need a promise');
      assert.equal(warm.status, 200);
      assert.equal((await execute(screen, { value: 'x' }, meta(auth), deps)).status, 200);
      assert.equal((await rejection(execute(screen, { value: 'x' }, meta(auth), deps))).status, 402);
      await quota.flush();
      assert.equal((await quota.status(customerId))?.used, 2);
    });

    test('exhausted quota: 402 with pay-per-request and upgrade options; with a payment header, x402 pays', async () => {
      const { token, customerId, tokenId } = await customerToken(1);
      await (
        await gate.authorize(screen, { value: 'x' }, meta({ authorization: `Bearer ${token}` }))
      ).commit({ status: 200, audit: [] });
      const err = await rejection(gate.authorize(screen, { value: 'x' }, meta({ authorization: `Bearer ${token}` })));
      assert.equal(err.status, 402);
      assert.deepEqual(err.toBody(), {
        x402Version: 1,
        error: 'Monthly quota exhausted',
        accepts: [],
        options: [
          { type: 'pay_per_request', price: '10000' },
          { type: 'upgrade_plan', url: 'https://example.com/upgrade' },
        ],
      });
      const m = meta({ authorization: `Bearer ${token}`, 'x-payment': JSON.stringify({ payer: '0xpayer', ok: true }) });
      const charge = await gate.authorize(screen, { value: 'x' }, m);
      assert.deepEqual(charge.caller, { kind: 'customer', customerId, tokenId });
      assert.deepEqual(await charge.commit({ status: 200, audit: [] }), {
        headers: { 'X-PAYMENT-RESPONSE': 'receipt' },
      });
      const tx = `0x${'ab'.repeat(32)}`;
      assert.deepEqual(await rows('usage', m.requestId), [
        {
          customer_id: customerId,
          payer: '0xpayer',
          request_id: m.requestId,
          endpoint: 'screen.test',
          status: 200,
          credits: 1,
          method: 'x402',
          amount: 10000,
          tx_hash: tx,
          network: 'base',
        },
      ]);
      assert.deepEqual(await rows('x402_settlements', m.requestId), [
        {
          request_id: m.requestId,
          customer_id: customerId,
          payer: '0xpayer',
          endpoint: 'screen.test',
          network: 'base',
          x402_version: 1,
          amount: 10000,
          tx_hash: tx,
        },
      ]);
    });

    test('without a token, a payment is verified, settled on commit, and released on failure', async () => {
      const pay = JSON.stringify({ payer: '0xanon', ok: true });
      const charge = await gate.authorize(screen, { value: 'x' }, meta({ 'x-payment': pay }));
      assert.deepEqual(charge.caller, { kind: 'payer', address: '0xanon' });
      const released = payments.released;
      const settled = payments.settled;
      charge.release({ status: 502 });
      assert.equal(payments.released, released + 1);
      assert.equal(payments.settled, settled);
      const bad = await rejection(
        gate.authorize(screen, { value: 'x' }, meta({ 'x-payment': JSON.stringify({ payer: '0xanon', ok: false }) })),
      );
      assert.equal(bad.status, 402);
    });

    test('a payment whose answer can no longer be delivered (client gone, shutdown deadline) is not settled', async () => {
      const m = meta({ 'x-payment': JSON.stringify({ payer: '0xgone', ok: true }) });
      const charge = await gate.authorize(screen, { value: 'x' }, m);
      let gone = false;
      m.gone = () => gone;
      gone = true;
      const settled = payments.settled;
      const released = payments.released;
      const err = await rejection(charge.commit({ status: 200, audit: [] }));
      assert.equal(err.status, 503);
      assert.equal(payments.settled, settled);
      assert.equal(payments.released, released + 1);
      assert.deepEqual(await rows('usage', m.requestId), []);
    });

    test('a streamed answer cut off is charged only the credits it delivered; the rest goes back to the quota', async () => {
      const { token, customerId } = await customerToken(10);
      const m = meta({ authorization: `Bearer ${token}` });
      const charge = await gate.authorize(batch, { items: ['a', 'b', 'c', 'd', 'e', 'f'] }, m);
      assert.equal(charge.settlesBeforeAnswer, false);
      await charge.commit({ status: 200, audit: [], credits: 2 });
      assert.equal((await rows('usage', m.requestId))[0].credits, 2);
      assert.equal((await quota.status(customerId))?.used, 2);
      await (
        await gate.authorize(
          batch,
          { items: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] },
          meta({ authorization: `Bearer ${token}` }),
        )
      ).commit({ status: 200, audit: [] });
      assert.equal((await quota.status(customerId))?.used, 10, 'the 4 credits not delivered were given back');
    });

    test('a batch of N costs N credits and is refused whole when fewer remain', async () => {
      const { token, customerId } = await customerToken(5);
      const auth = { authorization: `Bearer ${token}` };
      const err = await rejection(gate.authorize(batch, { items: ['a', 'b', 'c', 'd', 'e', 'f'] }, meta(auth)));
      assert.equal(err.status, 402);
      assert.deepEqual(payments.challenges.at(-1), {
        error: 'Monthly quota exhausted',
        credits: 6,
        quotaExhausted: true,
      });
      const m = meta(auth);
      await (await gate.authorize(batch, { items: ['a', 'b', 'c', 'd'] }, m)).commit({ status: 200, audit: [] });
      assert.equal((await rows('usage', m.requestId))[0].credits, 4);
      assert.equal((await rejection(gate.authorize(batch, { items: ['a', 'b'] }, meta(auth)))).status, 402);
      await (await gate.authorize(screen, { value: 'x' }, meta(auth))).commit({ status: 200, audit: [] });
      assert.equal((await quota.status(customerId))?.used, 5);
    });

    test('account endpoints need a token and cost nothing; admin endpoints need ADMIN_KEY', async () => {
      const { token, customerId, tokenId } = await customerToken(0);
      assert.equal((await rejection(gate.authorize(account, {}, meta({})))).status, 401);
      assert.deepEqual((await gate.authorize(account, {}, meta({ authorization: `Bearer ${token}` }))).caller, {
        kind: 'customer',
        customerId,
        tokenId,
      });
      const noKey = await rejection(lenient.authorize(admin, {}, meta({ authorization: `Bearer ${ADMIN_KEY}` })));
      assert.deepEqual([noKey.status, noKey.toBody()], [503, { detail: 'admin API disabled' }]);
      assert.equal(
        (await rejection(gate.authorize(admin, {}, meta({ authorization: 'Bearer wrong-key-wrong-key' })))).status,
        401,
      );
      assert.equal(
        (await rejection(gate.authorize(admin, {}, meta({ authorization: `Bearer ${token}` })))).status,
        401,
      );
      assert.deepEqual((await gate.authorize(admin, {}, meta({ authorization: `Bearer ${ADMIN_KEY}` }))).caller, {
        kind: 'admin',
        via: 'key',
      });
    });

    test('default mode buffers the rows and writes them within AUDIT_FLUSH_MS', async () => {
      const { token } = await customerToken(10);
      const m = meta({ authorization: `Bearer ${token}` });
      const charge = await lenient.authorize(screen, { value: 'x' }, m);
      await charge.commit({
        status: 200,
        audit: [
          {
            screened_value: 'v',
            matched_value: 'V',
            list: 'l',
            list_type: 'risk',
            match: 'exact',
            list_version: 'v1',
            as_of: null,
            evidence: {},
          },
        ],
      });
      // Each table has its own writer and timer: wait for both, not for the first to land.
      const t0 = Date.now();
      const counts = async () => [
        (await rows('audit_matches', m.requestId)).length,
        (await rows('usage', m.requestId)).length,
      ];
      let seen = await counts();
      while (seen.includes(0)) {
        assert.ok(Date.now() - t0 < 5000, `rows not written: ${seen.join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
        seen = await counts();
      }
      assert.deepEqual(seen, [1, 1]);
    });
  });
}
