import type { Logger } from 'pino';
import type { Db, Queryable } from '../store/db.js';
import type { AlertDecisionRow, AuditMatchRow, MatchSubject, RowSink } from '../audit/rows.js';
import { fingerprint, PARTY_FIELDS, partyRecord } from './party.js';

/**
 * Alerts in the control-plane database (migrations 070, 072, 075): one per (customer, screened
 * value, listed party or entity, list). Matches open or update them with their latest evidence;
 * analysts' decisions change their status under an optimistic version check, and every decision or
 * comment is appended to the alert's history. A decided alert keeps the listed party's record as
 * it was decided: a false positive re-opens only when that record changes (docs/alerts.md).
 */

export const ALERT_STATUSES = ['open', 'escalated', 'confirmed', 'false_positive', 'closed'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Statuses a decision must explain. */
export const COMMENT_REQUIRED: readonly AlertStatus[] = ['confirmed', 'false_positive'];

export interface Alert {
  id: number;
  version: number;
  status: AlertStatus;
  screened_value: string;
  matched_value: string;
  listed_party: string;
  score: number;
  subject: AlertSubject | null;
  list: string;
  list_type: string;
  match: string;
  occurrences: number;
  first_seen: string;
  last_seen: string;
  decided_at: string | null;
}

/** The monitored subject an alert came from (issue #39). */
type AlertSubject = MatchSubject;

export const EVENT_KINDS = ['decision', 'comment', 'proposal', 'approval', 'reopened', 'party_changed'] as const;
type EventKind = (typeof EVENT_KINDS)[number];

/** A field of the listed party's record as it was decided and as a later list version has it. */
type PartyChanges = Record<string, { from: string[]; to: string[] }>;

interface AlertEvent {
  kind: EventKind;
  status: AlertStatus | null;
  comment: string | null;
  on_version: number | null;
  /** 0 for the system's events (`reopened`, `party_changed`), labelled 'system'. */
  token_id: number;
  token_label: string | null;
  at: string;
  changes: PartyChanges | null;
}

/** A four-eyes proposal: it takes effect when another token makes the same decision. */
interface PendingDecision {
  status: AlertStatus;
  comment: string | null;
  token_id: number;
  token_label: string | null;
  at: string;
}

export interface AlertDetail extends Alert {
  evidence: {
    match: string;
    list_version: string;
    endpoint: string;
    request_id: string;
    answer: Record<string, unknown>;
  };
  pending: PendingDecision | null;
  history: AlertEvent[];
}

/** Who decides or comments: one token per analyst. */
export interface Analyst {
  tokenId: number;
}

export interface Decision {
  status: AlertStatus;
  comment?: string;
  version: number;
}

/** A decision made on a version that is no longer the alert's (someone else decided first). */
export class AlertVersionConflict extends Error {
  constructor(
    readonly alertId: number,
    readonly current: number,
  ) {
    super(`Alert ${alertId} is at version ${current}: reload it and decide again`);
  }
}

/** A four-eyes approval by the token that proposed the decision. */
export class AlertSelfApproval extends Error {
  constructor(
    readonly alertId: number,
    readonly tokenId: number,
  ) {
    super(
      `Alert ${alertId}: this decision was proposed with token ${tokenId}; under the four-eyes rule another analyst's token must approve it`,
    );
  }
}

export const COLUMNS = `id, version, status, screened_value, matched_value, listed_key, score, subject, list, list_type,
  match, occurrences, first_seen, last_seen, decided_at`;

export interface AlertRow {
  id: number;
  version: number;
  status: AlertStatus;
  screened_value: string;
  matched_value: string;
  listed_key: string;
  score: number;
  subject: AlertSubject | null;
  list: string;
  list_type: string;
  match: string;
  occurrences: number;
  first_seen: Date | string;
  last_seen: Date | string;
  decided_at: Date | string | null;
}

const iso = (t: Date | string) => new Date(t).toISOString();

export function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    version: r.version,
    status: r.status,
    screened_value: r.screened_value,
    matched_value: r.matched_value,
    listed_party: r.listed_key,
    score: r.score,
    subject: r.subject,
    list: r.list,
    list_type: r.list_type,
    match: r.match,
    occurrences: r.occurrences,
    first_seen: iso(r.first_seen),
    last_seen: iso(r.last_seen),
    decided_at: r.decided_at === null ? null : iso(r.decided_at),
  };
}

/** The columns of an alert's detail: the list's, the latest evidence and a pending proposal. */
export const DETAIL_COLUMNS = `${COLUMNS}, list_version, endpoint, request_id, evidence, pending_status, pending_comment,
  pending_token_id, pending_token_label, pending_at`;

export type DetailRow = AlertRow & {
  list_version: string;
  endpoint: string;
  request_id: string;
  evidence: Record<string, unknown>;
  pending_status: AlertStatus | null;
  pending_comment: string | null;
  pending_token_id: number | null;
  pending_token_label: string | null;
  pending_at: Date | string | null;
};

/** The columns of an alert's history events. */
export const EVENT_COLUMNS = 'kind, status, comment, on_version, token_id, token_label, at, changes';

export type EventRecord = AlertEvent & { at: Date | string };

/** An alert's detail from its row and its history, oldest event first. */
export function toDetail(r: DetailRow, events: readonly EventRecord[]): AlertDetail {
  return {
    ...toAlert(r),
    evidence: {
      match: r.match,
      list_version: r.list_version,
      endpoint: r.endpoint,
      request_id: r.request_id,
      answer: r.evidence,
    },
    pending:
      r.pending_status === null
        ? null
        : {
            status: r.pending_status,
            comment: r.pending_comment,
            token_id: r.pending_token_id!,
            token_label: r.pending_token_label,
            at: iso(r.pending_at!),
          },
    history: events.map((e) => ({ ...e, at: iso(e.at) })),
  };
}

/** The party a name match is about (`metadata.id`); else the listed value is the entity. */
function listedKey(row: AuditMatchRow): string {
  const metadata = row.evidence.metadata as { id?: unknown } | undefined;
  return typeof metadata?.id === 'string' ? metadata.id : row.matched_value;
}

/** A fuzzy match's score (a name's party score, a PEP candidate's score); an exact match is 1. */
function scoreOf(row: AuditMatchRow): number {
  const metadata = row.evidence.metadata as { score?: unknown } | undefined;
  const score = typeof metadata?.score === 'number' ? metadata.score : row.evidence.score;
  return typeof score === 'number' && score >= 0 && score <= 1 ? score : 1;
}

/** One alert's key and what a batch of matches adds to it: its latest row, their count, the first time. */
export interface Upsert {
  row: AuditMatchRow;
  count: number;
  first: number;
}

/**
 * Merges matches into `into`, one entry per alert (a statement may not touch a row twice); rows
 * without a customer (x402 payers) have no alerts.
 */
export function mergeMatches(rows: readonly AuditMatchRow[], into: Map<string, Upsert>): void {
  for (const row of rows) {
    if (row.customer_id === 0) continue;
    const subject = row.subject?.external_id ?? '';
    const key = `${row.customer_id}\u0000${subject}\u0000${row.screened_value}\u0000${row.list}\u0000${listedKey(row)}`;
    const u = into.get(key);
    if (!u) into.set(key, { row, count: 1, first: row.time });
    else {
      u.count++;
      if (row.time < u.first) u.first = row.time;
      if (row.time >= u.row.time) u.row = row;
    }
  }
}

/** Where decisions go besides the history: the audit trail's `alert_decisions` writer. */
export interface DecisionTrail {
  decisions: RowSink<AlertDecisionRow>;
  log: Logger;
}

const DECIDED = `('confirmed', 'false_positive', 'closed')`;
/**
 * Of an alert being updated by a match (`alerts` the row, EXCLUDED the match): a false positive
 * whose party changed since the decision, or a closed alert seen again after it was closed.
 */
const REOPENS = `((alerts.status = 'false_positive' AND alerts.decided_fingerprint <> EXCLUDED.party_fingerprint)
  OR (alerts.status = 'closed' AND EXCLUDED.last_seen > alerts.decided_at))`;
const PENDING = ['pending_status', 'pending_comment', 'pending_token_id', 'pending_token_label', 'pending_at'];
const FIELDS = PARTY_FIELDS.map(([key, label], i) => `(${i}, '${key}', '${label}')`).join(', ');
const listText = (v: string) => `coalesce((SELECT string_agg(x, ', ') FROM jsonb_array_elements_text(${v}) x), '—')`;

/** The alert an event is about, and the evidence it was decided on. */
interface DecidedAlert {
  customer_id: number;
  alert_id: number;
  version: number;
  screened_value: string;
  list: string;
  listed_key: string;
  list_version: string;
  request_id: string;
  evidence: Record<string, unknown>;
}

type EventAt = Omit<AlertEvent, 'at'> & { at: Date | string };
type EventRow = EventAt & DecidedAlert;

/** The audit trail's copy of an event, with the alert and the evidence it was decided on. */
function decisionRow(e: EventAt, a: DecidedAlert): AlertDecisionRow {
  return {
    time: new Date(e.at).getTime(),
    customer_id: a.customer_id,
    alert_id: a.alert_id,
    event: e.kind,
    status: e.status ?? '',
    on_version: e.on_version ?? 0,
    version: a.version,
    token_id: e.token_id,
    token_label: e.token_label ?? '',
    comment: e.comment ?? '',
    screened_value: a.screened_value,
    list: a.list,
    listed_party: a.listed_key,
    list_version: a.list_version,
    request_id: a.request_id,
    evidence: JSON.stringify(a.evidence),
    changes: e.changes === null ? '' : JSON.stringify(e.changes),
  };
}

/** The audit row of the decision just appended to an alert's history (its last event). */
function decisionOf(customerId: number, d: AlertDetail): AlertDecisionRow {
  return decisionRow(d.history[d.history.length - 1], {
    customer_id: customerId,
    alert_id: d.id,
    version: d.version,
    screened_value: d.screened_value,
    list: d.list,
    listed_key: d.listed_party,
    list_version: d.evidence.list_version,
    request_id: d.evidence.request_id,
    evidence: d.evidence.answer,
  });
}

export class AlertStore {
  constructor(
    private readonly db: Db,
    private readonly trail: DecisionTrail,
  ) {}

  /** Opens or updates the alerts of a batch of audit rows in one statement. */
  async record(rows: readonly AuditMatchRow[]): Promise<void> {
    const merged = new Map<string, Upsert>();
    mergeMatches(rows, merged);
    await this.upsert([...merged.values()]);
  }

  /**
   * Opens or updates the alerts of merged matches (mergeMatches) in one statement. A match whose
   * listed party differs from the record a decision kept re-opens a false positive and records
   * the change in the history of a confirmed or closed alert; a new occurrence re-opens a closed
   * one. Those events are the system's, and go to the audit trail too.
   */
  async upsert(ups: readonly Upsert[]): Promise<void> {
    if (ups.length === 0) return;
    const col = <T>(f: (u: Upsert) => T) => ups.map(f);
    const parties = ups.map((u) => partyRecord(u.row.evidence));
    // `prior` reads the rows as they were before this statement (one snapshot for every part).
    const { rows } = await this.db.query<EventRow>(
      `WITH input AS (
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
           $8::text[], $9::text[], $10::int[], $11::timestamptz[], $12::timestamptz[], $13::text[], $14::jsonb[],
           $15::float8[], $16::jsonb[], $17::text[], $18::text[], $19::jsonb[])
           AS i(customer_id, screened_value, matched_value, list, list_type, match, list_version, endpoint, request_id,
             occurrences, first_seen, last_seen, listed_key, evidence, score, party, party_fingerprint, subject_key,
             subject)
       ), prior AS (
         SELECT a.id, a.status, a.version, a.decided_party, a.decided_fingerprint FROM alerts a JOIN input i
           ON (a.customer_id, a.subject_key, a.screened_value, a.list, a.listed_key)
             = (i.customer_id, i.subject_key, i.screened_value, i.list, i.listed_key)
       ), up AS (
         INSERT INTO alerts (customer_id, screened_value, matched_value, list, list_type, match, list_version,
           endpoint, request_id, occurrences, first_seen, last_seen, listed_key, evidence, score, party, party_fingerprint,
           subject_key, subject)
         SELECT * FROM input
         ON CONFLICT (customer_id, subject_key, screened_value, list, listed_key) DO UPDATE SET
           occurrences = alerts.occurrences + EXCLUDED.occurrences,
           first_seen = least(alerts.first_seen, EXCLUDED.first_seen),
           last_seen = greatest(alerts.last_seen, EXCLUDED.last_seen),
           matched_value = EXCLUDED.matched_value, list_type = EXCLUDED.list_type, match = EXCLUDED.match,
           list_version = EXCLUDED.list_version, endpoint = EXCLUDED.endpoint, request_id = EXCLUDED.request_id,
           evidence = EXCLUDED.evidence, score = EXCLUDED.score, subject = EXCLUDED.subject,
           party = EXCLUDED.party, party_fingerprint = EXCLUDED.party_fingerprint,
           status = CASE WHEN ${REOPENS} THEN 'open' ELSE alerts.status END,
           version = alerts.version + CASE WHEN ${REOPENS} THEN 1 ELSE 0 END,
           ${PENDING.map((c) => `${c} = CASE WHEN ${REOPENS} THEN NULL ELSE alerts.${c} END`).join(',\n           ')},
           decided_party = CASE WHEN alerts.status IN ${DECIDED} THEN EXCLUDED.party ELSE alerts.decided_party END,
           decided_fingerprint = CASE WHEN alerts.status IN ${DECIDED}
             THEN EXCLUDED.party_fingerprint ELSE alerts.decided_fingerprint END
         RETURNING id, customer_id, status, version, screened_value, list, listed_key, list_version, request_id,
           evidence, party, party_fingerprint
       ), changed AS (
         SELECT up.*, p.version AS prior_version, p.decided_party AS prior_party,
           p.status <> up.status AS reopened, p.decided_fingerprint <> up.party_fingerprint AS party_changed
         FROM up JOIN prior p ON p.id = up.id
         WHERE p.status IN ${DECIDED} AND (p.status <> up.status OR p.decided_fingerprint <> up.party_fingerprint)
       ), events AS (
         INSERT INTO alert_events (alert_id, kind, status, comment, on_version, token_id, token_label, changes)
         SELECT c.id, CASE WHEN c.reopened THEN 'reopened' ELSE 'party_changed' END, c.status,
           CASE WHEN c.party_changed
             THEN 'The listed party changed in list version ' || c.list_version || ': ' || d.text
             ELSE 'Matched again after it was closed' END,
           c.prior_version, 0, 'system', d.changes
         FROM changed c LEFT JOIN LATERAL (
           SELECT string_agg(f.label || ': ' || ${listText('c.prior_party -> f.key')} || ' → '
               || ${listText('c.party -> f.key')}, '; ' ORDER BY f.n) AS text,
             jsonb_object_agg(f.key, jsonb_build_object('from', c.prior_party -> f.key, 'to', c.party -> f.key)) AS changes
           FROM (VALUES ${FIELDS}) f(n, key, label)
           WHERE c.party_changed AND c.prior_party -> f.key IS DISTINCT FROM c.party -> f.key
         ) d ON true
         RETURNING alert_id, kind, status, comment, on_version, token_id, token_label, at, changes
       )
       SELECT e.*, c.customer_id, c.version, c.screened_value, c.list, c.listed_key, c.list_version, c.request_id,
         c.evidence
       FROM events e JOIN changed c ON c.id = e.alert_id`,
      [
        col((u) => u.row.customer_id),
        col((u) => u.row.screened_value),
        col((u) => u.row.matched_value),
        col((u) => u.row.list),
        col((u) => u.row.list_type),
        col((u) => u.row.match),
        col((u) => u.row.list_version),
        col((u) => u.row.endpoint),
        col((u) => u.row.request_id),
        col((u) => u.count),
        col((u) => new Date(u.first).toISOString()),
        col((u) => new Date(u.row.time).toISOString()),
        col((u) => listedKey(u.row)),
        col((u) => JSON.stringify(u.row.evidence)),
        col((u) => scoreOf(u.row)),
        parties.map((p) => JSON.stringify(p)),
        parties.map(fingerprint),
        col((u) => u.row.subject?.external_id ?? ''),
        col((u) => (u.row.subject ? JSON.stringify(u.row.subject) : null)),
      ],
    );
    await this.audit(rows.map((r) => decisionRow(r, r)));
  }

  /** An alert with its latest evidence, a pending proposal and full history; null when the customer has no such alert. */
  async get(customerId: number, id: number, q: Queryable = this.db): Promise<AlertDetail | null> {
    const { rows } = await q.query<DetailRow>(
      `SELECT ${DETAIL_COLUMNS} FROM alerts WHERE id = $1 AND customer_id = $2`,
      [id, customerId],
    );
    if (rows.length === 0) return null;
    const events = await q.query<EventRecord>(
      `SELECT ${EVENT_COLUMNS} FROM alert_events WHERE alert_id = $1 ORDER BY id`,
      [id],
    );
    return toDetail(rows[0], events.rows);
  }

  /**
   * Applies a decision made on `decision.version` if nobody decided since (the row lock makes a
   * concurrent second decision see the new version), else AlertVersionConflict. Under the
   * customer's four-eyes rule a `confirmed` or `false_positive` decision is a proposal until another
   * token makes the same one (the same token: AlertSelfApproval). Null when the customer has no
   * such alert.
   */
  async decide(customerId: number, id: number, decision: Decision, who: Analyst): Promise<AlertDetail | null> {
    const done = await this.db.transaction((tx) => this.decideIn(tx, customerId, id, decision, who));
    if (done) await this.audit([decisionOf(customerId, done)]);
    return done;
  }

  /** Decisions on several alerts, all or none: the first unknown id, stale version or self-approval aborts them all. */
  async decideMany(
    customerId: number,
    decisions: readonly (Decision & { id: number })[],
    who: Analyst,
  ): Promise<{ missing: number } | AlertDetail[]> {
    class Missing extends Error {
      constructor(readonly id: number) {
        super();
      }
    }
    let out: AlertDetail[];
    try {
      out = await this.db.transaction(async (tx) => {
        const done: AlertDetail[] = [];
        // A fixed lock order keeps two bulk decisions over the same alerts from deadlocking.
        for (const d of [...decisions].sort((a, b) => a.id - b.id)) {
          const one = await this.decideIn(tx, customerId, d.id, d, who);
          if (!one) throw new Missing(d.id);
          done.push(one);
        }
        return done;
      });
    } catch (err) {
      if (err instanceof Missing) return { missing: err.id };
      throw err;
    }
    await this.audit(out.map((d) => decisionOf(customerId, d)));
    return out;
  }

  private async decideIn(
    tx: Queryable,
    customerId: number,
    id: number,
    decision: Decision,
    who: Analyst,
  ): Promise<AlertDetail | null> {
    const { rows } = await tx.query<{
      version: number;
      pending_status: AlertStatus | null;
      pending_token_id: number | null;
      four_eyes: boolean;
    }>(
      `SELECT a.version, a.pending_status, a.pending_token_id, c.four_eyes FROM alerts a
       JOIN customers c ON c.id = a.customer_id WHERE a.id = $1 AND a.customer_id = $2 FOR UPDATE OF a`,
      [id, customerId],
    );
    if (rows.length === 0) return null;
    const current = rows[0];
    if (current.version !== decision.version) throw new AlertVersionConflict(id, current.version);
    const comment = decision.comment ?? null;
    let kind: 'decision' | 'proposal' | 'approval' = 'decision';
    if (current.four_eyes && COMMENT_REQUIRED.includes(decision.status)) {
      if (current.pending_status !== decision.status) kind = 'proposal';
      else if (current.pending_token_id === who.tokenId) throw new AlertSelfApproval(id, who.tokenId);
      else kind = 'approval';
    }
    if (kind === 'proposal') {
      await tx.query(
        `UPDATE alerts SET version = version + 1, pending_status = $2, pending_comment = $3, pending_token_id = $4,
           pending_token_label = (SELECT name FROM api_tokens WHERE id = $4), pending_at = now()
         WHERE id = $1`,
        [id, decision.status, comment, who.tokenId],
      );
    } else {
      // The party as decided: a later list version that changes it re-opens a false positive.
      await tx.query(
        `UPDATE alerts SET status = $2, version = version + 1, decided_at = now(), decided_party = party,
           decided_fingerprint = party_fingerprint, ${PENDING.map((c) => `${c} = NULL`).join(', ')}
         WHERE id = $1`,
        [id, decision.status],
      );
    }
    await this.append(tx, id, who, { kind, status: decision.status, comment, onVersion: decision.version });
    return this.get(customerId, id, tx);
  }

  /** Appends a comment to the alert's history; null when the customer has no such alert. */
  async comment(customerId: number, id: number, text: string, who: Analyst): Promise<AlertDetail | null> {
    return this.db.transaction(async (tx) => {
      const found = await tx.query('SELECT 1 FROM alerts WHERE id = $1 AND customer_id = $2 FOR UPDATE', [
        id,
        customerId,
      ]);
      if (found.rows.length === 0) return null;
      await this.append(tx, id, who, { kind: 'comment', status: null, comment: text, onVersion: null });
      return this.get(customerId, id, tx);
    });
  }

  private async append(
    tx: Queryable,
    alertId: number,
    who: Analyst,
    e: { kind: EventKind; status: AlertStatus | null; comment: string | null; onVersion: number | null },
  ): Promise<void> {
    // The label is copied: the history keeps who it was even after the token is renamed or deleted.
    await tx.query(
      `INSERT INTO alert_events (alert_id, kind, status, comment, on_version, token_id, token_label)
       SELECT $1, $2, $3, $4, $5, $6, (SELECT name FROM api_tokens WHERE id = $6)`,
      [alertId, e.kind, e.status, e.comment, e.onVersion, who.tokenId],
    );
  }

  /**
   * Copies committed decisions to the audit trail. A failed insert is logged and its rows stay in
   * the writer for its retry: the decision itself is already the alert's.
   */
  private async audit(rows: AlertDecisionRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.trail.decisions.write(rows);
    } catch (err) {
      this.trail.log.error({ err, decisions: rows.length }, 'alert decisions not yet in the audit trail');
    }
  }

  /** The customer's four-eyes rule: `confirmed` and `false_positive` need a second token's approval. */
  async fourEyes(customerId: number): Promise<boolean> {
    const { rows } = await this.db.query<{ four_eyes: boolean }>('SELECT four_eyes FROM customers WHERE id = $1', [
      customerId,
    ]);
    return rows[0]?.four_eyes ?? false;
  }

  async setFourEyes(customerId: number, on: boolean): Promise<void> {
    await this.db.query('UPDATE customers SET four_eyes = $2 WHERE id = $1', [customerId, on]);
  }
}
