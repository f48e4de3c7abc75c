import type { Logger } from 'pino';
import type { AnyEndpoint, AuditMatch, RequestMeta } from '../core/endpoint.js';
import type { Payments } from '../core/payments.js';
import type { AuditMatchRow, RowSink, SettlementRow, UsageRow } from '../audit/rows.js';

/** Where a charge records what it did, and how: made once per gate, shared by every charge. */
export interface ChargeSinks {
  audit: RowSink<AuditMatchRow>;
  usage: RowSink<UsageRow>;
  settlements: RowSink<SettlementRow>;
  payments: Payments;
  /** AUDIT_STRICT: rows are stored (awaited) before the answer goes out, not buffered. */
  strict: boolean;
  now: () => number;
  log?: Logger;
}

/** What every match row of one request or job repeats: when, whose, which request and endpoint. */
export type MatchRowHead = Pick<AuditMatchRow, 'time' | 'customer_id' | 'payer' | 'request_id' | 'endpoint'>;

/** One match as the audit trail stores it. */
export function matchRow(head: MatchRowHead, m: AuditMatch): AuditMatchRow {
  return {
    time: head.time,
    customer_id: head.customer_id,
    payer: head.payer,
    request_id: head.request_id,
    endpoint: head.endpoint,
    screened_value: m.screened_value,
    matched_value: m.matched_value,
    list: m.list,
    list_type: m.list_type,
    match: m.match,
    list_version: m.list_version,
    as_of: m.as_of,
    evidence: m.evidence,
  };
}

export function matchRows(
  endpoint: AnyEndpoint,
  meta: RequestMeta,
  time: number,
  customerId: number,
  payer: string,
  audit: AuditMatch[],
): AuditMatchRow[] {
  const head: MatchRowHead = {
    time,
    customer_id: customerId,
    payer,
    request_id: meta.requestId,
    endpoint: endpoint.id,
  };
  return audit.map((m) => matchRow(head, m));
}

export function quotaUsageRow(
  endpoint: AnyEndpoint,
  meta: RequestMeta,
  customerId: number,
  time: number,
  status: number,
  credits: number,
): UsageRow {
  return {
    time,
    customer_id: customerId,
    payer: '',
    request_id: meta.requestId,
    endpoint: endpoint.id,
    status,
    credits,
    method: 'quota',
    amount: '0',
    tx_hash: '',
    network: '',
  };
}

/** Strict mode: a quota-charged request's (or part's) usage row and audit rows, stored. */
export function storeQuotaRows(sinks: ChargeSinks, usage: UsageRow, matches: AuditMatchRow[]): Promise<unknown> {
  return Promise.all([sinks.usage.write([usage]), sinks.audit.write(matches)]);
}
