import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { RawResponse, type AnyEndpoint, type Caller, type RequestContext } from '../../src/core/endpoint.js';
import { accountEndpoints } from '../../src/api/endpoints/account.js';
import { adminEndpoints } from '../../src/api/endpoints/admin.js';
import { openAuditStore, type AuditStore } from '../../src/audit/store.js';
import { CustomerService } from '../../src/billing/customers.js';
import { QuotaManager } from '../../src/billing/quota.js';
import { PlanRequests } from '../../src/billing/plan-requests.js';
import { Engine } from '../../engine/engine.js';
import { LISTS } from '../../loaders/registry.js';
import { ListCatalog } from '../../src/lists/catalog.js';
import { EnsResolver } from '../../src/ens/resolver.js';
import { TokenService } from '../../src/billing/tokens.js';
import { loadConfig } from '../../src/config.js';
import { HttpError } from '../../src/core/errors.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { KINDS } from '../../src/core/kinds.js';
import { AlertStore } from '../../src/alerts/store.js';
import { SubjectStore } from '../../src/subjects/store.js';

// The handlers of the management API on PostgreSQL and chDB; input goes through each endpoint's
// own schema as the transports do.
const postgres = BACKENDS.find((b) => b.name === 'postgres')!;
const chdir = mkdtempSync(join(tmpdir(), 'mgmt-test-'));
const NOW = Date.parse('2025-06-15T12:00:00Z');
let audit: AuditStore;
let endpoints: Map<string, AnyEndpoint>;
let customers: CustomerService;
let tokens: TokenService;
let quota: QuotaManager;
let engine: Engine;

before(async () => {
  const { db } = await postgres.database();
  audit = await openAuditStore(loadConfig({ DATA_DIR: chdir }));
  customers = new CustomerService(db, 1000);
  tokens = new TokenService(db, { cacheSeconds: 5 });
  quota = new QuotaManager(db, { leaseSize: 5, now: () => NOW });
  // An engine without lists: a match's detail then finds no current listing.
  engine = await Engine.create({ shards: 1 });
  const screening = {
    engine,
    catalog: new ListCatalog(LISTS),
    ens: new EnsResolver({ rpcUrl: undefined, ttlSeconds: 60 }),
    kinds: KINDS,
  };
  const planRequests = new PlanRequests(db, customers);
  const alerts = new AlertStore(db, { decisions: audit.alertDecisions, log: pino({ level: 'silent' }) });
  endpoints = new Map(
    [
      ...accountEndpoints({
        tokens,
        quota,
        customers,
        planRequests,
        audit,
        screening,
        alerts,
        subjects: new SubjectStore(db, { maxPerCustomer: 10 }),
      }),
      ...adminEndpoints({ tokens, quota, customers }),
    ].map((e) => [e.id, e]),
  );
});
after(async () => {
  await quota.close();
  await engine.close();
  await audit.close();
  await closeBackends();
  rmSync(chdir, { recursive: true, force: true });
});

async function call(id: string, input: unknown, caller: Caller): Promise<unknown> {
  const ep = endpoints.get(id)!;
  const ctx: RequestContext = {
    meta: {
      requestId: 'r',
      transport: 'rest',
      method: ep.method,
      url: `http://127.0.0.1/api/v1${ep.path}`,
      clientIp: '127.0.0.1',
      headers: {},
    },
    log: pino({ level: 'silent' }),
    caller,
    now: () => NOW,
  };
  const out = await ep.handler(ep.input.parse(input), ctx);
  if (!(out instanceof RawResponse)) ep.output.parse(out);
  return out;
}

const admin: Caller = { kind: 'admin', via: 'key' };

describe('management API handlers', () => {
  test('admin: plans, customers, tokens; 404 and 409', async () => {
    const plan = (await call('admin.plans.create', { name: 'mgmt-pro', monthly_quota: 500 }, admin)) as { id: number };
    await assert.rejects(
      call('admin.plans.create', { name: 'mgmt-pro', monthly_quota: 1 }, admin),
      (e: HttpError) => e.status === 409,
    );
    const c = (await call('admin.customers.create', { name: 'Acme', plan_id: plan.id }, admin)) as Record<
      string,
      unknown
    >;
    assert.equal(c.plan, 'mgmt-pro');
    assert.equal(c.monthly_quota, 500);
    assert.equal(c.quota_override, null);
    const updated = (await call('admin.customers.update', { customer_id: c.id, monthly_quota: 20 }, admin)) as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      [updated.monthly_quota, updated.quota],
      [20, { month: '2025-06', monthly_quota: 20, used: 0, remaining: 20 }],
    );
    await assert.rejects(
      call('admin.customers.get', { customer_id: 999_999 }, admin),
      (e: HttpError) => e.status === 404,
    );
    await assert.rejects(
      call('admin.tokens.create', { customer_id: 999_999 }, admin),
      (e: HttpError) => e.status === 404,
    );
    const t = (await call('admin.tokens.create', { customer_id: c.id, name: 'ci' }, admin)) as {
      id: number;
      token: string;
      prefix: string;
    };
    assert.match(t.token, /^sk_[0-9A-Za-z]{32}$/);
    const listed = (await call('admin.tokens.list', { customer_id: c.id }, admin)) as Record<string, unknown>[];
    assert.deepEqual(
      listed.map((x) => [x.id, x.prefix, x.name, 'token' in x]),
      [[t.id, t.prefix, 'ci', false]],
    );
    const revoked = (await call('admin.tokens.revoke', { token_id: t.id }, admin)) as { revoked_at: string | null };
    assert.ok(revoked.revoked_at);
    assert.equal(await tokens.verify(t.token), null);
  });

  test('account: own tokens only, quota, usage, matches, trail and CSV', async () => {
    const c = await customers.createCustomer({ name: 'Dash', monthlyQuota: 10 });
    const other = await customers.createCustomer({ name: 'Other', monthlyQuota: 10 });
    const { record } = await tokens.create(c.id);
    const { record: foreign } = await tokens.create(other.id);
    const me: Caller = { kind: 'customer', customerId: c.id, tokenId: record.id };
    (await quota.reserve(c.id, 3))!.commit();
    assert.deepEqual(await call('account.get', {}, me), {
      customer_id: c.id,
      name: 'Dash',
      plan: null,
      quota: { month: '2025-06', monthly_quota: 10, used: 3, remaining: 7 },
      token: { id: record.id, name: null, prefix: record.prefix, scopes: ['screen', 'dashboard'] },
      four_eyes: false,
      name_threshold: 0.7,
    });
    assert.equal(((await call('account.update', { four_eyes: true }, me)) as { four_eyes: boolean }).four_eyes, true);
    assert.equal(((await call('account.get', {}, me)) as { four_eyes: boolean }).four_eyes, true);
    const threshold = (await call('account.update', { name_threshold: 0.85 }, me)) as Record<string, unknown>;
    assert.deepEqual([threshold.four_eyes, threshold.name_threshold, threshold.rescreen_job], [true, 0.85, null]);
    const created = (await call('account.tokens.create', { name: 'second' }, me)) as { id: number };
    assert.deepEqual(
      ((await call('account.tokens.list', {}, me)) as { id: number }[]).map((x) => x.id),
      [record.id, created.id],
    );
    await assert.rejects(
      call('account.tokens.revoke', { token_id: foreign.id }, me),
      (e: HttpError) => e.status === 404,
    );

    const t = Date.parse('2025-06-14T10:00:00Z');
    const row = (i: number, list: string) => ({
      time: t + i,
      customer_id: c.id,
      payer: '',
      request_id: `m${i}`,
      endpoint: 'screen.email',
      screened_value: `a${i}@x.io`,
      matched_value: `a${i}@x.io`,
      list,
      list_type: 'crime',
      match: 'exact',
      list_version: 'v1',
      as_of: null,
      evidence: {},
    });
    await audit.matches.write([row(1, 'phish'), row(2, 'phish'), row(3, 'disposable')]);
    await audit.usage.write(
      [1, 2, 3].map((i) => ({
        time: t + i,
        customer_id: c.id,
        payer: '',
        request_id: `m${i}`,
        endpoint: 'screen.email',
        status: 200,
        credits: 1,
        method: 'quota' as const,
        amount: '0',
        tx_hash: '',
        network: '',
      })),
    );
    assert.deepEqual(await call('account.usage', {}, me), [
      { day: '2025-06-14', endpoint: 'screen.email', requests: 3, credits: 3, paid_requests: 0 },
    ]);
    assert.deepEqual(await call('account.usage', { from: '2025-06-15' }, me), []);
    assert.deepEqual(await call('account.matches', { from: '2025-06-01', to: '2025-06-14' }, me), [
      { day: '2025-06-14', list: 'disposable', matches: 1, requests: 1 },
      { day: '2025-06-14', list: 'phish', matches: 2, requests: 2 },
    ]);
    const page = (await call('account.audit', { list: 'phish', limit: 1, offset: 1 }, me)) as {
      total: number;
      items: { request_id: string }[];
    };
    assert.deepEqual([page.total, page.items.map((i) => i.request_id)], [2, ['m1']]);
    const csv = (await call('account.auditCsv', { value: 'a3@x.io' }, me)) as RawResponse;
    assert.equal(csv.contentType, 'text/csv; charset=utf-8');
    assert.equal(
      [...(csv.body as Iterable<string>)].join(''),
      'time,request_id,endpoint,screened_value,matched_value,list,list_type,match,list_version,as_of\r\n' +
        '2025-06-14T10:00:00.003Z,m3,screen.email,a3@x.io,a3@x.io,disposable,crime,exact,v1,\r\n',
    );
    const otherCaller: Caller = { kind: 'customer', customerId: other.id, tokenId: foreign.id };
    assert.deepEqual(
      ((await call('account.audit', {}, otherCaller)) as { total: number }).total,
      0,
      "another customer's trail is empty",
    );
  });
});
