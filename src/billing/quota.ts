import type { Logger } from 'pino';
import type { Db } from '../store/db.js';

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
}

// One statement takes up to $3 credits within the quota in force: the row lock of
// ON CONFLICT DO UPDATE makes concurrent leases from several nodes add up exactly, and
// `last_grant` returns what this very update granted.
const LEASE_SQL = `
INSERT INTO quota_usage AS q (customer_id, month, quota, leased, last_grant)
SELECT c.id, $2, lim.quota, LEAST($3::integer, lim.quota), LEAST($3::integer, lim.quota)
  FROM customers c
  LEFT JOIN plans p ON p.id = c.plan_id
  CROSS JOIN LATERAL (SELECT COALESCE(c.monthly_quota, p.monthly_quota) AS quota) lim
 WHERE c.id = $1
ON CONFLICT (customer_id, month) DO UPDATE
   SET quota = EXCLUDED.quota,
       last_grant = LEAST($3::integer, GREATEST(0, EXCLUDED.quota - q.leased)),
       leased = q.leased + LEAST($3::integer, GREATEST(0, EXCLUDED.quota - q.leased)),
       updated_at = now()
RETURNING last_grant AS granted`;

/**
 * Monthly quota with in-memory counters. A node takes credits from PostgreSQL in leases of
 * `leaseSize` (prefetched before the local stock runs out) and spends them without touching the
 * database; consumed credits are written every `flushMs`, and unused lease credits go back on
 * `close()` (graceful shutdown) or when the month is over. Because a lease never takes more than
 * the quota left, all nodes together never spend more than the quota; the price is that up to
 * about `leaseSize` credits per node may sit unused in other nodes' memory when a customer
 * reaches the end of the quota (docs/billing.md); leases grow with a customer's traffic (see
 * `leaseSizeFor`). A crash forfeits the crashed node's unused
 * lease credits for that month: they stay counted as leased.
 */
export class QuotaManager {
  private readonly states = new Map<number, State>();
  private readonly usedPending = new Map<string, number>();
  private readonly returnPending = new Map<string, number>();
  private readonly now: () => number;
  private readonly recheckMs: number;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly opts: QuotaOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.recheckMs = opts.recheckMs ?? 5000;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => void this.flush().catch((err) => this.opts.log?.error({ err }, 'quota flush failed')),
      this.opts.flushMs ?? 1000,
    );
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
    const giveBack = (n: number) => {
      if (n <= 0) return;
      const current = this.states.get(customerId);
      if (current && current.month === month) current.local += n;
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
        const { rows } = await this.db.query<{ granted: number }>(LEASE_SQL, [customerId, s.month, want]);
        const granted = rows[0]?.granted ?? 0;
        s.local += granted;
        if (granted < want) s.exhaustedUntil = this.now() + this.recheckMs;
        else s.exhaustedUntil = 0;
      } finally {
        s.leasing = null;
      }
    })();
    return s.leasing;
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
    await this.apply(this.usedPending, 'used = q.used + d.n');
    await this.apply(this.returnPending, 'leased = GREATEST(0, q.leased - d.n)');
  }

  private async apply(pending: Map<string, number>, set: string): Promise<void> {
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
      await this.db.query(
        `UPDATE quota_usage q SET ${set}, updated_at = now()
           FROM unnest($1::integer[], $2::text[], $3::integer[]) AS d(customer_id, month, n)
          WHERE q.customer_id = d.customer_id AND q.month = d.month`,
        [ids, months, ns],
      );
    } catch (err) {
      for (const [k, n] of batch) add(pending, k, n);
      throw err;
    }
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
