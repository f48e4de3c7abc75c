import type { ClickHouseClient } from '@clickhouse/client';
import type { DateRange } from './queries.js';

/**
 * Aggregates of the audit and usage tables behind the dashboard's charts: per day, per endpoint,
 * per list, the most matched values, and (for the operator) per customer. Every query is bounded
 * in time and in rows read (QueryBounds) and returns a bounded number of rows; ClickHouse runs
 * it on its own threads (chDB: off the event loop), and only the small result is parsed here.
 */

/** One customer, or every customer (the operator's view). */
export type Scope = { customerId: number } | { customerId: null };

export interface QueryBounds {
  /** `max_execution_time`, seconds. */
  maxSeconds: number;
  /** `max_rows_to_read` of each query. */
  maxRows: number;
  /** Fail a query that would not be answered from a projection (`force_optimize_projection`; tests). */
  requireProjections?: boolean;
}

/** 10M audit rows of one customer read in ~0.2 s (bench/RESULTS.md); the bounds leave room for far more. */
export const DEFAULT_BOUNDS: QueryBounds = { maxSeconds: 10, maxRows: 1_000_000_000 };

export interface DailyActivity {
  day: string;
  requests: number;
  credits: number;
  paid_requests: number;
  matches: number;
}

export interface EndpointActivity {
  endpoint: string;
  requests: number;
  credits: number;
  paid_requests: number;
  matches: number;
}

export interface ListActivity {
  list: string;
  matches: number;
  last_match_at: string;
}

export interface TopValue {
  matched_value: string;
  list: string;
  matches: number;
  last_match_at: string;
}

export interface CustomerActivity {
  customer_id: number;
  requests: number;
  credits: number;
  paid_requests: number;
}

/** A query stopped by its bounds (the caller narrows the range). */
export class AnalyticsBoundExceeded extends Error {}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Every UTC day of a half-open, day-aligned range. */
export function daysOf(r: DateRange): string[] {
  const out: string[] = [];
  for (let t = r.from; t < r.to; t += DAY) out.push(iso(t).slice(0, 10));
  return out;
}

export class AnalyticsQueries {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    private readonly bounds: QueryBounds = DEFAULT_BOUNDS,
  ) {}

  private t(name: string): string {
    return `\`${this.database}\`.\`${name}\``;
  }

  /**
   * The range as whole UTC days on `toDate(time)`: the aggregate projections of both tables
   * (schema.ts) are keyed by the day, so ClickHouse answers from them instead of the rows.
   */
  private where(scope: Scope, r: DateRange): { sql: string; params: Record<string, unknown> } {
    const parts = ['toDate(time) >= {from:Date}', 'toDate(time) <= {to:Date}'];
    const params: Record<string, unknown> = { from: iso(r.from).slice(0, 10), to: iso(r.to - DAY).slice(0, 10) };
    if (scope.customerId !== null) {
      parts.unshift('customer_id = {customer:UInt32}');
      params.customer = scope.customerId;
    }
    return { sql: parts.join(' AND '), params };
  }

  private async rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const settings =
      `SETTINGS max_execution_time = ${this.bounds.maxSeconds}, timeout_overflow_mode = 'throw', max_rows_to_read = ${this.bounds.maxRows}, read_overflow_mode = 'throw'` +
      (this.bounds.requireProjections ? ', force_optimize_projection = 1' : '');
    try {
      const rs = await this.client.query({ query: `${query}\n${settings}`, query_params: params, format: 'JSONEachRow' });
      return await rs.json<T>();
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'TIMEOUT_EXCEEDED' || type === 'TOO_MANY_ROWS') {
        throw new AnalyticsBoundExceeded(`the query read more than its bound (${this.bounds.maxSeconds} s, ${this.bounds.maxRows} rows): narrow the date range`);
      }
      throw err;
    }
  }

  /** Requests, credits and matches per day, every day of the range (zero when nothing happened). */
  async daily(scope: Scope, r: DateRange): Promise<DailyActivity[]> {
    const w = this.where(scope, r);
    const [usage, matches] = await Promise.all([
      this.rows<{ day: string; requests: number; credits: number; paid_requests: number }>(
        `SELECT toString(toDate(time)) AS day, toUInt64(count()) AS requests, toUInt64(sum(credits)) AS credits,
                toUInt64(countIf(method = 'x402')) AS paid_requests
           FROM ${this.t('usage')} WHERE ${w.sql} GROUP BY day ORDER BY day LIMIT 1000`,
        w.params,
      ),
      this.rows<{ day: string; matches: number }>(
        `SELECT toString(toDate(time)) AS day, toUInt64(count()) AS matches
           FROM ${this.t('audit_matches')} WHERE ${w.sql} GROUP BY day ORDER BY day LIMIT 1000`,
        w.params,
      ),
    ]);
    const byDay = new Map<string, DailyActivity>(daysOf(r).map((day) => [day, { day, requests: 0, credits: 0, paid_requests: 0, matches: 0 }]));
    for (const u of usage) {
      const d = byDay.get(u.day);
      if (!d) continue;
      d.requests = Number(u.requests);
      d.credits = Number(u.credits);
      d.paid_requests = Number(u.paid_requests);
    }
    for (const m of matches) {
      const d = byDay.get(m.day);
      if (d) d.matches = Number(m.matches);
    }
    return [...byDay.values()];
  }

  /** Requests, credits and matches per endpoint, busiest first. */
  async endpoints(scope: Scope, r: DateRange): Promise<EndpointActivity[]> {
    const w = this.where(scope, r);
    const [usage, matches] = await Promise.all([
      this.rows<{ endpoint: string; requests: number; credits: number; paid_requests: number }>(
        `SELECT endpoint, toUInt64(count()) AS requests, toUInt64(sum(credits)) AS credits, toUInt64(countIf(method = 'x402')) AS paid_requests
           FROM ${this.t('usage')} WHERE ${w.sql} GROUP BY endpoint ORDER BY requests DESC, endpoint LIMIT 1000`,
        w.params,
      ),
      this.rows<{ endpoint: string; matches: number }>(
        `SELECT endpoint, toUInt64(count()) AS matches FROM ${this.t('audit_matches')} WHERE ${w.sql} GROUP BY endpoint LIMIT 1000`,
        w.params,
      ),
    ]);
    const matched = new Map(matches.map((m) => [m.endpoint, Number(m.matches)]));
    return usage.map((u) => ({
      endpoint: u.endpoint,
      requests: Number(u.requests),
      credits: Number(u.credits),
      paid_requests: Number(u.paid_requests),
      matches: matched.get(u.endpoint) ?? 0,
    }));
  }

  /** Matches per list, most matched first. */
  async lists(scope: Scope, r: DateRange): Promise<ListActivity[]> {
    const w = this.where(scope, r);
    const rows = await this.rows<{ list: string; matches: number; last_ms: number }>(
      `SELECT list, toUInt64(count()) AS matches, toUnixTimestamp64Milli(max(time)) AS last_ms
         FROM ${this.t('audit_matches')} WHERE ${w.sql} GROUP BY list ORDER BY matches DESC, list LIMIT 1000`,
      w.params,
    );
    return rows.map((x) => ({ list: x.list, matches: Number(x.matches), last_match_at: iso(Number(x.last_ms)) }));
  }

  /** The listed values matched most often (optionally on one list). */
  async topValues(scope: Scope, r: DateRange, opts: { limit: number; list?: string }): Promise<TopValue[]> {
    const w = this.where(scope, r);
    const params: Record<string, unknown> = { ...w.params, limit: opts.limit };
    let sql = w.sql;
    if (opts.list) {
      sql += ' AND list = {list:String}';
      params.list = opts.list;
    }
    const rows = await this.rows<{ matched_value: string; list: string; matches: number; last_ms: number }>(
      `SELECT matched_value, list, toUInt64(count()) AS matches, toUnixTimestamp64Milli(max(time)) AS last_ms
         FROM ${this.t('audit_matches')} WHERE ${sql}
        GROUP BY list, matched_value ORDER BY matches DESC, list, matched_value LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map((x) => ({ matched_value: x.matched_value, list: x.list, matches: Number(x.matches), last_match_at: iso(Number(x.last_ms)) }));
  }

  /** Requests and credits per customer, busiest first (`customer_id` 0: x402 payers without a token). */
  async customers(r: DateRange, limit: number): Promise<CustomerActivity[]> {
    const w = this.where({ customerId: null }, r);
    const rows = await this.rows<{ customer_id: number; requests: number; credits: number; paid_requests: number }>(
      `SELECT customer_id, toUInt64(count()) AS requests, toUInt64(sum(credits)) AS credits, toUInt64(countIf(method = 'x402')) AS paid_requests
         FROM ${this.t('usage')} WHERE ${w.sql} GROUP BY customer_id ORDER BY requests DESC, customer_id LIMIT {limit:UInt32}`,
      { ...w.params, limit },
    );
    return rows.map((x) => ({ customer_id: Number(x.customer_id), requests: Number(x.requests), credits: Number(x.credits), paid_requests: Number(x.paid_requests) }));
  }
}
