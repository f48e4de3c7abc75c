import { containing } from '../store/like.js';
import type { Db } from '../store/db.js';
import { subjectFingerprint, subjectSearchText, type SubjectRecord, type SubjectType } from './model.js';

/**
 * Customers' books of subjects in the control-plane database (migrations 080, 081). Writes come in
 * batches of thousands (an import's chunk, a PUT is a batch of one) as one statement each; reads
 * are keyset pages by id, for one customer's list or for the books streamed to the screeners.
 */

export interface StoredSubject extends SubjectRecord {
  id: number;
  customer_id: number;
  created_at: string;
  updated_at: string;
  screened_at: string | null;
}

/** A subject as the books are screened against a list version's changes (`watchPage`). */
export type WatchedSubject = SubjectRecord & { id: number; customer_id: number };

type WatchedRow = [
  number,
  number,
  string,
  SubjectRecord['type'],
  string[],
  string | null,
  string[],
  SubjectRecord['identifiers'],
  SubjectRecord['values'],
];

/** A subject as a customer's list shows it: with its alerts still to be worked. */
export interface ListedSubject extends StoredSubject {
  open_alerts: number;
}

/** The filters of a customer's list (the API's SubjectListInput, countries already alpha-2). */
export interface SubjectQuery {
  q?: string;
  type?: SubjectType;
  country?: string;
  has_alerts?: boolean;
  limit: number;
  cursor?: string;
}

export interface SubjectUpsert {
  id: number;
  external_id: string;
  created: boolean;
  /** New, or a screened field differs from the stored one: it must be screened (and charged). */
  changed: boolean;
}

/** customers.name_threshold's default (migration 080). */
const DEFAULT_NAME_THRESHOLD = 0.7;

/** The book would hold more than SUBJECTS_PER_CUSTOMER subjects: the whole batch is refused. */
export class SubjectLimitExceeded extends Error {
  constructor(
    readonly limit: number,
    readonly held: number,
    readonly adding: number,
  ) {
    super(
      `a book holds at most ${limit} subjects (SUBJECTS_PER_CUSTOMER): it holds ${held} and this would add ${adding}; delete subjects or ask the operator to raise the limit`,
    );
  }
}

/** A cursor that is not a `next_cursor` of the subject list. */
export class SubjectCursorError extends Error {}

// Ids are bigint (an upsert spends one on every row, updated or not): read as float8, exact in JS.
const COLUMNS = `id::float8 AS id, customer_id, external_id, type, names, birth_date, countries, identifiers,
  "values", created_at, updated_at, screened_at`;

/** Alerts a person still has to work: they count in `open_alerts` and `has_alerts`. */
const OPEN_ALERTS = `(SELECT count(*)::int FROM alerts a WHERE a.customer_id = s.customer_id
  AND a.subject_key = s.external_id AND a.status IN ('open', 'escalated'))`;

interface SubjectDbRow extends Omit<StoredSubject, 'created_at' | 'updated_at' | 'screened_at'> {
  created_at: Date | string;
  updated_at: Date | string;
  screened_at: Date | string | null;
}

const iso = (t: Date | string) => new Date(t).toISOString();

function toStored(r: SubjectDbRow): StoredSubject {
  return {
    id: r.id,
    customer_id: r.customer_id,
    external_id: r.external_id,
    type: r.type,
    names: r.names,
    birth_date: r.birth_date,
    countries: r.countries,
    identifiers: r.identifiers,
    values: r.values,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    screened_at: r.screened_at === null ? null : iso(r.screened_at),
  };
}

const CURSOR = /^s\.(\d{1,16})$/;
const encodeCursor = (id: number) => Buffer.from(`s.${id}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new SubjectCursorError('cursor is not a next_cursor of this list');
  return Number(m[1]);
}

/** `q` as a LIKE pattern that matches it anywhere, its wildcards taken literally. */

export class SubjectStore {
  private readonly maxPerCustomer: number;

  constructor(
    private readonly db: Db,
    opts: { maxPerCustomer: number },
  ) {
    this.maxPerCustomer = opts.maxPerCustomer;
  }

  /**
   * Upserts one customer's subjects by external id in one statement; a later record of an external
   * id repeated in `records` wins. An unchanged subject is not written (its times stay). Refuses the
   * whole call (SubjectLimitExceeded) when the book would exceed the limit. One answer per distinct
   * external id, in the order of their first occurrence.
   */
  async upsertMany(customerId: number, records: readonly SubjectRecord[]): Promise<SubjectUpsert[]> {
    const byId = new Map<string, SubjectRecord>();
    for (const r of records) byId.set(r.external_id, r);
    if (byId.size === 0) return [];
    const input = [...byId.values()].map((r) => ({
      external_id: r.external_id,
      type: r.type,
      names: r.names,
      birth_date: r.birth_date,
      countries: r.countries,
      identifiers: r.identifiers,
      values: r.values,
      search: subjectSearchText(r),
      fingerprint: subjectFingerprint(r),
    }));
    return this.db.transaction(async (tx) => {
      // `prior` reads the book as it was before the insert; `count` bumps the book's size in the
      // same statement, its row lock serializing one customer's concurrent batches.
      const { rows } = await tx.query<{
        id: number;
        external_id: string;
        created: boolean;
        changed: boolean;
        subject_count: number;
      }>(
        `WITH input AS (
           SELECT * FROM jsonb_to_recordset($2::jsonb) AS i(external_id text, type text, names text[],
             birth_date text, countries text[], identifiers jsonb, "values" jsonb, search text, fingerprint text)
         ), prior AS (
           SELECT s.id, s.external_id FROM subjects s JOIN input i USING (external_id) WHERE s.customer_id = $1
         ), up AS (
           INSERT INTO subjects (customer_id, external_id, type, names, birth_date, countries, identifiers, "values",
             search, fingerprint)
           SELECT $1, external_id, type, names, birth_date, countries, identifiers, "values", search, fingerprint
           FROM input
           ON CONFLICT (customer_id, external_id) DO UPDATE SET
             type = EXCLUDED.type, names = EXCLUDED.names, birth_date = EXCLUDED.birth_date,
             countries = EXCLUDED.countries, identifiers = EXCLUDED.identifiers, "values" = EXCLUDED."values",
             search = EXCLUDED.search, fingerprint = EXCLUDED.fingerprint, updated_at = now(), screened_at = NULL
           WHERE subjects.fingerprint <> EXCLUDED.fingerprint
           RETURNING id, external_id, xmax = 0 AS created
         ), book AS (
           UPDATE customers SET subject_count = subject_count + (SELECT count(*)::int FROM up WHERE created)
           WHERE id = $1 RETURNING subject_count
         )
         SELECT coalesce(up.id, prior.id)::float8 AS id, i.external_id, coalesce(up.created, false) AS created,
           up.id IS NOT NULL AS changed, (SELECT subject_count FROM book) AS subject_count
         FROM input i LEFT JOIN up USING (external_id) LEFT JOIN prior USING (external_id)`,
        [customerId, JSON.stringify(input)],
      );
      const held = rows[0]?.subject_count ?? 0;
      if (held > this.maxPerCustomer) {
        const adding = rows.filter((r) => r.created).length;
        throw new SubjectLimitExceeded(this.maxPerCustomer, held - adding, adding);
      }
      return rows.map(({ id, external_id, created, changed }) => ({ id, external_id, created, changed }));
    });
  }

  async get(customerId: number, externalId: string): Promise<StoredSubject | null> {
    const { rows } = await this.db.query<SubjectDbRow>(
      `SELECT ${COLUMNS} FROM subjects WHERE customer_id = $1 AND external_id = $2`,
      [customerId, externalId],
    );
    return rows.length === 0 ? null : toStored(rows[0]);
  }

  /** A subject with its open alerts, as the API shows it; null when the customer has none of that id. */
  async view(customerId: number, externalId: string): Promise<ListedSubject | null> {
    const { rows } = await this.db.query<SubjectDbRow & { open_alerts: number }>(
      `SELECT ${COLUMNS}, ${OPEN_ALERTS} AS open_alerts FROM subjects s WHERE customer_id = $1 AND external_id = $2`,
      [customerId, externalId],
    );
    return rows.length === 0 ? null : { ...toStored(rows[0]), open_alerts: rows[0].open_alerts };
  }

  /** Deletes a subject (its alerts stay, and it is never screened again); false when there was none. */
  async delete(customerId: number, externalId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM subjects WHERE customer_id = $1 AND external_id = $2 RETURNING 1)
       UPDATE customers SET subject_count = subject_count - (SELECT count(*)::int FROM gone)
       WHERE id = $1 RETURNING (SELECT count(*)::int FROM gone) AS n`,
      [customerId, externalId],
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  /** A page of a customer's book, newest first, with the filters of `q`. */
  async list(customerId: number, q: SubjectQuery): Promise<{ subjects: ListedSubject[]; next_cursor: string | null }> {
    const where = ['customer_id = $1'];
    const params: unknown[] = [customerId];
    const add = (cond: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(cond(`$${params.length}`));
    };
    if (q.cursor !== undefined) add((p) => `id < ${p}`, decodeCursor(q.cursor));
    if (q.q !== undefined) add((p) => `search LIKE ${p}`, containing(q.q.toLowerCase()));
    if (q.type !== undefined) add((p) => `type = ${p}`, q.type);
    if (q.country !== undefined) add((p) => `${p} = ANY(countries)`, q.country);
    if (q.has_alerts !== undefined) where.push(`(${OPEN_ALERTS} > 0) = ${q.has_alerts}`);
    params.push(q.limit + 1);
    const { rows } = await this.db.query<SubjectDbRow & { open_alerts: number }>(
      `SELECT ${COLUMNS}, ${OPEN_ALERTS} AS open_alerts FROM subjects s WHERE ${where.join(' AND ')}
       ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit).map((r) => ({ ...toStored(r), open_alerts: r.open_alerts }));
    const more = rows.length > q.limit;
    return { subjects: page, next_cursor: more ? encodeCursor(page[page.length - 1].id) : null };
  }

  /** How many subjects the customer's book holds. */
  async count(customerId: number): Promise<number> {
    const { rows } = await this.db.query<{ subject_count: number }>(
      'SELECT subject_count FROM customers WHERE id = $1',
      [customerId],
    );
    return rows[0]?.subject_count ?? 0;
  }

  /** The books streamed: subjects after id `afterId` in id order, every customer's or one's. */
  async page(afterId: number, limit: number, customerId?: number): Promise<StoredSubject[]> {
    const { rows } =
      customerId === undefined
        ? await this.db.query<SubjectDbRow>(`SELECT ${COLUMNS} FROM subjects WHERE id > $1 ORDER BY id LIMIT $2`, [
            afterId,
            limit,
          ])
        : await this.db.query<SubjectDbRow>(
            `SELECT ${COLUMNS} FROM subjects WHERE customer_id = $3 AND id > $1 ORDER BY id LIMIT $2`,
            [afterId, limit, customerId],
          );
    return rows.map(toStored);
  }

  /**
   * The books as a list version's delta reads them (src/subjects/watch.ts): the next `limit`
   * subjects after id `afterId`, every customer's or one's, with only the fields screened, and
   * the identifiers and values only when `withValues` (a version that changed names only does not
   * need them). The page comes as one JSON text: parsing it is several times cheaper than the
   * driver's parsing of as many rows of arrays and jsonb.
   */
  async watchPage(
    afterId: number,
    limit: number,
    customerId: number | undefined,
    withValues: boolean,
  ): Promise<WatchedSubject[]> {
    const values = withValues
      ? `s.identifiers, s."values"`
      : `'[]'::jsonb, '{"crypto":[],"email":[],"website":[]}'::jsonb`;
    const fields = `json_agg(json_build_array(s.id, s.customer_id, s.external_id, s.type, s.names, s.birth_date,
      s.countries, ${values}) ORDER BY s.id)::text AS page`;
    const { rows } =
      customerId === undefined
        ? await this.db.query<{ page: string | null }>(
            `SELECT ${fields} FROM (SELECT * FROM subjects WHERE id > $1 ORDER BY id LIMIT $2) s`,
            [afterId, limit],
          )
        : await this.db.query<{ page: string | null }>(
            `SELECT ${fields} FROM (SELECT * FROM subjects WHERE customer_id = $3 AND id > $1 ORDER BY id LIMIT $2) s`,
            [afterId, limit, customerId],
          );
    const page = rows[0]?.page;
    if (!page) return [];
    return (JSON.parse(page) as WatchedRow[]).map(
      ([id, customer_id, external_id, type, names, birth_date, countries, identifiers, values]) => ({
        id,
        customer_id,
        external_id,
        type,
        names,
        birth_date,
        countries,
        identifiers,
        values,
      }),
    );
  }

  /** The ids of the subject's alerts that the screening of request `requestId` opened or updated. */
  async alertsOf(customerId: number, externalId: string, requestId: string): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      'SELECT id FROM alerts WHERE customer_id = $1 AND subject_key = $2 AND request_id = $3 ORDER BY id',
      [customerId, externalId, requestId],
    );
    return rows.map((r) => r.id);
  }

  /** The customer's name threshold, which its subjects are screened at. */
  async nameThreshold(customerId: number): Promise<number> {
    const { rows } = await this.db.query<{ t: number }>( // A real holds 0.7 as 0.69999998...: read as the customer set it.
      'SELECT round(name_threshold::numeric, 4)::float8 AS t FROM customers WHERE id = $1',
      [customerId],
    );
    return rows[0]?.t ?? DEFAULT_NAME_THRESHOLD;
  }

  /** Sets the customer's name threshold; true when it changed. */
  async setNameThreshold(customerId: number, threshold: number): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE customers SET name_threshold = $2 WHERE id = $1 AND name_threshold <> $2::real RETURNING 1',
      [customerId, threshold],
    );
    return rows.length > 0;
  }

  async markScreened(ids: readonly number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query('UPDATE subjects SET screened_at = $2 WHERE id = ANY($1::bigint[])', [ids, at.toISOString()]);
  }
}
