import type { Db } from '../store/db.js';
import { decodeCursor, encodeCursor, SORT_COLUMNS, type AlertOrder } from './cursor.js';
import {
  COLUMNS,
  DETAIL_COLUMNS,
  EVENT_COLUMNS,
  toAlert,
  toDetail,
  type Alert,
  type AlertDetail,
  type AlertRow,
  type AlertStatus,
  type DetailRow,
  type EventRecord,
} from './store.js';

/** Reading the customer's alerts: the review list, its export and the operator's counts. */

/** What narrows the list and the export. */
export interface AlertFilter {
  status?: AlertStatus;
  list?: string;
  kind?: string;
  /** Inclusive bounds of the latest score, 0..1. */
  min_score?: number;
  max_score?: number;
  since?: string;
  until?: string;
  text?: string;
  /** A monitored subject's external id: its alerts only. */
  subject?: string;
}

export interface AlertListRequest extends AlertFilter, Partial<AlertOrder> {
  limit: number;
  cursor?: string;
}

export interface AlertPage {
  items: Alert[];
  next_cursor: string | null;
}

/** Alerts read per statement of an export (with their history). */
const EXPORT_PAGE = 1000;

/** SQL conditions of a filter; the parameters are pushed onto `params` ($1 is the customer). */
function conditions(f: AlertFilter, params: unknown[]): string[] {
  const where = ['customer_id = $1'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.status !== undefined) add((p) => `status = ${p}`, f.status);
  if (f.list !== undefined) add((p) => `list = ${p}`, f.list);
  if (f.kind !== undefined) add((p) => `match = ${p}`, f.kind);
  if (f.min_score !== undefined) add((p) => `score >= ${p}::float8`, f.min_score);
  if (f.max_score !== undefined) add((p) => `score <= ${p}::float8`, f.max_score);
  if (f.since !== undefined) add((p) => `last_seen >= ${p}::timestamptz`, f.since);
  if (f.until !== undefined) add((p) => `last_seen < ${p}::timestamptz`, f.until);
  if (f.text !== undefined) {
    // ILIKE (not lower(…) LIKE) is what the trigram index of migration 076 answers.
    const pattern = `%${f.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    add((p) => `(screened_value ILIKE ${p} OR matched_value ILIKE ${p})`, pattern);
  }
  // The literal `<> ''` lets a generic plan use the partial index alerts_customer_subject (migration 080).
  if (f.subject !== undefined) add((p) => `subject_key = ${p} AND subject_key <> ''`, f.subject);
  return where;
}

export class AlertQueries {
  constructor(private readonly db: Db) {}

  /**
   * The customer's alerts in the requested order (default: most recently seen first), a keyset
   * page at a time. Each order is one index scan (migrations 070, 076); an ascending order scans
   * the same index backward.
   */
  async list(customerId: number, r: AlertListRequest): Promise<AlertPage> {
    const order: AlertOrder = { sort: r.sort ?? 'time', order: r.order ?? 'desc' };
    const params: unknown[] = [customerId];
    const where = conditions(r, params);
    const keys = SORT_COLUMNS[order.sort];
    if (r.cursor !== undefined) {
      const values = decodeCursor(order, r.cursor);
      const placeholders = values.map((v, i) => {
        params.push(v);
        return `$${params.length}::${keys[i].type}`;
      });
      const cmp = order.order === 'desc' ? '<' : '>';
      where.push(`(${keys.map((k) => k.column).join(', ')}) ${cmp} (${placeholders.join(', ')})`);
    }
    params.push(r.limit + 1);
    const direction = order.order === 'desc' ? 'DESC' : 'ASC';
    const { rows } = await this.db.query<AlertRow>(
      `SELECT ${COLUMNS} FROM alerts WHERE ${where.join(' AND ')}
       ORDER BY ${keys.map((k) => `${k.column} ${direction}`).join(', ')} LIMIT $${params.length}`,
      params,
    );
    const items = rows.slice(0, r.limit).map(toAlert);
    return { items, next_cursor: rows.length > r.limit ? encodeCursor(order, items[items.length - 1]) : null };
  }

  /**
   * Up to `limit` alerts of the filter with their evidence and history, by id after `afterId`, a
   * page at a time: the id of an alert never changes, so one seen again during the export is
   * neither skipped nor repeated (a newest-first walk would lose it behind its cursor).
   */
  async *export(customerId: number, f: AlertFilter, limit: number, afterId = 0): AsyncGenerator<AlertDetail[]> {
    let after = afterId;
    let left = limit;
    while (left > 0) {
      const params: unknown[] = [customerId];
      const where = conditions(f, params);
      params.push(after, Math.min(EXPORT_PAGE, left));
      const { rows } = await this.db.query<DetailRow>(
        `SELECT ${DETAIL_COLUMNS} FROM alerts
         WHERE ${where.join(' AND ')} AND id > $${params.length - 1}
         ORDER BY id LIMIT $${params.length}`,
        params,
      );
      if (rows.length === 0) return;
      yield await this.withHistory(rows);
      after = rows[rows.length - 1].id;
      left -= rows.length;
      if (rows.length < EXPORT_PAGE) return;
    }
  }

  private async withHistory(rows: DetailRow[]): Promise<AlertDetail[]> {
    const { rows: events } = await this.db.query<EventRecord & { alert_id: number }>(
      `SELECT alert_id, ${EVENT_COLUMNS} FROM alert_events WHERE alert_id = ANY($1::int[]) ORDER BY alert_id, id`,
      [rows.map((r) => r.id)],
    );
    const history = new Map<number, EventRecord[]>();
    for (const { alert_id, ...e } of events) {
      const list = history.get(alert_id) ?? [];
      list.push(e);
      history.set(alert_id, list);
    }
    return rows.map((r) => toDetail(r, history.get(r.id) ?? []));
  }

  /** Alert counts per customer and status (operator view). */
  async counts(): Promise<{ customer_id: number; status: AlertStatus; count: number }[]> {
    const { rows } = await this.db.query<{ customer_id: number; status: AlertStatus; count: number }>(
      `SELECT customer_id, status, count(*)::int AS count FROM alerts
       GROUP BY customer_id, status ORDER BY customer_id, status`,
    );
    return rows;
  }
}
