import type { Db } from '../store/db.js';
import { COLUMNS, toAlert, type Alert, type AlertRow, type AlertStatus } from './store.js';

/** Reading the customer's alerts: the review list and the operator's counts. */

export interface AlertFilter {
  status?: AlertStatus;
  list?: string;
  kind?: string;
  since?: string;
  until?: string;
  text?: string;
  limit: number;
  cursor?: string;
}

export interface AlertPage {
  items: Alert[];
  next_cursor: string | null;
}

/** A cursor that is not one this list issued. */
export class AlertCursorError extends Error {}

function encodeCursor(a: Alert): string {
  return Buffer.from(`${a.last_seen}|${a.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { lastSeen: string; id: number } {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m || Number.isNaN(Date.parse(m[1]))) throw new AlertCursorError('cursor is not a next_cursor of this list');
  return { lastSeen: m[1], id: Number(m[2]) };
}

export class AlertQueries {
  constructor(private readonly db: Db) {}

  /** The customer's alerts, most recently seen first, a keyset page at a time. */
  async list(customerId: number, f: AlertFilter): Promise<AlertPage> {
    const where = ['customer_id = $1'];
    const params: unknown[] = [customerId];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.status !== undefined) add((p) => `status = ${p}`, f.status);
    if (f.list !== undefined) add((p) => `list = ${p}`, f.list);
    if (f.kind !== undefined) add((p) => `match = ${p}`, f.kind);
    if (f.since !== undefined) add((p) => `last_seen >= ${p}::timestamptz`, f.since);
    if (f.until !== undefined) add((p) => `last_seen < ${p}::timestamptz`, f.until);
    if (f.text !== undefined) {
      const pattern = `%${f.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      add((p) => `(lower(screened_value) LIKE ${p} OR lower(matched_value) LIKE ${p})`, pattern);
    }
    if (f.cursor !== undefined) {
      const c = decodeCursor(f.cursor);
      params.push(c.lastSeen, c.id);
      where.push(`(last_seen, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(f.limit + 1);
    const { rows } = await this.db.query<AlertRow>(
      `SELECT ${COLUMNS} FROM alerts WHERE ${where.join(' AND ')}
       ORDER BY last_seen DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const items = rows.slice(0, f.limit).map(toAlert);
    return { items, next_cursor: rows.length > f.limit ? encodeCursor(items[items.length - 1]) : null };
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
