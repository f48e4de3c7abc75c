import type { AuditMatchRow } from './rows.js';
import type { ClickHouseClient } from '@clickhouse/client';

export interface DateRange {
  /** Inclusive, ms since epoch. */
  from: number;
  /** Exclusive, ms since epoch. */
  to: number;
}

export interface AuditFilter extends DateRange {
  list?: string;
  endpoint?: string;
  /** Exact screened or matched value. */
  value?: string;
  /** Text in the screened or matched value (case-insensitive). */
  valueContains?: string;
}

/**
 * Where a page of the trail starts: the sort key of the last row of the previous page (newest
 * first: time descending, then request id, list and matched value ascending).
 */
export interface AuditCursor {
  time: number;
  request_id: string;
  list: string;
  matched_value: string;
}

/** An x402 payment as the customer's usage page shows it. */
export interface PaymentRow {
  time: string;
  request_id: string;
  endpoint: string;
  payer: string;
  amount: string;
  network: string;
  tx_hash: string;
  x402_version: number;
}

/** An audit row as the dashboard reads it: the stored row without the caller and evidence, times as ISO text. */
export type AuditTrailItem = Omit<AuditMatchRow, 'time' | 'customer_id' | 'payer' | 'as_of' | 'evidence'> & {
  time: string;
  as_of: string | null;
};

/** An audit row of one request, with the match as answered; `evidence` null for rows stored before it was kept. */
export type AuditRequestRow = AuditTrailItem & { evidence: Record<string, unknown> | null };

/** Stored evidence text as the match object; '' (rows written before it was kept) is null. */
function parseEvidence(text: string): Record<string, unknown> | null {
  if (text === '') return null;
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}

export interface UsageDay {
  day: string;
  endpoint: string;
  requests: number;
  credits: number;
  paid_requests: number;
}

export interface MatchesDay {
  day: string;
  list: string;
  matches: number;
  requests: number;
}

export interface DelistedRow {
  entity_type: string;
  value: string;
  list: string;
  metadata: Record<string, unknown>;
  source_url: string | null;
  removed_at: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Spans searched back from the newest end of a range for its newest rows (then the whole range):
 * see AuditQueries.windowStart.
 */
const WINDOWS = [HOUR, DAY, 7 * DAY];

/** The columns of `auditExport`'s rows, in order. */
export const AUDIT_EXPORT_COLUMNS = [
  'time',
  'request_id',
  'endpoint',
  'screened_value',
  'matched_value',
  'list',
  'list_type',
  'match',
  'list_version',
  'as_of',
] as const;

/** The columns a trail row is read with (`RawTrailRow`), made an `AuditTrailItem` by `trailItem`. */
const TRAIL_COLUMNS = `toUnixTimestamp64Milli(time) AS ms, request_id, endpoint, screened_value, matched_value, list, list_type, match,
       list_version, toUnixTimestamp64Milli(as_of) AS as_of_ms`;
type RawTrailRow = Omit<AuditTrailItem, 'time' | 'as_of'> & { ms: number; as_of_ms: number | null };

function trailItem({ ms, as_of_ms, ...rest }: RawTrailRow): AuditTrailItem {
  return { time: iso(Number(ms)), ...rest, as_of: as_of_ms === null ? null : iso(Number(as_of_ms)) };
}

/** Read side of the audit tables: a customer's analytics and trail, and the delisting history. */
export class AuditQueries {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
  ) {}

  private t(name: string): string {
    return `\`${this.database}\`.\`${name}\``;
  }

  private async rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.client.query({ query, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  /**
   * The filter as SQL. A range of whole UTC days can be written on `toDate(time)` (`byDay`), which
   * lets ClickHouse answer counts from the tables' aggregate projections (schema.ts).
   */
  private where(customerId: number, f: AuditFilter, byDay = false): { sql: string; params: Record<string, unknown> } {
    const days = byDay && f.from % DAY === 0 && f.to % DAY === 0;
    const parts = [
      'customer_id = {customer:UInt32}',
      ...(days
        ? ['toDate(time) >= {from:Date}', 'toDate(time) < {to:Date}']
        : [
            "time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')",
            "time < fromUnixTimestamp64Milli({to:Int64}, 'UTC')",
          ]),
    ];
    const params: Record<string, unknown> = {
      customer: customerId,
      from: days ? iso(f.from).slice(0, 10) : f.from,
      to: days ? iso(f.to).slice(0, 10) : f.to,
    };
    if (f.list) {
      parts.push('list = {list:String}');
      params.list = f.list;
    }
    if (f.endpoint) {
      parts.push('endpoint = {endpoint:String}');
      params.endpoint = f.endpoint;
    }
    if (f.value) {
      parts.push('(screened_value = {value:String} OR matched_value = {value:String})');
      params.value = f.value;
    }
    if (f.valueContains) {
      parts.push(
        '(positionCaseInsensitiveUTF8(screened_value, {contains:String}) > 0 OR positionCaseInsensitiveUTF8(matched_value, {contains:String}) > 0)',
      );
      params.contains = f.valueContains;
    }
    return { sql: parts.join(' AND '), params };
  }

  /** Credits charged to the quota of each customer in a month (`YYYY-MM`), from the usage rows. */
  async quotaCredits(month: string, customerIds: number[]): Promise<Map<number, number>> {
    const rows = await this.rows<{ customer_id: number; credits: number }>(
      `SELECT customer_id, toUInt32(sum(credits)) AS credits FROM ${this.t('usage')}
        WHERE toYYYYMM(time) = {month:UInt32} AND customer_id IN {ids:Array(UInt32)} AND method = 'quota'
        GROUP BY customer_id`,
      { month: Number(month.replace('-', '')), ids: customerIds },
    );
    return new Map(rows.map((r) => [Number(r.customer_id), Number(r.credits)]));
  }

  async usageByDay(customerId: number, r: DateRange): Promise<UsageDay[]> {
    const w = this.where(customerId, r, true);
    return this.rows<UsageDay>(
      `SELECT toString(toDate(time)) AS day, endpoint, toUInt32(count()) AS requests,
              toUInt32(sum(credits)) AS credits, toUInt32(countIf(method = 'x402')) AS paid_requests
         FROM ${this.t('usage')} WHERE ${w.sql}
        GROUP BY day, endpoint ORDER BY day, endpoint`,
      w.params,
    );
  }

  async matchesByDay(customerId: number, r: DateRange): Promise<MatchesDay[]> {
    const w = this.where(customerId, r);
    return this.rows<MatchesDay>(
      `SELECT toString(toDate(time)) AS day, list, toUInt32(count()) AS matches, toUInt32(uniqExact(request_id)) AS requests
         FROM ${this.t('audit_matches')} WHERE ${w.sql}
        GROUP BY day, list ORDER BY day, list`,
      w.params,
    );
  }

  /**
   * Where to start reading for the newest `n` rows before `upper` (exclusive, ms) that match
   * `w`. ClickHouse cannot read audit_matches in time order (its sort key has `payer` before
   * `time`), so `ORDER BY time DESC LIMIT n` sorts every matching row: seconds over millions of
   * them. Counting the rows of the last hour, day and week back from `upper` is a cheap
   * primary-key range each; the first span holding `n` rows holds the newest `n`.
   */
  private async windowStart(
    w: { sql: string; params: Record<string, unknown> },
    from: number,
    upper: number,
    n: number,
  ): Promise<number> {
    for (const span of WINDOWS) {
      const start = upper - span;
      if (start <= from) break;
      const [c] = await this.rows<{ n: number }>(
        `SELECT toUInt32(count()) AS n FROM ${this.t('audit_matches')} WHERE ${w.sql} AND time >= fromUnixTimestamp64Milli({w_start:Int64}, 'UTC')`,
        {
          ...w.params,
          w_start: start,
        },
      );
      if (Number(c.n) >= n) return start;
    }
    return from;
  }

  /**
   * One page of the trail, newest first, and the number of rows matching the filter. A cursor
   * (the last row of the previous page) starts the page after that row, so new rows coming in
   * do not shift the pages; `next` is the cursor of the page after this one (null: the last page).
   */
  async auditTrail(
    customerId: number,
    f: AuditFilter,
    page: { limit: number; offset: number; cursor?: AuditCursor },
  ): Promise<{ total: number; items: AuditTrailItem[]; next: AuditCursor | null }> {
    const w = this.where(customerId, f);
    let sql = w.sql;
    const params: Record<string, unknown> = { ...w.params, limit: page.limit + 1, offset: page.offset };
    if (page.cursor) {
      sql +=
        " AND (time < fromUnixTimestamp64Milli({c_time:Int64}, 'UTC') OR (time = fromUnixTimestamp64Milli({c_time:Int64}, 'UTC')" +
        ' AND (request_id, list, matched_value) > ({c_request:String}, {c_list:String}, {c_value:String})))';
      Object.assign(params, {
        c_time: page.cursor.time,
        c_request: page.cursor.request_id,
        c_list: page.cursor.list,
        c_value: page.cursor.matched_value,
      });
    }
    const counted = this.where(customerId, f, true);
    const [[count], start] = await Promise.all([
      this.rows<{ total: number }>(
        `SELECT toUInt32(count()) AS total FROM ${this.t('audit_matches')} WHERE ${counted.sql}`,
        counted.params,
      ),
      this.windowStart(
        { sql, params },
        f.from,
        page.cursor ? page.cursor.time + 1 : f.to,
        page.offset + page.limit + 1,
      ),
    ]);
    const raw = await this.rows<RawTrailRow>(
      `SELECT ${TRAIL_COLUMNS}
         FROM ${this.t('audit_matches')} WHERE ${sql} AND time >= fromUnixTimestamp64Milli({w_start:Int64}, 'UTC')
        ORDER BY time DESC, request_id, list, matched_value
        LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      { ...params, w_start: start },
    );
    const more = raw.length > page.limit;
    const rows = more ? raw.slice(0, page.limit) : raw;
    const last = rows[rows.length - 1];
    return {
      total: count?.total ?? 0,
      items: rows.map(trailItem),
      next:
        more && last
          ? { time: Number(last.ms), request_id: last.request_id, list: last.list, matched_value: last.matched_value }
          : null,
    };
  }

  /** The audit rows of one request of the customer (every match it had, with its evidence), within a range. */
  async request(customerId: number, requestId: string, r: DateRange): Promise<AuditRequestRow[]> {
    const w = this.where(customerId, r);
    const raw = await this.rows<RawTrailRow & { evidence: string }>(
      `SELECT ${TRAIL_COLUMNS}, evidence
         FROM ${this.t('audit_matches')} WHERE ${w.sql} AND request_id = {request:String}
        ORDER BY list, matched_value LIMIT 1000`,
      { ...w.params, request: requestId },
    );
    return raw.map(({ evidence, ...row }) => ({ ...trailItem(row), evidence: parseEvidence(evidence) }));
  }

  /**
   * The metadata and source of listed values as last listed (`list_changes`): what a match's
   * detail shows once the value is no longer on its list. Keyed by `list` and value.
   */
  async lastListings(
    keys: { list: string; value: string }[],
  ): Promise<Map<string, { metadata: Record<string, unknown>; source_url: string | null }>> {
    const out = new Map<string, { metadata: Record<string, unknown>; source_url: string | null }>();
    if (keys.length === 0) return out;
    const raw = await this.rows<{ list: string; value: string; metadata: string; source_url: string | null }>(
      `SELECT list, value, argMax(metadata, at) AS metadata, argMax(source_url, at) AS source_url
         FROM ${this.t('list_changes')}
        WHERE list IN {lists:Array(String)} AND value IN {values:Array(String)} AND kind != 'delisted'
        GROUP BY list, value`,
      { lists: [...new Set(keys.map((k) => k.list))], values: [...new Set(keys.map((k) => k.value))] },
    );
    for (const r of raw)
      out.set(`${r.list}\u0000${r.value}`, {
        metadata: JSON.parse(r.metadata) as Record<string, unknown>,
        source_url: r.source_url,
      });
    return out;
  }

  /** The customer's x402 payments (requests paid per request while holding a token), newest first. */
  async payments(customerId: number, r: DateRange, limit: number): Promise<PaymentRow[]> {
    const raw = await this.rows<Omit<PaymentRow, 'time'> & { ms: number }>(
      `SELECT toUnixTimestamp64Milli(time) AS ms, request_id, endpoint, payer, toString(amount) AS amount, network, tx_hash, x402_version
         FROM ${this.t('x402_settlements')}
        WHERE customer_id = {customer:UInt32} AND time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND time < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
        ORDER BY time DESC, request_id LIMIT {limit:UInt32}`,
      { customer: customerId, from: r.from, to: r.to, limit },
    );
    return raw.map(({ ms, ...rest }) => ({ time: iso(Number(ms)), ...rest, x402_version: Number(rest.x402_version) }));
  }

  /** The trail for an export, newest first, at most `limit` rows: each row's AUDIT_EXPORT_COLUMNS, as text. */
  async auditExport(customerId: number, f: AuditFilter, limit: number): Promise<string[][]> {
    const w = this.where(customerId, f);
    const start = await this.windowStart(w, f.from, f.to, limit);
    const rs = await this.client.query({
      // The inner query keeps the column `time` for the filter; the outer one renders it.
      query: `SELECT concat(replaceOne(toString(t), ' ', 'T'), 'Z') AS time, request_id, endpoint, screened_value,
                     matched_value, list, list_type, match, list_version,
                     if(isNull(a), '', concat(replaceOne(toString(a), ' ', 'T'), 'Z')) AS as_of
                FROM (SELECT time AS t, request_id, endpoint, screened_value, matched_value, list, list_type, match, list_version, as_of AS a
                        FROM ${this.t('audit_matches')} WHERE ${w.sql} AND time >= fromUnixTimestamp64Milli({w_start:Int64}, 'UTC')
                       ORDER BY time DESC, request_id, list, matched_value
                       LIMIT {limit:UInt32})
               ORDER BY t DESC, request_id, list, matched_value`,
      query_params: { ...w.params, limit, w_start: start },
      format: 'JSONCompactEachRow',
    });
    return rs.json<string[]>();
  }

  /**
   * Values whose latest change on their list is a delisting, most recent first (`/delisted`
   * history). `lists` restricts the lists (public ones); an empty array means none.
   */
  async delisted(lists: string[], limit: number): Promise<DelistedRow[]> {
    if (lists.length === 0) return [];
    const raw = await this.rows<Omit<DelistedRow, 'metadata' | 'removed_at'> & { metadata: string; ms: number }>(
      `SELECT list, entity_type, value, argMax(kind, at) AS last_kind, argMax(metadata, at) AS metadata,
              argMax(source_url, at) AS source_url, toUnixTimestamp64Milli(max(at)) AS ms
         FROM ${this.t('list_changes')}
        WHERE owner = 0 AND list IN {lists:Array(String)}
        GROUP BY list, entity_type, value
       HAVING last_kind = 'delisted'
        ORDER BY ms DESC, list, value
        LIMIT {limit:UInt32}`,
      { lists, limit },
    );
    return raw.map((r) => ({
      entity_type: r.entity_type,
      value: r.value,
      list: r.list,
      metadata: JSON.parse(r.metadata) as Record<string, unknown>,
      source_url: r.source_url,
      removed_at: iso(Number(r.ms)),
    }));
  }

  /**
   * One page of the changes feed: the changes of `owner`'s lists (0: the public lists) after the
   * sequence number `after`, in sequence order, filtered. The primary key (owner, seq) finds the
   * cursor's granule, and the read stops after `limit` rows, so a page deep in the feed costs
   * about what the first does. A change stored twice (at-least-once delivery, before the merge
   * collapses it) appears once.
   */
  async changes(q: ChangesQuery): Promise<ChangeRow[]> {
    const where = ['owner = {owner:UInt32}', 'seq > {after:UInt64}'];
    const params: Record<string, unknown> = { owner: q.owner, after: q.after, limit: q.limit };
    if (q.lists) {
      where.push('list IN {lists:Array(String)}');
      params.lists = q.lists;
    }
    if (q.kinds) {
      where.push('kind IN {kinds:Array(String)}');
      params.kinds = q.kinds;
    }
    if (q.entityTypes) {
      where.push('entity_type IN {types:Array(String)}');
      params.types = q.entityTypes;
    }
    if (q.since !== undefined) {
      where.push("at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')");
      params.since = q.since;
    }
    const raw = await this.rows<Omit<ChangeRow, 'at' | 'metadata'> & { ms: number; metadata: string }>(
      `SELECT seq, change_id, kind, list, version, entity_type, value, metadata, source_url, toUnixTimestamp64Milli(at) AS ms
         FROM ${this.t('list_changes')}
        WHERE ${where.join(' AND ')}
        ORDER BY owner, seq
        LIMIT 1 BY seq
        LIMIT {limit:UInt32}`,
      params,
    );
    return raw.map(({ ms, metadata, ...r }) => ({
      ...r,
      seq: Number(r.seq),
      at: iso(Number(ms)),
      metadata: JSON.parse(metadata) as Record<string, unknown>,
    }));
  }
}

export interface ChangesQuery {
  /** 0: the public lists; else a customer's private lists. */
  owner: number;
  /** Changes after this sequence number. */
  after: number;
  limit: number;
  lists?: readonly string[];
  kinds?: readonly string[];
  entityTypes?: readonly string[];
  /** Only changes ingested at or after this time (ms). */
  since?: number;
}

export interface ChangeRow {
  seq: number;
  change_id: string;
  kind: 'listed' | 'delisted' | 'relisted';
  list: string;
  version: string;
  entity_type: string;
  value: string;
  metadata: Record<string, unknown>;
  source_url: string | null;
  at: string;
}
