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
  /** Exact screened or matched value. */
  value?: string;
}

/** An audit row as the dashboard reads it: the stored row without the caller, times as ISO text. */
export type AuditTrailItem = Omit<AuditMatchRow, 'time' | 'customer_id' | 'payer' | 'as_of'> & { time: string; as_of: string | null };

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

/** The columns of `auditExport`'s rows, in order. */
export const AUDIT_EXPORT_COLUMNS = ['time', 'request_id', 'endpoint', 'screened_value', 'matched_value', 'list', 'list_type', 'match', 'list_version', 'as_of'] as const;

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

  private where(customerId: number, f: AuditFilter): { sql: string; params: Record<string, unknown> } {
    const parts = [
      'customer_id = {customer:UInt32}',
      "time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')",
      "time < fromUnixTimestamp64Milli({to:Int64}, 'UTC')",
    ];
    const params: Record<string, unknown> = { customer: customerId, from: f.from, to: f.to };
    if (f.list) {
      parts.push('list = {list:String}');
      params.list = f.list;
    }
    if (f.value) {
      parts.push('(screened_value = {value:String} OR matched_value = {value:String})');
      params.value = f.value;
    }
    return { sql: parts.join(' AND '), params };
  }

  async usageByDay(customerId: number, r: DateRange): Promise<UsageDay[]> {
    const w = this.where(customerId, r);
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

  /** One page of the trail, newest first, and the number of rows matching the filter. */
  async auditTrail(customerId: number, f: AuditFilter, page: { limit: number; offset: number }): Promise<{ total: number; items: AuditTrailItem[] }> {
    const w = this.where(customerId, f);
    const [count] = await this.rows<{ total: number }>(`SELECT toUInt32(count()) AS total FROM ${this.t('audit_matches')} WHERE ${w.sql}`, w.params);
    const raw = await this.rows<Omit<AuditTrailItem, 'time' | 'as_of'> & { ms: number; as_of_ms: number | null }>(
      `SELECT toUnixTimestamp64Milli(time) AS ms, request_id, endpoint, screened_value, matched_value, list, list_type, match,
              list_version, toUnixTimestamp64Milli(as_of) AS as_of_ms
         FROM ${this.t('audit_matches')} WHERE ${w.sql}
        ORDER BY time DESC, request_id, list, matched_value
        LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      { ...w.params, limit: page.limit, offset: page.offset },
    );
    return {
      total: count?.total ?? 0,
      items: raw.map(({ ms, as_of_ms, ...rest }) => ({ time: iso(Number(ms)), ...rest, as_of: as_of_ms === null ? null : iso(Number(as_of_ms)) })),
    };
  }

  /** The trail for an export, newest first, at most `limit` rows: each row's AUDIT_EXPORT_COLUMNS, as text. */
  async auditExport(customerId: number, f: AuditFilter, limit: number): Promise<string[][]> {
    const w = this.where(customerId, f);
    const rs = await this.client.query({
      // The inner query keeps the column `time` for the filter; the outer one renders it.
      query: `SELECT concat(replaceOne(toString(t), ' ', 'T'), 'Z') AS time, request_id, endpoint, screened_value,
                     matched_value, list, list_type, match, list_version,
                     if(isNull(a), '', concat(replaceOne(toString(a), ' ', 'T'), 'Z')) AS as_of
                FROM (SELECT time AS t, request_id, endpoint, screened_value, matched_value, list, list_type, match, list_version, as_of AS a
                        FROM ${this.t('audit_matches')} WHERE ${w.sql}
                       ORDER BY time DESC, request_id, list, matched_value
                       LIMIT {limit:UInt32})
               ORDER BY t DESC, request_id, list, matched_value`,
      query_params: { ...w.params, limit },
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
    return raw.map(({ ms, metadata, ...r }) => ({ ...r, seq: Number(r.seq), at: iso(Number(ms)), metadata: JSON.parse(metadata) as Record<string, unknown> }));
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
