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
import { containing } from '../store/like.js';
import { rarePieces, textCondition, textWords, wordCounts, type TextPieces } from './text-search.js';

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
/**
 * Alerts of the order read first for a text: its page when the text is common, and a sample of
 * how often the text and each of its words occur.
 */
const SAMPLE = 500;
/** How long the table's row count (the planner's estimate) sizes the walks of a band or a text. */
const ROWS_ESTIMATE_MS = 60_000;

/**
 * The column of a range filter that the order's index does not sort by (a score band listed by
 * time, a time range listed by score), or null. Walking the order's index past it reads
 * `limit ÷ (the band's share)` alerts: a score band 0.800–0.801 of 1M alerts took 19,700 reads
 * for a page of 50, and the planner picked that walk (its costs assume uncached random reads).
 */
function bandColumn(sort: AlertOrder['sort'], f: AlertFilter): string | null {
  if (sort === 'time' && (f.min_score !== undefined || f.max_score !== undefined)) return 'score';
  if (sort === 'score' && (f.since !== undefined || f.until !== undefined)) return 'last_seen';
  return null;
}

/** A page's statement: its conditions (the cursor's among them, also apart) and the page size's placeholder. */
interface Query {
  where: string[];
  after: string[];
  limit: string;
  params: unknown[];
}

/** The condition of alerts after the cursor's, in the order; its sort keys are pushed onto `params`. */
function cursorCondition(order: AlertOrder, cursor: string, params: unknown[]): string {
  const keys = SORT_COLUMNS[order.sort];
  const placeholders = decodeCursor(order, cursor).map((v, i) => {
    params.push(v);
    return `$${params.length}::${keys[i].type}`;
  });
  return `(${keys.map((k) => k.column).join(', ')}) ${order.order === 'desc' ? '<' : '>'} (${placeholders.join(', ')})`;
}

/** SQL conditions of a filter; the parameters are pushed onto `params` ($1 is the customer). */
function conditions(f: AlertFilter, params: unknown[], pieces?: TextPieces): string[] {
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
    params.push(containing(f.text));
    where.push(textCondition(`$${params.length}`, pieces, params));
  }
  // The literal `<> ''` lets a generic plan use the partial index alerts_customer_subject (migration 080).
  if (f.subject !== undefined) add((p) => `subject_key = ${p} AND subject_key <> ''`, f.subject);
  return where;
}

export class AlertQueries {
  private rows: { estimate: number; at: number } | null = null;

  constructor(
    private readonly db: Db,
    /** Off: one statement, the planner's choice alone (bench/alerts.ts compares both). */
    private readonly bands = true,
  ) {}

  /**
   * The customer's alerts in the requested order (default: most recently seen first), a keyset
   * page at a time. Each order is one index scan (migrations 070, 076; an ascending order scans
   * the same index backward), but for a narrow range of the other key, read by its own index, and
   * for a text, looked for among the next alerts of the order first (docs/alerts.md).
   */
  async list(customerId: number, r: AlertListRequest): Promise<AlertPage> {
    const order: AlertOrder = { sort: r.sort ?? 'time', order: r.order ?? 'desc' };
    const direction = order.order === 'desc' ? 'DESC' : 'ASC';
    const orderBy = SORT_COLUMNS[order.sort].map((k) => `${k.column} ${direction}`).join(', ');
    const query = (pieces?: TextPieces): Query => {
      const params: unknown[] = [customerId];
      const where = conditions(r, params, pieces);
      const after = r.cursor === undefined ? [] : [cursorCondition(order, r.cursor, params)];
      params.push(r.limit + 1);
      return { where: [...where, ...after], after, limit: `$${params.length}`, params };
    };
    let rows: AlertRow[] | null = null;
    let pieces: TextPieces | undefined;
    const band = bandColumn(order.sort, r);
    if (this.bands && r.text !== undefined) {
      const walked = await this.textWalk(r, orderBy, query());
      if ('rows' in walked) rows = walked.rows;
      else pieces = walked.pieces;
    } else if (this.bands && band !== null) {
      rows = await this.band(band, orderBy, query(), r.limit);
    }
    if (rows === null) {
      const { where, limit, params } = query(pieces);
      rows = (
        await this.db.query<AlertRow>(
          `SELECT ${COLUMNS} FROM alerts WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${limit}`,
          params,
        )
      ).rows;
    }
    const items = rows.slice(0, r.limit).map(toAlert);
    return { items, next_cursor: rows.length > r.limit ? encodeCursor(order, items[items.length - 1]) : null };
  }

  /**
   * A band's alerts by its own index (a range scan), at most `size`, sorted: the whole answer when
   * the band is narrower than that, else null. A wider band is a large enough share of the alerts
   * for the order's walk to fill a page in about `size` reads: `size` = √(page × alerts) bounds both.
   */
  private async band(band: string, orderBy: string, q: Query, limit: number): Promise<AlertRow[] | null> {
    const size = await this.walkSize(limit);
    // A band the planner expects wider than `size` is walked at once: reading `size` alerts first
    // cost a 10% band 150 ms for nothing.
    if ((await this.estimate(q.where, q.params.slice(0, -1))) >= size) return null;
    const { rows } = await this.db.query<AlertRow & { band_rows: number }>(
      `WITH band AS MATERIALIZED (
         SELECT ${COLUMNS} FROM alerts WHERE ${q.where.join(' AND ')} ORDER BY ${band} DESC LIMIT ${size}
       )
       SELECT *, (SELECT count(*) FROM band)::int AS band_rows FROM band ORDER BY ${orderBy} LIMIT ${q.limit}`,
      q.params,
    );
    return rows.length === 0 || rows[0].band_rows < size ? rows : null;
  }

  /**
   * A text's page from the order's own index where it holds the text often enough, else the rare
   * words to ask the trigram index for. The next SAMPLE alerts of the order (the cursor the only
   * other condition) are read first: they fill the page of a text that most alerts hold (a common
   * name), where the trigram index would give all its rows to be sorted; they are the whole answer
   * when they are the last ones. Their share of the page's matches tells how far the order's walk
   * would go for a page: up to half of √(page × alerts), it walks; beyond, the index's rows cost
   * less (a walked alert costs about four times a row the index gives: docs/alerts.md). They also
   * count each word of the text per column.
   */
  private async textWalk(
    r: AlertListRequest,
    orderBy: string,
    q: Query,
  ): Promise<{ rows: AlertRow[] } | { pieces: TextPieces | undefined }> {
    const words = textWords(r.text!);
    const params = [...q.params];
    const counts = words.length === 0 ? 'ARRAY[]::int[]' : wordCounts(words, params);
    const next = (n: number) =>
      `SELECT ${COLUMNS}, customer_id, subject_key FROM alerts
       WHERE ${['customer_id = $1', ...q.after].join(' AND ')} ORDER BY ${orderBy} LIMIT ${n}`;
    const { rows } = await this.db.query<AlertRow & { walked: number; hits: number; counts: number[] }>(
      `WITH sample AS MATERIALIZED (${next(SAMPLE)})
       SELECT page.*, sampled.walked, sampled.hits, sampled.counts
       FROM (SELECT count(*)::int AS walked, count(*) FILTER (WHERE ${q.where.join(' AND ')})::int AS hits,
               ${counts} AS counts FROM sample) sampled
       LEFT JOIN LATERAL (SELECT * FROM sample WHERE ${q.where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${q.limit}) page
         ON true
       ORDER BY ${orderBy}`,
      params,
    );
    const page = rows.filter((row) => row.id !== null);
    const { walked, hits, counts: found } = rows[0];
    if (page.length > r.limit || walked < SAMPLE) return { rows: page };
    const bound = Math.max(2 * SAMPLE, Math.ceil((await this.walkSize(r.limit)) / 2));
    if (hits > 0 && ((r.limit + 1) * SAMPLE) / hits <= bound) {
      // Not materialized: the walk stops once the page is full.
      const { rows: walkedRows } = await this.db.query<AlertRow>(
        `SELECT * FROM (${next(bound)}) walk WHERE ${q.where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${q.limit}`,
        q.params,
      );
      if (walkedRows.length > r.limit) return { rows: walkedRows };
    }
    return { pieces: words.length === 0 ? undefined : rarePieces(words, found, walked) };
  }

  /** Alerts a band or a text's walk reads at most before the list turns to another index: √(page × alerts). */
  private async walkSize(limit: number): Promise<number> {
    return Math.max(1000, Math.ceil(Math.sqrt((limit + 1) * (await this.rowsEstimate()))));
  }

  /** The planner's estimate of the alerts matching `where` (its statistics, no rows read). */
  private async estimate(where: string[], params: unknown[]): Promise<number> {
    const { rows } = await this.db.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM alerts WHERE ${where.join(' AND ')}`,
      params,
    );
    return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
  }

  /** The planner's estimate of the table's rows (ANALYZE and autovacuum keep it), read once a minute. */
  private async rowsEstimate(): Promise<number> {
    if (this.rows === null || Date.now() - this.rows.at > ROWS_ESTIMATE_MS) {
      const { rows } = await this.db.query<{ n: number }>(
        `SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'alerts'::regclass`,
      );
      this.rows = { estimate: rows[0]?.n ?? 0, at: Date.now() };
    }
    return this.rows.estimate;
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
