import type { AlertDecisionRow, AuditMatchRow, ListChangeRow, SettlementRow, UsageRow } from './rows.js';
import {
  checkNullableText,
  checkText,
  checkTime,
  dateTime64,
  member,
  nullableText,
  text,
  uint,
  uint64,
  UINT16,
  UINT32,
  UINT8,
} from './tsv.js';

/** How one table's rows become TabSeparated lines (see src/audit/schema.ts for the columns). */
export interface LineFormat<T> {
  /** The columns of each line, in order (the insert names them, so table order is free). */
  readonly columns: readonly [string, ...string[]];
  /** Throws for a value its column would reject, as `line` does, without making the line. */
  check(row: T): void;
  /** One row as a line, newline included; throws for a value its column would reject. */
  line(row: T): string;
}

/*
 * A metered request pushes its audit rows and then its usage row, which start with the same five
 * columns (time, customer, payer, request id, endpoint); its audit rows share the screened value,
 * and a match's last four columns (matched value, list, list type, match kind) are the same each
 * time that entity matches. So the text of those groups is kept for the values last seen and
 * reused while every value is the same (===), escaped and checked once: building them field by
 * field was most of what a request's rows cost.
 * The kept texts are joined, not concatenated: `join` makes one flat string, while `+` and
 * template literals make a tree of pieces that V8 walks again each time a kept text is copied
 * into a batch (String::WriteToFlat was the main thread's largest user-space cost under load).
 */

let headTime = NaN;
let headCustomer = NaN;
let headPayer = '';
let headRequest = '';
let headEndpoint = '';
let headText = '';

/** `time`, `customer_id`, `payer`, `request_id` and `endpoint`, each followed by a tab. */
function head(time: number, customerId: number, payer: string, requestId: string, endpoint: string): string {
  if (
    time !== headTime ||
    customerId !== headCustomer ||
    payer !== headPayer ||
    requestId !== headRequest ||
    endpoint !== headEndpoint
  ) {
    headText = [dateTime64(time), uint(customerId, UINT32), text(payer), text(requestId), text(endpoint), ''].join(
      '\t',
    );
    headTime = time;
    headCustomer = customerId;
    headPayer = payer;
    headRequest = requestId;
    headEndpoint = endpoint;
  }
  return headText;
}

function checkHead(time: number, customerId: number, payer: string, requestId: string, endpoint: string): void {
  checkTime(time);
  uint(customerId, UINT32);
  checkText(payer);
  checkText(requestId);
  checkText(endpoint);
}

// Starts as a value no row has: a row without a screened value must fail, not reuse this text.
let screenedValue: unknown = Symbol('none');
let screenedText = '';

interface MatchedText {
  value: string;
  list: string;
  listType: string;
  match: string;
  version: string;
  asOf: number | null;
  text: string;
}
/** The matched entities' last columns, most recent first overwritten in turn (a request's matches are a few entities). */
const matchedTexts = new Array<MatchedText | null>(8).fill(null);
let nextMatched = 0;

/** A tab, then `matched_value`, `list`, `list_type`, `match`, `list_version` and `as_of`, and the newline. */
function matched(r: AuditMatchRow): string {
  for (let i = 0; i < matchedTexts.length; i++) {
    const m = matchedTexts[i];
    if (
      m !== null &&
      m.value === r.matched_value &&
      m.list === r.list &&
      m.listType === r.list_type &&
      m.match === r.match &&
      m.version === r.list_version &&
      m.asOf === r.as_of
    ) {
      return m.text;
    }
  }
  const m: MatchedText = {
    value: r.matched_value,
    list: r.list,
    listType: r.list_type,
    match: r.match,
    version: r.list_version,
    asOf: r.as_of,
    text: [
      '',
      text(r.matched_value),
      text(r.list),
      text(r.list_type),
      text(r.match),
      text(r.list_version),
      `${r.as_of === null ? '\\N' : dateTime64(r.as_of)}\n`,
    ].join('\t'),
  };
  matchedTexts[nextMatched] = m;
  nextMatched = (nextMatched + 1) % matchedTexts.length;
  return m.text;
}

export const auditMatchLines: LineFormat<AuditMatchRow> = {
  columns: [
    'time',
    'customer_id',
    'payer',
    'request_id',
    'endpoint',
    'screened_value',
    'matched_value',
    'list',
    'list_type',
    'match',
    'list_version',
    'as_of',
  ],
  check: (r) => {
    checkHead(r.time, r.customer_id, r.payer, r.request_id, r.endpoint);
    checkText(r.screened_value);
    checkText(r.matched_value);
    checkText(r.list);
    checkText(r.list_type);
    checkText(r.match);
    checkText(r.list_version);
    if (r.as_of !== null) checkTime(r.as_of);
  },
  line: (r) => {
    const start = head(r.time, r.customer_id, r.payer, r.request_id, r.endpoint);
    if (r.screened_value !== screenedValue) {
      screenedText = text(r.screened_value);
      screenedValue = r.screened_value;
    }
    return start + screenedText + matched(r);
  },
};

const METHODS: readonly UsageRow['method'][] = ['quota', 'x402'];

let usageStatus = NaN;
let usageCredits = NaN;
let usageMethod = '';
let usageAmount = '';
let usageTx = '';
let usageNetwork = '';
let usageText = '';

export const usageLines: LineFormat<UsageRow> = {
  columns: [
    'time',
    'customer_id',
    'payer',
    'request_id',
    'endpoint',
    'status',
    'credits',
    'method',
    'amount',
    'tx_hash',
    'network',
  ],
  check: (r) => {
    checkHead(r.time, r.customer_id, r.payer, r.request_id, r.endpoint);
    uint(r.status, UINT16);
    uint(r.credits, UINT32);
    member(r.method, METHODS);
    uint64(r.amount);
    checkText(r.tx_hash);
    checkText(r.network);
  },
  line: (r) => {
    const start = head(r.time, r.customer_id, r.payer, r.request_id, r.endpoint);
    if (
      r.status !== usageStatus ||
      r.credits !== usageCredits ||
      r.method !== usageMethod ||
      r.amount !== usageAmount ||
      r.tx_hash !== usageTx ||
      r.network !== usageNetwork
    ) {
      usageText = [
        uint(r.status, UINT16),
        uint(r.credits, UINT32),
        member(r.method, METHODS),
        uint64(r.amount),
        text(r.tx_hash),
        `${text(r.network)}\n`,
      ].join('\t');
      usageStatus = r.status;
      usageCredits = r.credits;
      usageMethod = r.method;
      usageAmount = r.amount;
      usageTx = r.tx_hash;
      usageNetwork = r.network;
    }
    return start + usageText;
  },
};

export const settlementLines: LineFormat<SettlementRow> = {
  columns: ['time', 'request_id', 'customer_id', 'payer', 'endpoint', 'network', 'x402_version', 'amount', 'tx_hash'],
  check: (r) => {
    checkHead(r.time, r.customer_id, r.payer, r.request_id, r.endpoint);
    checkText(r.network);
    uint(r.x402_version, UINT8);
    uint64(r.amount);
    checkText(r.tx_hash);
  },
  line: (r) =>
    `${dateTime64(r.time)}\t${text(r.request_id)}\t${uint(r.customer_id, UINT32)}\t${text(r.payer)}\t${text(r.endpoint)}\t` +
    `${text(r.network)}\t${uint(r.x402_version, UINT8)}\t${uint64(r.amount)}\t${text(r.tx_hash)}\n`,
};

const KINDS: readonly ListChangeRow['kind'][] = ['listed', 'delisted', 'relisted'];

export const listChangeLines: LineFormat<ListChangeRow> = {
  columns: [
    'seq',
    'change_id',
    'owner',
    'list',
    'version',
    'kind',
    'at',
    'entity_type',
    'value',
    'metadata',
    'source_url',
  ],
  check: (r) => {
    uint(r.seq, Number.MAX_SAFE_INTEGER);
    checkText(r.change_id);
    uint(r.owner, UINT32);
    checkText(r.list);
    checkText(r.version);
    member(r.kind, KINDS);
    checkTime(r.at);
    checkText(r.entity_type);
    checkText(r.value);
    checkText(r.metadata);
    checkNullableText(r.source_url);
  },
  line: (r) =>
    `${uint(r.seq, Number.MAX_SAFE_INTEGER)}\t${text(r.change_id)}\t${uint(r.owner, UINT32)}\t` +
    `${text(r.list)}\t${text(r.version)}\t${member(r.kind, KINDS)}\t${dateTime64(r.at)}\t${text(r.entity_type)}\t` +
    `${text(r.value)}\t${text(r.metadata)}\t${nullableText(r.source_url)}\n`,
};

export const alertDecisionLines: LineFormat<AlertDecisionRow> = {
  columns: [
    'time',
    'customer_id',
    'alert_id',
    'event',
    'status',
    'on_version',
    'version',
    'token_id',
    'token_label',
    'comment',
    'screened_value',
    'list',
    'listed_party',
    'list_version',
    'request_id',
    'evidence',
    'changes',
  ],
  check: (r) => void alertDecisionLines.line(r),
  line: (r) =>
    [
      dateTime64(r.time),
      uint(r.customer_id, UINT32),
      uint(r.alert_id, UINT32),
      text(r.event),
      text(r.status),
      uint(r.on_version, UINT32),
      uint(r.version, UINT32),
      uint(r.token_id, UINT32),
      text(r.token_label),
      text(r.comment),
      text(r.screened_value),
      text(r.list),
      text(r.listed_party),
      text(r.list_version),
      text(r.request_id),
      text(r.evidence),
      `${text(r.changes)}\n`,
    ].join('\t'),
};
