import type { ClickHouseClient } from '@clickhouse/client';
import type { DateRange } from './queries.js';

/** An alert decision as the audit trail keeps it (src/audit/rows.ts AlertDecisionRow), parsed. */
export interface AuditedDecision {
  time: string;
  alert_id: number;
  event: string;
  status: string | null;
  on_version: number;
  version: number;
  token_id: number;
  token_label: string;
  comment: string | null;
  screened_value: string;
  list: string;
  listed_party: string;
  list_version: string;
  request_id: string;
  evidence: Record<string, unknown>;
  changes: Record<string, unknown> | null;
}

type Raw = Omit<AuditedDecision, 'time' | 'evidence' | 'changes' | 'comment' | 'status'> & {
  status: string;
  ms: string | number;
  evidence: string;
  changes: string;
  comment: string;
};

/** Reads a customer's alert decisions from `alert_decisions`, in the order they were made. */
export class AlertDecisionQueries {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
  ) {}

  /** The decisions in a time range (optionally of one alert), oldest first, at most `limit`. */
  async list(
    customerId: number,
    r: DateRange & { alertId?: number; limit: number },
  ): Promise<{ items: AuditedDecision[]; truncated: boolean }> {
    const rs = await this.client.query({
      query: `SELECT toUnixTimestamp64Milli(time) AS ms, alert_id, event, status, on_version,
          version, token_id, token_label, comment, screened_value, list, listed_party, list_version, request_id,
          evidence, changes
        FROM \`${this.database}\`.alert_decisions
        WHERE customer_id = {customer:UInt32}
          AND time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND time < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
          ${r.alertId === undefined ? '' : 'AND alert_id = {alert:UInt32}'}
        ORDER BY time, alert_id, version LIMIT {limit:UInt32}`,
      query_params: { customer: customerId, from: r.from, to: r.to, alert: r.alertId ?? 0, limit: r.limit + 1 },
      format: 'JSONEachRow',
    });
    const raw = await rs.json<Raw>();
    return {
      items: raw.slice(0, r.limit).map(({ ms, ...d }) => ({
        ...d,
        time: new Date(Number(ms)).toISOString(),
        alert_id: Number(d.alert_id),
        status: d.status === '' ? null : d.status,
        on_version: Number(d.on_version),
        version: Number(d.version),
        token_id: Number(d.token_id),
        comment: d.comment === '' ? null : d.comment,
        evidence: JSON.parse(d.evidence) as Record<string, unknown>,
        changes: d.changes === '' ? null : (JSON.parse(d.changes) as Record<string, unknown>),
      })),
      truncated: raw.length > r.limit,
    };
  }
}
