import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import type { QuotaChange } from './customers.js';

/** The month `monthOf` answered last and the span of milliseconds it covers. */
let cachedMonth = { from: 0, to: -1, month: '' };

/** Calendar month in UTC, `YYYY-MM` (asked on every metered request: the last answer is reused within its month). */
export function monthOf(ms: number): string {
  if (ms >= cachedMonth.from && ms < cachedMonth.to) return cachedMonth.month;
  const d = new Date(ms);
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  cachedMonth = { from, to, month: d.toISOString().slice(0, 7) };
  return cachedMonth.month;
}

/** Credits held for one request: consumed by `commit`, given back by `release` (exactly once). */
export interface Reservation {
  readonly month: string;
  readonly credits: number;
  /** Consumes `used` of the credits (all by default) and gives back the rest. */
  commit(used?: number): void;
  release(): void;
}

export interface QuotaStatus {
  month: string;
  monthly_quota: number;
  used: number;
  remaining: number;
}

/**
 * How far a lease may grow beyond `leaseSize` for a busy customer (100,000 credits with the
 * default 50). Below one second of traffic, leases come so often that the prefetch (a quarter of a
 * lease) runs out before the next returns from embedded PGlite and requests wait (docs/billing.md).
 */
export const LEASE_GROWTH_MAX = 2000;

export interface QuotaOptions {
  /** Credits taken from the database at a time (QUOTA_LEASE_SIZE). */
  leaseSize: number;
  now?: () => number;
  log?: Logger;
  /** How often consumed credits and returned leases are written (ms). */
  flushMs?: number;
  /** How long an exhausted customer is refused from memory before the database is asked again (ms). */
  recheckMs?: number;
  /**
   * This node's name in `quota_leases`, the same across restarts (src/store/node-identity.ts), so that
   * a restart finds what a crash of the node left. A fresh one when not given.
   */
  node?: string;
  /**
   * Credits this node's own usage rows record for customers in a month (method `quota`): how a
   * restart settles what a crash left. Without it, the consumption the node wrote is taken as all.
   */
  recordedUsage?: (month: string, customerIds: number[]) => Promise<Map<number, number>>;
  /**
   * Also read, every `flushMs`, the quota generation of the customers this node holds credits of,
   * in case the NOTIFY of a change was lost (several nodes; one node is told directly).
   */
  pollGenerations?: boolean;
}

interface State {
  month: string;
  /** `key(customerId, month)`, made once: every committed request adds to it. */
  key: string;
  /** Credits leased to this node and not reserved by a request. */
  local: number;
  leasing: Promise<void> | null;
  /** Credits taken since `windowStart`, and the rate (credits/s) of the last full window. */
  windowStart: number;
  windowCredits: number;
  rate: number;
  /** Refuse from memory until then (quota exhausted or unknown customer). */
  exhaustedUntil: number;
  /** Quota generation of the credits in `local` (-1 before the first lease). */
  generation: number;
  /** Leases of an older generation than this were taken before a quota change: given back, never spent. */
  minGeneration: number;
}

// One statement takes up to $3 credits within the quota in force: the row lock of
// ON CONFLICT DO UPDATE makes concurrent leases from several nodes add up exactly, and
// `last_grant` returns what this very update granted. The node's own row ($4) records its share,
// and the customer's quota generation comes back with the credits.
const LEASE_SQL = `
WITH lim AS (
  SELECT c.id, COALESCE(c.monthly_quota, p.monthly_quota) AS quota, c.quota_generation AS generation
    FROM customers c LEFT JOIN plans p ON p.id = c.plan_id
   WHERE c.id = $1
), granted AS (
  INSERT INTO quota_usage AS q (customer_id, month, quota, leased, last_grant)
  SELECT id, $2, quota, LEAST($3::integer, quota), LEAST($3::integer, quota) FROM lim
  ON CONFLICT (customer_id, month) DO UPDATE
     SET quota = EXCLUDED.quota,
         last_grant = LEAST($3::integer, GREATEST(0, EXCLUDED.quota - q.leased)),
         leased = q.leased + LEAST($3::integer, GREATEST(0, EXCLUDED.quota - q.leased)),
         updated_at = now()
  RETURNING q.customer_id, q.last_grant
), mine AS (
  INSERT INTO quota_leases AS l (node, customer_id, month, leased)
  SELECT $4, customer_id, $2, last_grant FROM granted
  ON CONFLICT (node, customer_id, month) DO UPDATE SET leased = l.leased + EXCLUDED.leased
)
SELECT granted.last_grant AS granted, lim.generation FROM granted, lim`;

// Consumption (`used`) and credits given back (`leased`) are written to the customer's month and
// to this node's share of it in one statement.
const APPLY_SQL = {
  used: `
WITH d AS (SELECT * FROM unnest($1::integer[], $2::text[], $3::integer[]) AS d(customer_id, month, n)),
     total AS (
       UPDATE quota_usage q SET used = q.used + d.n, updated_at = now()
         FROM d WHERE q.customer_id = d.customer_id AND q.month = d.month)
UPDATE quota_leases l SET used = l.used + d.n
  FROM d WHERE l.node = $4 AND l.customer_id = d.customer_id AND l.month = d.month`,
  returned: `
WITH d AS (SELECT * FROM unnest($1::integer[], $2::text[], $3::integer[]) AS d(customer_id, month, n)),
     total AS (
       UPDATE quota_usage q SET leased = GREATEST(0, q.leased - d.n), updated_at = now()
         FROM d WHERE q.customer_id = d.customer_id AND q.month = d.month)
UPDATE quota_leases l SET leased = GREATEST(0, l.leased - d.n)
  FROM d WHERE l.node = $4 AND l.customer_id = d.customer_id AND l.month = d.month`,
};

/**
 * Monthly quota with in-memory counters. A node takes credits from PostgreSQL in leases of
 * `leaseSize` (prefetched before the local stock runs out) and spends them without touching the
 * database; consumed credits are written every `flushMs`, and unused lease credits go back on
 * `close()` (graceful shutdown) or when the month is over. Because a lease never takes more than
 * the quota left, all nodes together never spend more than the quota; the price is that up to
 * about `leaseSize` credits per node may sit unused in other nodes' memory when a customer
 * reaches the end of the quota (docs/billing.md); leases grow with a customer's traffic (see
 * `leaseSizeFor`). Each node's share is kept in `quota_leases`: what a crash left there (unused
 * credits, consumption not yet written) is settled by the node's restart (`recover`). A quota
 * change revokes the leases of every node (`revoke`, on the NOTIFY of the change).
 */
export class QuotaManager {
  private readonly states = new Map<number, State>();
  private readonly usedPending = new Map<string, number>();
  private readonly returnPending = new Map<string, number>();
  private readonly now: () => number;
  private readonly recheckMs: number;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  /** The write of credits a revocation gave back: leases wait for it, so they see the pool it refilled. */
  private returning: Promise<void> | null = null;
  readonly node: string;

  constructor(
    private readonly db: Db,
    private readonly opts: QuotaOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.recheckMs = opts.recheckMs ?? 5000;
    this.node = opts.node ?? randomUUID();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      void this.flush().catch((err) => this.opts.log?.error({ err }, 'quota flush failed'));
      if (this.opts.pollGenerations)
        void this.checkGenerations().catch((err) => this.opts.log?.error({ err }, 'quota generation check failed'));
    }, this.opts.flushMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Holds `credits` for a request, or null when the quota does not cover them all (a batch is
   * refused whole). Synchronous while the node holds enough leased credits; otherwise it awaits
   * one lease (the first request of a customer on this node, or one that outran the prefetch).
   */
  reserve(customerId: number, credits: number): Reservation | null | Promise<Reservation | null> {
    const s = this.state(customerId);
    if (s.local >= credits) return this.take(customerId, s, credits);
    if (s.exhaustedUntil > this.now()) return null;
    return this.reserveSlow(customerId, s, credits);
  }

  private async reserveSlow(customerId: number, s: State, credits: number): Promise<Reservation | null> {
    for (;;) {
      if (s.local >= credits) return this.take(customerId, s, credits);
      if (s.exhaustedUntil > this.now()) return null;
      // The lease is s.leasing, awaited (and its failure seen) on the next line.
      if (!s.leasing) void this.lease(customerId, s, Math.max(this.leaseSizeFor(s), credits - s.local));
      await s.leasing;
    }
  }

  /**
   * A lease is `leaseSize` credits, or about one second of the customer's recent use when that is
   * more (at most LEASE_GROWTH_MAX × leaseSize): a busy customer then costs about one database
   * write per second instead of one per `leaseSize` requests, and what can sit unused in a node's
   * memory stays bounded by one second of that customer's traffic.
   */
  private leaseSizeFor(s: State): number {
    return Math.min(this.opts.leaseSize * LEASE_GROWTH_MAX, Math.max(this.opts.leaseSize, Math.ceil(s.rate)));
  }

  private take(customerId: number, s: State, credits: number): Reservation {
    s.local -= credits;
    const now = this.now();
    s.windowCredits += credits;
    if (now - s.windowStart >= 1000) {
      s.rate = (s.windowCredits * 1000) / (now - s.windowStart);
      s.windowStart = now;
      s.windowCredits = 0;
    }
    const size = this.leaseSizeFor(s);
    if (s.local * 4 < size && !s.leasing && s.exhaustedUntil <= now) {
      this.lease(customerId, s, size).catch((err: unknown) =>
        this.opts.log?.error({ err, customerId }, 'quota lease failed'),
      );
    }
    let done = false;
    const month = s.month;
    const monthKey = s.key;
    const generation = s.generation;
    // Credits of a revoked lease (an older generation) or of a month that is over go back to the pool.
    const giveBack = (n: number) => {
      if (n <= 0) return;
      const current = this.states.get(customerId);
      if (current && current.month === month && current.generation === generation) current.local += n;
      else add(this.returnPending, monthKey, n);
    };
    return {
      month,
      credits,
      commit: (used = credits) => {
        if (done) return;
        done = true;
        const n = Math.max(0, Math.min(credits, used));
        if (n > 0) add(this.usedPending, monthKey, n);
        giveBack(credits - n);
      },
      release: () => {
        if (done) return;
        done = true;
        giveBack(credits);
      },
    };
  }

  private lease(customerId: number, s: State, want: number): Promise<void> {
    s.leasing = (async () => {
      try {
        if (this.returning) await this.returning;
        const { rows } = await this.db.query<{ granted: number; generation: number }>(LEASE_SQL, [
          customerId,
          s.month,
          want,
          this.node,
        ]);
        const granted = rows[0]?.granted ?? 0;
        const generation = rows[0]?.generation ?? s.generation;
        if (generation < s.minGeneration) {
          // Taken before a quota change this node has already heard of: not spent, leased again.
          if (granted > 0) add(this.returnPending, s.key, granted);
          return;
        }
        if (generation > s.generation) {
          // A quota change whose NOTIFY did not reach this node: what it held is revoked now.
          if (s.local > 0) add(this.returnPending, s.key, s.local);
          s.local = 0;
          s.generation = generation;
        }
        s.local += granted;
        if (granted < want) s.exhaustedUntil = this.now() + this.recheckMs;
        else s.exhaustedUntil = 0;
      } finally {
        s.leasing = null;
      }
    })();
    return s.leasing;
  }

  /**
   * A quota change (from this node or the NOTIFY of another): this node's leased credits of those
   * customers (all when null) go back to the pool, and leases taken before the change are not
   * spent, so the new quota holds on every node however many credits they held.
   */
  revoke(changes: QuotaChange[] | null): void {
    const revoked: number[] = [];
    const drop = (customerId: number, s: State, generation: number | null) => {
      if (generation !== null && s.generation >= generation) return;
      if (s.local > 0) add(this.returnPending, s.key, s.local);
      s.local = 0;
      s.exhaustedUntil = 0;
      // Reservations of the revoked credits see another generation and give them back to the pool.
      // Without the new generation (a change of too many customers to name), the next lease's is taken.
      s.generation = generation ?? -1;
      s.minGeneration = Math.max(s.minGeneration, generation ?? 0);
      revoked.push(customerId);
    };
    if (changes === null) for (const [id, s] of this.states) drop(id, s, null);
    else
      for (const c of changes) {
        const s = this.states.get(c.customerId);
        if (s) drop(c.customerId, s, c.generation);
      }
    if (revoked.length === 0) return;
    this.opts.log?.info(
      { customers: revoked.slice(0, 20), count: revoked.length, node: this.node },
      'quota leases revoked after a quota change',
    );
    const returning = this.flush().catch((err: unknown) => this.opts.log?.error({ err }, 'quota flush failed'));
    this.returning = returning;
    void returning.finally(() => {
      if (this.returning === returning) this.returning = null;
    });
  }

  private state(customerId: number): State {
    const month = monthOf(this.now());
    let s = this.states.get(customerId);
    if (s && s.month === month) return s;
    if (s && s.local > 0) add(this.returnPending, s.key, s.local);
    s = {
      month,
      key: key(customerId, month),
      local: 0,
      leasing: null,
      exhaustedUntil: 0,
      generation: -1,
      minGeneration: 0,
      windowStart: this.now(),
      windowCredits: 0,
      rate: 0,
    };
    this.states.set(customerId, s);
    return s;
  }

  /** This month's quota and consumption as the database knows it plus this node's unwritten part. */
  async status(customerId: number): Promise<QuotaStatus | null> {
    return (await this.statuses([customerId])).get(customerId) ?? null;
  }

  /** `status` of several customers in one query (customers that do not exist are left out). */
  async statuses(customerIds: number[]): Promise<Map<number, QuotaStatus>> {
    const month = monthOf(this.now());
    const { rows } = await this.db.query<{ id: number; quota: number; used: number | null }>(
      `SELECT c.id, COALESCE(c.monthly_quota, p.monthly_quota) AS quota, u.used
         FROM customers c
         LEFT JOIN plans p ON p.id = c.plan_id
         LEFT JOIN quota_usage u ON u.customer_id = c.id AND u.month = $2
        WHERE c.id = ANY($1::integer[])`,
      [customerIds, month],
    );
    return new Map(
      rows.map((r) => {
        const used = (r.used ?? 0) + (this.usedPending.get(key(r.id, month)) ?? 0);
        return [r.id, { month, monthly_quota: r.quota, used, remaining: Math.max(0, r.quota - used) }];
      }),
    );
  }

  /** Revokes the credits held of customers whose quota changed without this node hearing of it. */
  async checkGenerations(): Promise<void> {
    const held = [...this.states].filter(([, s]) => s.local > 0 && s.generation >= 0).map(([id]) => id);
    if (held.length === 0) return;
    const { rows } = await this.db.query<{ id: number; generation: number }>(
      'SELECT id, quota_generation AS generation FROM customers WHERE id = ANY($1::integer[])',
      [held],
    );
    this.revoke(rows.map((r) => ({ customerId: r.id, generation: r.generation })));
  }

  /** Writes consumed credits and gives back credits of months that are over. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    this.flushing = this.doFlush().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async doFlush(): Promise<void> {
    const month = monthOf(this.now());
    for (const [customerId, s] of this.states) {
      if (s.month !== month && !s.leasing) {
        if (s.local > 0) add(this.returnPending, s.key, s.local);
        this.states.delete(customerId);
      }
    }
    await this.apply(this.usedPending, APPLY_SQL.used);
    await this.apply(this.returnPending, APPLY_SQL.returned);
  }

  private async apply(pending: Map<string, number>, sql: string): Promise<void> {
    if (pending.size === 0) return;
    const batch = [...pending];
    pending.clear();
    const ids: number[] = [];
    const months: string[] = [];
    const ns: number[] = [];
    for (const [k, n] of batch) {
      const [id, m] = k.split('|');
      ids.push(Number(id));
      months.push(m);
      ns.push(n);
    }
    try {
      await this.db.query(sql, [ids, months, ns, this.node]);
    } catch (err) {
      for (const [k, n] of batch) add(pending, k, n);
      throw err;
    }
  }

  /**
   * Settles what a crash of this node left (call before serving): for each customer and month, the
   * node's consumption becomes what its usage rows record (`recordedUsage`; without it, what it had
   * written), and the rest of what it had leased goes back to the pool. `used` then agrees with the
   * usage rows, and `quota - used` is again what the nodes can grant.
   */
  async recover(): Promise<void> {
    const { rows } = await this.db.query<{ customer_id: number; month: string; leased: number; used: number }>(
      'SELECT customer_id, month, leased, used FROM quota_leases WHERE node = $1 AND leased <> used ORDER BY month',
      [this.node],
    );
    if (rows.length === 0) return;
    const settled: { customer_id: number; month: string; consumed: number }[] = [];
    for (const month of new Set(rows.map((r) => r.month))) {
      const ofMonth = rows.filter((r) => r.month === month);
      const recorded = await this.opts.recordedUsage?.(
        month,
        ofMonth.map((r) => r.customer_id),
      );
      for (const r of ofMonth) {
        const consumed = recorded ? Math.min(r.leased, recorded.get(r.customer_id) ?? 0) : r.used;
        settled.push({ customer_id: r.customer_id, month, consumed });
      }
    }
    await this.db.query(
      `WITH d AS (SELECT * FROM unnest($1::integer[], $2::text[], $3::integer[]) AS d(customer_id, month, consumed)),
            old AS (
              SELECT l.customer_id, l.month, l.leased, l.used, d.consumed
                FROM quota_leases l JOIN d ON l.customer_id = d.customer_id AND l.month = d.month
               WHERE l.node = $4),
            total AS (
              UPDATE quota_usage q
                 SET used = GREATEST(0, q.used + old.consumed - old.used),
                     leased = GREATEST(0, q.leased - (old.leased - old.consumed)),
                     updated_at = now()
                FROM old WHERE q.customer_id = old.customer_id AND q.month = old.month)
       UPDATE quota_leases l SET leased = old.consumed, used = old.consumed
         FROM old WHERE l.node = $4 AND l.customer_id = old.customer_id AND l.month = old.month`,
      [settled.map((r) => r.customer_id), settled.map((r) => r.month), settled.map((r) => r.consumed), this.node],
    );
    this.opts.log?.info(
      {
        node: this.node,
        customers: settled.length,
        leased: rows.reduce((n, r) => n + r.leased, 0),
        written: rows.reduce((n, r) => n + r.used, 0),
        consumed: settled.reduce((n, r) => n + r.consumed, 0),
        fromUsageRows: this.opts.recordedUsage !== undefined,
      },
      'quota left by a crash settled',
    );
  }

  /** Graceful shutdown: returns every unused leased credit and writes what was consumed. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.states.values()].map((s) => s.leasing?.catch(() => undefined)));
    for (const s of this.states.values()) {
      if (s.local > 0) add(this.returnPending, s.key, s.local);
    }
    this.states.clear();
    await this.flush();
  }
}

function key(customerId: number, month: string): string {
  return `${customerId}|${month}`;
}

function add(map: Map<string, number>, k: string, n: number): void {
  map.set(k, (map.get(k) ?? 0) + n);
}
