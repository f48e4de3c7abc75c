import type { ClickHouseClient } from '@clickhouse/client';
import type { DateRange } from './queries.js';
import { ROLLUP_SPANS } from './schema.js';

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

/**
 * The days of a range as blocks of the `value_matches` rollup, `[days, first day]`: from the
 * first day on, the longest aligned block that ends within the range, as the same days that
 * `toDate(time)` of the other queries covers.
 */
export function rollupBlocks(r: DateRange): [days: number, start: string][] {
  const out: [number, string][] = [];
  const end = Math.floor((r.to - DAY) / DAY) + 1;
  for (let d = Math.floor(r.from / DAY); d < end;) {
    const days = [...ROLLUP_SPANS].reverse().find((s) => d % s === 0 && d + s <= end)!;
    out.push([days, iso(d * DAY).slice(0, 10)]);
    d += days;
  }
  return out;
}

/** Every UTC day of a half-open, day-aligned range. */
function daysOf(r: DateRange): string[] {
  const out: string[] = [];
  for (let t = r.from; t < r.to; t += DAY) out.push(iso(t).slice(0, 10));
  return out;
}

/** Top values as answered: most matches first, then by list and value (ties in any order from ClickHouse). */
const byMatches = (a: TopValue, b: TopValue) =>
  b.matches - a.matches || a.list.localeCompare(b.list) || a.matched_value.localeCompare(b.matched_value);

export class AnalyticsQueries {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    private readonly bounds: QueryBounds = DEFAULT_BOUNDS,
    /** Whether the rollups hold every stored row (false while they are filled after a start: openAuditStore). */
    private readonly rollupsFilled: () => boolean = () => true,
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

  /** A bounded query; `fromTable`: one that reads a table itself (a rollup), not a projection. */
  private async rows<T>(query: string, params: Record<string, unknown>, fromTable = false): Promise<T[]> {
    // One thread: the aggregations are small enough that merging two threads' hash tables cost
    // more than it saved (ranking the top values: 55 against 64 ms of CPU, and less wall time on a
    // busy machine), and an analytics query then never takes both cores from screening.
    const settings =
      `SETTINGS max_threads = 1, max_execution_time = ${this.bounds.maxSeconds}, timeout_overflow_mode = 'throw', max_rows_to_read = ${this.bounds.maxRows}, read_overflow_mode = 'throw'` +
      (this.bounds.requireProjections && !fromTable ? ', force_optimize_projection = 1' : '');
    try {
      const rs = await this.client.query({
        query: `${query}\n${settings}`,
        query_params: params,
        format: 'JSONEachRow',
      });
      return await rs.json<T>();
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'TIMEOUT_EXCEEDED' || type === 'TOO_MANY_ROWS') {
        throw new AnalyticsBoundExceeded(
          `the query read more than its bound (${this.bounds.maxSeconds} s, ${this.bounds.maxRows} rows): narrow the date range`,
        );
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
    const byDay = new Map<string, DailyActivity>(
      daysOf(r).map((day) => [day, { day, requests: 0, credits: 0, paid_requests: 0, matches: 0 }]),
    );
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

  /**
   * The listed values matched most often: ranked on the `value_matches` rollup (schema.ts), the
   * range read as a few aligned blocks of days, by the hash of (list, value) alone; then the text
   * of the few kept is read from `matched_values` by hash.
   */
  async topValues(scope: Scope, r: DateRange, limit: number): Promise<TopValue[]> {
    if (!this.rollupsFilled()) return this.topValuesFromRows(scope, r, limit);
    const blocks = rollupBlocks(r);
    const params: Record<string, unknown> = {
      all: scope.customerId === null ? 1 : 0,
      customer: scope.customerId ?? 0,
      limit,
    };
    const inBlocks = blocks.map(([days, start], i) => {
      params[`d${i}`] = days;
      params[`s${i}`] = start;
      return `(days = {d${i}:UInt8} AND start = {s${i}:Date})`;
    });
    // The text form of the kept hashes only (a 64-bit hash does not survive a JSON number).
    const ranked = await this.rows<{ h: string; matches: number; last_ms: number }>(
      `SELECT toString(hash) AS h, toUInt64(n) AS matches, toUnixTimestamp64Milli(last) AS last_ms
         FROM (SELECT hash, sum(matches) AS n, max(last_time) AS last FROM ${this.t('value_matches')}
                WHERE all_customers = {all:UInt8} AND customer_id = {customer:UInt32} AND (${inBlocks.join(' OR ')})
                GROUP BY hash ORDER BY n DESC, hash LIMIT {limit:UInt32})`,
      params,
      true,
    );
    if (ranked.length === 0) return [];
    // An array of UInt64 parameters: a set the primary key finds (an expression over the array,
    // such as arrayMap, is not: it read the whole table).
    const names = await this.rows<{ h: string; l: string; v: string }>(
      `SELECT toString(hash) AS h, any(list) AS l, any(matched_value) AS v FROM ${this.t('matched_values')}
        WHERE hash IN {hashes:Array(UInt64)} GROUP BY hash`,
      { hashes: ranked.map((x) => BigInt(x.h)) },
      true,
    );
    const found = new Map(names.map((x) => [x.h, x]));
    return ranked
      .map((x) => ({
        matched_value: found.get(x.h)?.v ?? '',
        list: found.get(x.h)?.l ?? '',
        matches: Number(x.matches),
        last_match_at: iso(Number(x.last_ms)),
      }))
      .sort(byMatches);
  }

  /**
   * The same answer from the rows of the range (the rollups are being filled): every row read,
   * ranked as from the rollup (`matches DESC`, then the hash of list and value).
   */
  private async topValuesFromRows(scope: Scope, r: DateRange, limit: number): Promise<TopValue[]> {
    const w = this.where(scope, r);
    const rows = await this.rows<{ l: string; v: string; matches: number; last_ms: number }>(
      `SELECT list AS l, matched_value AS v, toUInt64(count()) AS matches, toUnixTimestamp64Milli(max(time)) AS last_ms
         FROM ${this.t('audit_matches')} WHERE ${w.sql}
        GROUP BY list, matched_value ORDER BY matches DESC, cityHash64(list, matched_value) LIMIT {limit:UInt32}`,
      { ...w.params, limit },
      true,
    );
    return rows
      .map((x) => ({
        matched_value: x.v,
        list: x.l,
        matches: Number(x.matches),
        last_match_at: iso(Number(x.last_ms)),
      }))
      .sort(byMatches);
  }

  /** Requests and credits per customer, busiest first (`customer_id` 0: x402 payers without a token). */
  async customers(r: DateRange, limit: number): Promise<CustomerActivity[]> {
    const w = this.where({ customerId: null }, r);
    const rows = await this.rows<{ customer_id: number; requests: number; credits: number; paid_requests: number }>(
      `SELECT customer_id, toUInt64(count()) AS requests, toUInt64(sum(credits)) AS credits, toUInt64(countIf(method = 'x402')) AS paid_requests
         FROM ${this.t('usage')} WHERE ${w.sql} GROUP BY customer_id ORDER BY requests DESC, customer_id LIMIT {limit:UInt32}`,
      { ...w.params, limit },
    );
    return rows.map((x) => ({
      customer_id: Number(x.customer_id),
      requests: Number(x.requests),
      credits: Number(x.credits),
      paid_requests: Number(x.paid_requests),
    }));
  }
}
