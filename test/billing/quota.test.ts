import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CustomerService } from '../../src/billing/customers.js';
import { LEASE_GROWTH_MAX, QuotaManager, monthOf, type Reservation } from '../../src/billing/quota.js';
import type { Db } from '../../src/store/db.js';
import type { UsageRow } from '../../src/audit/rows.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';

after(closeBackends);
const audit = fileAuditStore('quota-audit-');

async function take(q: QuotaManager, customerId: number, credits: number): Promise<Reservation | null> {
  return q.reserve(customerId, credits);
}

/** Reserves and commits one credit at a time until refused; returns how many were granted. */
async function drain(q: QuotaManager, customerId: number): Promise<number> {
  let n = 0;
  for (;;) {
    const r = await take(q, customerId, 1);
    if (!r) return n;
    r.commit();
    n++;
  }
}

async function usedInDb(
  db: Db,
  customerId: number,
  month: string,
): Promise<{ used: number; leased: number } | undefined> {
  const { rows } = await db.query<{ used: number; leased: number }>(
    'SELECT used, leased FROM quota_usage WHERE customer_id = $1 AND month = $2',
    [customerId, month],
  );
  return rows[0];
}

test('monthOf: the UTC calendar month, also when asked across boundaries in any order (it keeps its last answer)', () => {
  const ms = (iso: string) => Date.parse(iso);
  const cases: [string, string][] = [
    ['2026-01-31T23:59:59.999Z', '2026-01'],
    ['2026-02-01T00:00:00.000Z', '2026-02'],
    ['2026-01-31T23:59:59.999Z', '2026-01'],
    ['2026-02-28T23:59:59.999Z', '2026-02'],
    ['2026-03-01T00:00:00.000Z', '2026-03'],
    ['2028-02-29T12:00:00.000Z', '2028-02'],
    ['2026-12-31T23:59:59.999Z', '2026-12'],
    ['2027-01-01T00:00:00.000Z', '2027-01'],
    ['2026-12-01T00:00:00.000Z', '2026-12'],
    ['2026-11-30T23:59:59.999Z', '2026-11'],
  ];
  for (const [iso, month] of cases) assert.equal(monthOf(ms(iso)), month, iso);
  for (let t = ms('2025-06-15T00:00:00Z'); t < ms('2027-06-15T00:00:00Z'); t += 3_600_000 * 7)
    assert.equal(monthOf(t), new Date(t).toISOString().slice(0, 7));
});

for (const backend of BACKENDS) {
  describe(`quota on ${backend.name}`, () => {
    test('is exhausted exactly at the monthly quota, and consumption is written', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'exhaust', monthlyQuota: 5 });
      const q = new QuotaManager(db, { leaseSize: 2 });
      assert.equal(await drain(q, c.id), 5);
      assert.equal(q.reserve(c.id, 1), null, 'refused from memory, without a database round trip');
      await q.flush();
      assert.deepEqual(await usedInDb(db, c.id, monthOf(Date.now())), { used: 5, leased: 5 });
      assert.deepEqual(await q.status(c.id), { month: monthOf(Date.now()), monthly_quota: 5, used: 5, remaining: 0 });
      await q.close();
    });

    test('a batch is refused whole when fewer credits remain; released credits come back', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'batch', monthlyQuota: 5 });
      const q = new QuotaManager(db, { leaseSize: 2 });
      const three = await take(q, c.id, 3);
      assert.equal(three?.credits, 3);
      three!.commit();
      assert.equal(await take(q, c.id, 3), null);
      const two = await take(q, c.id, 2);
      assert.ok(two);
      two.release();
      const again = await take(q, c.id, 2);
      assert.ok(again, 'released credits are available again');
      again.commit();
      assert.equal(await take(q, c.id, 1), null);
      await q.close();
      assert.deepEqual(await usedInDb(db, c.id, monthOf(Date.now())), { used: 5, leased: 5 });
    });

    test('resets at the UTC month boundary (injected clock)', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'month', monthlyQuota: 3 });
      let now = Date.parse('2025-01-31T23:59:59.500Z');
      const q = new QuotaManager(db, { leaseSize: 2, now: () => now });
      assert.equal(await drain(q, c.id), 3);
      now = Date.parse('2025-02-01T00:00:00.000Z');
      const r = await take(q, c.id, 3);
      assert.ok(r, 'a new month has a full quota');
      r.commit();
      assert.equal(await take(q, c.id, 1), null);
      await q.close();
      assert.deepEqual(await usedInDb(db, c.id, '2025-01'), { used: 3, leased: 3 });
      assert.deepEqual(await usedInDb(db, c.id, '2025-02'), { used: 3, leased: 3 });
    });

    test("a lease grows to about one second of a busy customer's traffic", async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'busy', monthlyQuota: 100_000 });
      let now = Date.parse('2025-03-10T12:00:00.000Z');
      const q = new QuotaManager(db, { leaseSize: 10, now: () => now });
      for (let i = 0; i < 7; i++) (await take(q, c.id, 1))!.commit();
      assert.equal((await usedInDb(db, c.id, '2025-03'))!.leased, 10, 'a quiet customer leases QUOTA_LEASE_SIZE');
      for (let i = 0; i < 800; i++) {
        now += 2;
        (await take(q, c.id, 1))!.commit();
      }
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      const leased = (await usedInDb(db, c.id, '2025-03'))!.leased;
      // 500 requests/s: after the first full second leases are ~500 credits; with 10-credit leases
      // the total would stay within 807 + 10.
      assert.ok(leased >= 1000, `leases grew with the traffic (leased ${leased})`);
      assert.ok(leased <= 807 + 2 * 1000, 'about one second of traffic per lease');
      await q.close();
    });

    test(`a lease is at most ${LEASE_GROWTH_MAX} × QUOTA_LEASE_SIZE however busy the customer`, async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'busiest', monthlyQuota: 10_000_000 });
      let now = Date.parse('2025-03-10T12:00:00.000Z');
      const q = new QuotaManager(db, { leaseSize: 1, now: () => now });
      const cap = LEASE_GROWTH_MAX;
      let served = 0;
      const serve = async (n: number, gapMs: number) => {
        for (let i = 0; i < n; i++) {
          now += gapMs;
          (await take(q, c.id, 1))!.commit();
          served++;
        }
      };
      // A second at 50 requests/s, then 1.5 s at 4 × cap requests/s: one second of that traffic
      // would be leases of 4 × cap credits.
      await serve(50, 20);
      let mostAhead = 0;
      for (let k = 0; k < 24; k++) {
        await serve(cap / 4, (0.25 / cap) * 1000);
        for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
        mostAhead = Math.max(mostAhead, (await usedInDb(db, c.id, '2025-03'))!.leased - served);
      }
      // Leased and not yet served: at most one lease and the quarter of one left when it was asked for.
      assert.ok(mostAhead > cap / 2, `leases grew to the cap (at most ${mostAhead} credits ahead)`);
      assert.ok(mostAhead <= 1.25 * cap + 1, `${mostAhead} credits leased ahead of the traffic`);
      await q.close();
    });

    test('used credits survive a restart; unused lease credits are given back on close', async () => {
      const t = await backend.database();
      const c = await new CustomerService(t.db, 1000).createCustomer({ name: 'restart', monthlyQuota: 10 });
      const before = new QuotaManager(t.db, { leaseSize: 3 });
      for (let i = 0; i < 4; i++) (await take(before, c.id, 1))!.commit();
      await before.close();
      const db = await t.restart();
      assert.deepEqual(await usedInDb(db, c.id, monthOf(Date.now())), { used: 4, leased: 4 });
      const after = new QuotaManager(db, { leaseSize: 3 });
      assert.equal((await after.status(c.id))?.remaining, 6);
      assert.equal(await take(after, c.id, 7), null, 'the first request after the restart sees the 4 used credits');
      assert.equal(await drain(after, c.id), 6);
      await after.close();
    });

    test('several nodes never spend more than the quota together; leases bound what is stranded', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'nodes', monthlyQuota: 100 });
      const lease = 7;
      const a = new QuotaManager(db, { leaseSize: lease });
      const b = new QuotaManager(db, { leaseSize: lease });
      // Interleaved concurrent requests on two nodes.
      const results = await Promise.all(Array.from({ length: 150 }, (_, i) => take(i % 2 ? a : b, c.id, 1)));
      const granted = results.filter((r): r is Reservation => r !== null);
      for (const r of granted) r.commit();
      assert.ok(granted.length <= 100, `granted ${granted.length}`);
      // What the refused node could not get is held by the other node: at most one lease and its prefetch.
      assert.ok(100 - granted.length <= 2 * lease, `stranded ${100 - granted.length}`);
      const rest = (await drain(a, c.id)) + (await drain(b, c.id));
      assert.equal(granted.length + rest, 100);
      await Promise.all([a.close(), b.close()]);
      assert.deepEqual(await usedInDb(db, c.id, monthOf(Date.now())), { used: 100, leased: 100 });
    });

    test('a raised quota is seen after the recheck interval', async () => {
      const { db } = await backend.database();
      const customers = new CustomerService(db, 1000);
      const c = await customers.createCustomer({ name: 'upgrade', monthlyQuota: 1 });
      let now = Date.parse('2025-03-10T00:00:00Z');
      const q = new QuotaManager(db, { leaseSize: 5, now: () => now, recheckMs: 5000 });
      assert.equal(await drain(q, c.id), 1);
      await customers.updateCustomer(c.id, { monthlyQuota: 3 });
      assert.equal(q.reserve(c.id, 1), null, 'still refused from memory');
      now += 5001;
      assert.equal(await drain(q, c.id), 2);
      await q.close();
    });

    test('a quota lowered to what is used stops every node at once: the credits they hold are not spent', async () => {
      const { db } = await backend.database();
      const a = new QuotaManager(db, { leaseSize: 50 });
      const b = new QuotaManager(db, { leaseSize: 50 });
      // The operator changes the quota on node a; node b hears of it by its check of the generations
      // (the NOTIFY path is tested with two services in quota-nodes.test.ts).
      const customers = new CustomerService(db, 1000, (changes) => a.revoke(changes));
      const c = await customers.createCustomer({ name: 'lowered', monthlyQuota: 1000 });
      for (let i = 0; i < 10; i++) (await take(a, c.id, 1))!.commit();
      for (let i = 0; i < 6; i++) (await take(b, c.id, 1))!.commit();
      await Promise.all([a.flush(), b.flush()]);
      await customers.updateCustomer(c.id, { monthlyQuota: 16 });
      assert.equal(await take(a, c.id, 1), null, 'the node that made the change, at once');
      await b.checkGenerations();
      assert.equal(await take(b, c.id, 1), null, 'the other node');
      const month = monthOf(Date.now());
      assert.deepEqual(await a.status(c.id), { month, monthly_quota: 16, used: 16, remaining: 0 });
      await Promise.all([a.close(), b.close()]);
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 16, leased: 16 });
    });

    test('a raised quota applies at once on the node that changed it', async () => {
      const { db } = await backend.database();
      const q = new QuotaManager(db, { leaseSize: 5, recheckMs: 3_600_000 });
      const customers = new CustomerService(db, 1000, (changes) => q.revoke(changes));
      const c = await customers.createCustomer({ name: 'raised', monthlyQuota: 1 });
      assert.equal(await drain(q, c.id), 1);
      await customers.updateCustomer(c.id, { monthlyQuota: 3 });
      assert.equal(await drain(q, c.id), 2);
      await q.close();
    });

    test("a plan's new quota revokes the leases of its customers", async () => {
      const { db } = await backend.database();
      const q = new QuotaManager(db, { leaseSize: 50 });
      const customers = new CustomerService(db, 1000, (changes) => q.revoke(changes));
      const plan = await customers.createPlan(`small-${backend.name}`, 100);
      const c = await customers.createCustomer({ name: 'on a plan', planId: plan.id });
      const own = await customers.createCustomer({ name: 'own quota', planId: plan.id, monthlyQuota: 100 });
      for (const id of [c.id, own.id]) for (let i = 0; i < 4; i++) (await take(q, id, 1))!.commit();
      await customers.updatePlan(plan.id, 4);
      assert.equal(await take(q, c.id, 1), null);
      assert.ok(await take(q, own.id, 1), 'a customer with its own quota keeps its leases');
      await q.close();
    });

    test('a lease taken while the quota changes is never spent beyond the new quota', async () => {
      const { db } = await backend.database();
      const q = new QuotaManager(db, { leaseSize: 50 });
      const customers = new CustomerService(db, 1000, (changes) => q.revoke(changes));
      const c = await customers.createCustomer({ name: 'race', monthlyQuota: 100 });
      const [first] = await Promise.all([take(q, c.id, 1), customers.updateCustomer(c.id, { monthlyQuota: 1 })]);
      first?.commit();
      const total = (first ? 1 : 0) + (await drain(q, c.id));
      assert.equal(total, 1);
      await q.close();
      assert.deepEqual(await usedInDb(db, c.id, monthOf(Date.now())), { used: 1, leased: 1 });
    });

    test("a restart settles a crash: the node's unused and unwritten credits go back, other nodes keep theirs", async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'crash', monthlyQuota: 100 });
      const node = `crash-${backend.name}-${c.id}`;
      const crashed = new QuotaManager(db, { leaseSize: 40, node });
      const other = new QuotaManager(db, { leaseSize: 40 });
      for (let i = 0; i < 20; i++) (await take(crashed, c.id, 1))!.commit();
      for (let i = 0; i < 5; i++) (await take(other, c.id, 1))!.commit();
      await Promise.all([crashed.flush(), other.flush()]);
      // Consumed but not written when the node dies; it is never closed.
      for (let i = 0; i < 3; i++) (await take(crashed, c.id, 1))!.commit();
      const month = monthOf(Date.now());
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 25, leased: 80 });
      // Without usage rows to count (a shared ClickHouse), what the node wrote is its consumption.
      const restarted = new QuotaManager(db, { leaseSize: 40, node });
      await restarted.recover();
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 25, leased: 60 });
      assert.deepEqual(await restarted.status(c.id), { month, monthly_quota: 100, used: 25, remaining: 75 });
      const rest = (await drain(restarted, c.id)) + (await drain(other, c.id));
      assert.equal(rest, 75, 'the remaining credits are what the nodes grant');
      await Promise.all([restarted.close(), other.close()]);
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 100, leased: 100 });
    });

    test('a restart settles a crash from the usage rows the node recorded (method quota, that month)', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'rows', monthlyQuota: 100 });
      const node = `rows-${backend.name}-${c.id}`;
      // One ClickHouse serves both backends, whose customer ids repeat: each has a month of its own.
      const now = Date.UTC(2024, backend.name === 'pglite' ? 0 : 1, 10);
      const month = monthOf(now);
      const crashed = new QuotaManager(db, { leaseSize: 40, node, now: () => now });
      for (let i = 0; i < 20; i++) (await take(crashed, c.id, 1))!.commit();
      await crashed.flush();
      for (let i = 0; i < 3; i++) (await take(crashed, c.id, 1))!.commit();
      const row = (time: number, credits: number, method: 'quota' | 'x402'): UsageRow => ({
        time,
        customer_id: c.id,
        payer: '',
        request_id: `r-${time}-${credits}`,
        endpoint: 'screen.crypto',
        status: 200,
        credits,
        method,
        amount: '0',
        tx_hash: '',
        network: '',
      });
      // 23 credits charged to the quota this month; a paid request and last month's rows are not.
      await audit().usage.write([
        row(now, 20, 'quota'),
        row(now, 3, 'quota'),
        row(now, 1, 'x402'),
        row(Date.UTC(2020, 0, 15), 5, 'quota'),
      ]);
      const recordedUsage = (m: string, ids: number[]) => audit().queries.quotaCredits(m, ids);
      const restarted = new QuotaManager(db, { leaseSize: 40, node, now: () => now, recordedUsage });
      await restarted.recover();
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 23, leased: 23 });
      assert.equal(await drain(restarted, c.id), 77);
      await restarted.close();
      await new QuotaManager(db, { leaseSize: 40, node, now: () => now, recordedUsage }).recover();
      assert.deepEqual(await usedInDb(db, c.id, month), { used: 100, leased: 100 }, 'nothing to settle after a close');
    });
  });
}
