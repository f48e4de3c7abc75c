import type { AuditMatchRow, ListChangeRow, SettlementRow, UsageRow } from './rows.js';
import { dateTime64, member, nullableText, text, uint, uint64, UINT16, UINT32, UINT8 } from './tsv.js';

/** How one table's rows become TabSeparated lines (see src/audit/schema.ts for the columns). */
export interface LineFormat<T> {
  /** The columns of each line, in order (the insert names them, so table order is free). */
  readonly columns: readonly [string, ...string[]];
  /** One row as a line, newline included; throws for a value its column would reject. */
  line(row: T): string;
}

export const auditMatchLines: LineFormat<AuditMatchRow> = {
  columns: ['time', 'customer_id', 'payer', 'request_id', 'endpoint', 'screened_value', 'matched_value', 'list', 'list_type', 'match'],
  line: (r) =>
    `${dateTime64(r.time)}\t${uint(r.customer_id, UINT32)}\t${text(r.payer)}\t${text(r.request_id)}\t${text(r.endpoint)}\t` +
    `${text(r.screened_value)}\t${text(r.matched_value)}\t${text(r.list)}\t${text(r.list_type)}\t${text(r.match)}\n`,
};

const METHODS: readonly UsageRow['method'][] = ['quota', 'x402'];

export const usageLines: LineFormat<UsageRow> = {
  columns: ['time', 'customer_id', 'payer', 'request_id', 'endpoint', 'status', 'credits', 'method', 'amount', 'tx_hash', 'network'],
  line: (r) =>
    `${dateTime64(r.time)}\t${uint(r.customer_id, UINT32)}\t${text(r.payer)}\t${text(r.request_id)}\t${text(r.endpoint)}\t` +
    `${uint(r.status, UINT16)}\t${uint(r.credits, UINT32)}\t${member(r.method, METHODS)}\t${uint64(r.amount)}\t${text(r.tx_hash)}\t${text(r.network)}\n`,
};

export const settlementLines: LineFormat<SettlementRow> = {
  columns: ['time', 'request_id', 'customer_id', 'payer', 'endpoint', 'network', 'x402_version', 'amount', 'tx_hash'],
  line: (r) =>
    `${dateTime64(r.time)}\t${text(r.request_id)}\t${uint(r.customer_id, UINT32)}\t${text(r.payer)}\t${text(r.endpoint)}\t` +
    `${text(r.network)}\t${uint(r.x402_version, UINT8)}\t${uint64(r.amount)}\t${text(r.tx_hash)}\n`,
};

const KINDS: readonly ListChangeRow['kind'][] = ['listed', 'delisted', 'relisted'];

export const listChangeLines: LineFormat<ListChangeRow> = {
  columns: ['list', 'version', 'kind', 'at', 'entity_type', 'value', 'metadata', 'source_url'],
  line: (r) =>
    `${text(r.list)}\t${text(r.version)}\t${member(r.kind, KINDS)}\t${dateTime64(r.at)}\t${text(r.entity_type)}\t` +
    `${text(r.value)}\t${text(r.metadata)}\t${nullableText(r.source_url)}\n`,
};
