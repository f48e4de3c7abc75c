import type { Db, Queryable } from '../store/db.js';
import type { AuditMatchRow } from '../audit/rows.js';

/**
 * Alerts in the control-plane database (migrations 070, 072): one per (customer, screened value,
 * listed party or entity, list). Matches open or update them with their latest evidence; analysts'
 * decisions change their status under an optimistic version check, and every decision or comment
 * is appended to the alert's history.
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
export interface AlertSubject {
  external_id: string;
  type: string;
  names: string[];
}

export interface AlertEvent {
  kind: 'decision' | 'comment';
  status: AlertStatus | null;
  comment: string | null;
  on_version: number | null;
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
    const key = `${row.customer_id}\u0000${row.screened_value}\u0000${row.list}\u0000${listedKey(row)}`;
    const u = into.get(key);
    if (!u) into.set(key, { row, count: 1, first: row.time });
    else {
      u.count++;
      if (row.time < u.first) u.first = row.time;
      if (row.time >= u.row.time) u.row = row;
    }
  }
}

export class AlertStore {
  constructor(private readonly db: Db) {}

  /** Opens or updates the alerts of a batch of audit rows in one statement. */
  async record(rows: readonly AuditMatchRow[]): Promise<void> {
    const merged = new Map<string, Upsert>();
    mergeMatches(rows, merged);
    await this.upsert([...merged.values()]);
  }

  /** Opens or updates the alerts of merged matches (mergeMatches) in one statement. */
  async upsert(ups: readonly Upsert[]): Promise<void> {
    if (ups.length === 0) return;
    const col = <T>(f: (u: Upsert) => T) => ups.map(f);
    await this.db.query(
      `INSERT INTO alerts (customer_id, screened_value, matched_value, list, list_type, match, list_version,
         endpoint, request_id, occurrences, first_seen, last_seen, listed_key, evidence, score)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::int[], $11::timestamptz[], $12::timestamptz[], $13::text[], $14::jsonb[],
         $15::float8[])
       ON CONFLICT (customer_id, screened_value, list, listed_key) DO UPDATE SET
         occurrences = alerts.occurrences + EXCLUDED.occurrences,
         first_seen = least(alerts.first_seen, EXCLUDED.first_seen),
         last_seen = greatest(alerts.last_seen, EXCLUDED.last_seen),
         matched_value = EXCLUDED.matched_value, list_type = EXCLUDED.list_type, match = EXCLUDED.match,
         list_version = EXCLUDED.list_version, endpoint = EXCLUDED.endpoint, request_id = EXCLUDED.request_id,
         evidence = EXCLUDED.evidence, score = EXCLUDED.score`,
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
      ],
    );
  }

  /** An alert with its latest evidence and full history; null when the customer has no such alert. */
  async get(customerId: number, id: number, q: Queryable = this.db): Promise<AlertDetail | null> {
    const { rows } = await q.query<
      AlertRow & { list_version: string; endpoint: string; request_id: string; evidence: Record<string, unknown> }
    >(
      `SELECT ${COLUMNS}, list_version, endpoint, request_id, evidence FROM alerts WHERE id = $1 AND customer_id = $2`,
      [id, customerId],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    const events = await q.query<AlertEvent & { at: Date | string }>(
      `SELECT kind, status, comment, on_version, token_id, token_label, at FROM alert_events
       WHERE alert_id = $1 ORDER BY id`,
      [id],
    );
    return {
      ...toAlert(r),
      evidence: {
        match: r.match,
        list_version: r.list_version,
        endpoint: r.endpoint,
        request_id: r.request_id,
        answer: r.evidence,
      },
      history: events.rows.map((e) => ({ ...e, at: iso(e.at) })),
    };
  }

  /**
   * Applies a decision made on `decision.version`: the status changes and the version rises only
   * if nobody decided since (the row lock makes a concurrent second decision see the new version),
   * else AlertVersionConflict. Null when the customer has no such alert.
   */
  async decide(customerId: number, id: number, decision: Decision, who: Analyst): Promise<AlertDetail | null> {
    return this.db.transaction((tx) => this.decideIn(tx, customerId, id, decision, who));
  }

  /** Decisions on several alerts, all or none: the first unknown id or stale version aborts them all. */
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
    try {
      return await this.db.transaction(async (tx) => {
        const out: AlertDetail[] = [];
        // A fixed lock order keeps two bulk decisions over the same alerts from deadlocking.
        for (const d of [...decisions].sort((a, b) => a.id - b.id)) {
          const done = await this.decideIn(tx, customerId, d.id, d, who);
          if (!done) throw new Missing(d.id);
          out.push(done);
        }
        return out;
      });
    } catch (err) {
      if (err instanceof Missing) return { missing: err.id };
      throw err;
    }
  }

  private async decideIn(
    tx: Queryable,
    customerId: number,
    id: number,
    decision: Decision,
    who: Analyst,
  ): Promise<AlertDetail | null> {
    const updated = await tx.query<{ id: number }>(
      `UPDATE alerts SET status = $3, version = version + 1, decided_at = now()
       WHERE id = $1 AND customer_id = $2 AND version = $4 RETURNING id`,
      [id, customerId, decision.status, decision.version],
    );
    if (updated.rows.length === 0) {
      const current = await tx.query<{ version: number }>(
        'SELECT version FROM alerts WHERE id = $1 AND customer_id = $2',
        [id, customerId],
      );
      if (current.rows.length === 0) return null;
      throw new AlertVersionConflict(id, current.rows[0].version);
    }
    await this.append(tx, id, who, {
      kind: 'decision',
      status: decision.status,
      comment: decision.comment ?? null,
      onVersion: decision.version,
    });
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
    e: { kind: 'decision' | 'comment'; status: AlertStatus | null; comment: string | null; onVersion: number | null },
  ): Promise<void> {
    // The label is copied: the history keeps who it was even after the token is renamed or deleted.
    await tx.query(
      `INSERT INTO alert_events (alert_id, kind, status, comment, on_version, token_id, token_label)
       SELECT $1, $2, $3, $4, $5, $6, (SELECT name FROM api_tokens WHERE id = $6)`,
      [alertId, e.kind, e.status, e.comment, e.onVersion, who.tokenId],
    );
  }
}
