/**
 * Rows as the audit writers take them (src/audit/formats.ts encodes them for the insert). Times
 * are milliseconds since the epoch; `customer_id` 0 means none (a payer without a token) and
 * `payer` '' means none; 64-bit amounts travel as decimal strings.
 */
export interface AuditMatchRow {
  time: number;
  customer_id: number;
  payer: string;
  request_id: string;
  endpoint: string;
  screened_value: string;
  matched_value: string;
  list: string;
  list_type: string;
  match: string;
  /** The version of `list` the request was screened against. */
  list_version: string;
  /** The as-of time (ms) of a screening as of a past date, else null. */
  as_of: number | null;
  /** The match as answered (AuditMatch.evidence). */
  evidence: Readonly<Record<string, unknown>>;
  /**
   * The customer's subject that was screened (issue #39); absent for a screening. Its alerts are
   * its own: keyed on `external_id`, never merged with a screening's or another subject's.
   */
  subject?: MatchSubject;
}

/** The subject of a book a match came from, as its alerts show it. */
export interface MatchSubject {
  external_id: string;
  type: string;
  names: string[];
}

export interface UsageRow {
  time: number;
  customer_id: number;
  payer: string;
  request_id: string;
  endpoint: string;
  status: number;
  credits: number;
  method: 'quota' | 'x402';
  amount: string;
  tx_hash: string;
  network: string;
}

export interface SettlementRow {
  time: number;
  request_id: string;
  customer_id: number;
  payer: string;
  endpoint: string;
  network: string;
  x402_version: number;
  amount: string;
  tx_hash: string;
}

export interface ListChangeRow {
  seq: number;
  change_id: string;
  /** A private list's customer; 0 for public lists. */
  owner: number;
  list: string;
  version: string;
  kind: 'listed' | 'delisted' | 'relisted';
  at: number;
  entity_type: string;
  value: string;
  /** JSON text of the entry's metadata. */
  metadata: string;
  source_url: string | null;
}

/** Where rows go; `BatchWriter` implements it. */
export interface RowSink<T> {
  /** Buffers rows (fire and forget); throws, keeping none of them, if one cannot be stored. */
  push(rows: T[]): void;
  /** Resolves once the rows are stored. */
  write(rows: T[]): Promise<void>;
}

/**
 * A decision on an alert, a four-eyes proposal or approval, or the system's re-opening: who (token
 * id and label; 0 and 'system' for the system), when, what, and the evidence it was made on.
 */
export interface AlertDecisionRow {
  time: number;
  customer_id: number;
  alert_id: number;
  /** `decision`, `proposal`, `approval`, `reopened` or `party_changed`. */
  event: string;
  status: string;
  /** The alert's version the event was made on; `version` is the one after it. */
  on_version: number;
  version: number;
  token_id: number;
  token_label: string;
  comment: string;
  screened_value: string;
  list: string;
  listed_party: string;
  list_version: string;
  /** The request of the alert's latest match, to find it in audit_matches. */
  request_id: string;
  /** JSON text of the latest match as answered. */
  evidence: string;
  /** JSON text of what changed in the listed party's record; '' when nothing did. */
  changes: string;
}
