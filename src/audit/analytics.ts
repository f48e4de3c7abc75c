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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/** Every UTC day of a half-open, day-aligned range. */
function daysOf(r: DateRange): string[] {
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

  /** A bounded query; `fromRows`: one that reads the table itself, not a projection. */
  private async rows<T>(query: string, params: Record<string, unknown>, fromRows = false): Promise<T[]> {
    // One thread: the aggregations are small enough that merging two threads' hash tables cost
    // more than it saved (ranking the top values: 55 against 64 ms of CPU, and less wall time on a
    // busy machine), and an analytics query then never takes both cores from screening.
    const settings =
      `SETTINGS max_threads = 1, max_execution_time = ${this.bounds.maxSeconds}, timeout_overflow_mode = 'throw', max_rows_to_read = ${this.bounds.maxRows}, read_overflow_mode = 'throw'` +
      (this.bounds.requireProjections && !fromRows ? ', force_optimize_projection = 1' : '');
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
      this.rows<{ endpoint: string; matches: number }>(`SELECT endpoint, toUInt64(count()) AS matches FROM ${this.t('audit_matches')} WHERE ${w.sql} GROUP BY endpoint LIMIT 1000`, w.params),
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

  /**
   * The listed values matched most often. Ranked on the `values_by_day` projection by the hash of
   * (list, value) alone, without reading any text; then the kept values are read from the rows of
   * the last hour with matches (where frequent values nearly all are), and any not seen there
   * from the rows of the day it was last matched.
   */
  async topValues(scope: Scope, r: DateRange, limit: number): Promise<TopValue[]> {
    const w = this.where(scope, r);
    const ranked = await this.rows<{ hash: string; matches: number }>(
      `SELECT toString(h) AS hash, toUInt64(count()) AS matches FROM ${this.t('audit_matches')} WHERE ${w.sql}
        GROUP BY cityHash64(list, matched_value) AS h ORDER BY matches DESC, h LIMIT {limit:UInt32}`,
      { ...w.params, limit },
    );
    if (ranked.length === 0) return [];
    const [{ last }] = await this.rows<{ last: number }>(`SELECT toUnixTimestamp64Milli(max(time)) AS last FROM ${this.t('audit_matches')} WHERE ${w.sql}`, w.params);
    const found = await this.valuesIn(
      scope,
      Number(last) - HOUR,
      Number(last) + 1,
      ranked.map((x) => x.hash),
    );
    const missing = ranked.filter((x) => !found.has(x.hash)).map((x) => x.hash);
    if (missing.length > 0) {
      const lastDays = await this.rows<{ hash: string; day: string }>(
        `SELECT toString(h) AS hash, toString(toDate(max(time))) AS day FROM ${this.t('audit_matches')}
          WHERE ${w.sql} AND cityHash64(list, matched_value) IN arrayMap(x -> toUInt64(x), {hashes:Array(String)})
          GROUP BY cityHash64(list, matched_value) AS h`,
        { ...w.params, hashes: missing },
      );
      for (const day of new Set(lastDays.map((x) => x.day))) {
        const from = Date.parse(`${day}T00:00:00Z`);
        const more = await this.valuesIn(
          scope,
          from,
          from + DAY,
          lastDays.filter((x) => x.day === day).map((x) => x.hash),
        );
        for (const [hash, v] of more) found.set(hash, v);
      }
    }
    return ranked
      .map((x) => {
        const v = found.get(x.hash);
        return { matched_value: v?.value ?? '', list: v?.list ?? '', matches: Number(x.matches), last_match_at: iso(Number(v?.last_ms ?? 0)) };
      })
      .sort((a, b) => b.matches - a.matches || a.list.localeCompare(b.list) || a.matched_value.localeCompare(b.matched_value));
  }

  /** The list, value and last match time of the values with these hashes in [from, to) ms (read from the rows). */
  private async valuesIn(scope: Scope, from: number, to: number, hashes: string[]): Promise<Map<string, { list: string; value: string; last_ms: number }>> {
    const params: Record<string, unknown> = { from, to, hashes, ...(scope.customerId === null ? {} : { customer: scope.customerId }) };
    // Aliases other than the column names: ClickHouse would put an alias `list` into the WHERE.
    const rows = await this.rows<{ hash: string; l: string; v: string; last_ms: number }>(
      `SELECT toString(h) AS hash, any(list) AS l, any(matched_value) AS v, toUnixTimestamp64Milli(max(time)) AS last_ms
         FROM ${this.t('audit_matches')}
        WHERE ${scope.customerId === null ? '' : 'customer_id = {customer:UInt32} AND '}time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
          AND time < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND cityHash64(list, matched_value) IN arrayMap(x -> toUInt64(x), {hashes:Array(String)})
        GROUP BY cityHash64(list, matched_value) AS h`,
      params,
      true,
    );
    return new Map(rows.map((x) => [x.hash, { list: x.l, value: x.v, last_ms: Number(x.last_ms) }]));
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
