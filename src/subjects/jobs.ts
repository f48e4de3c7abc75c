/**
 * A row of `subject_jobs` (migration 080), an import's or a re-screen's, as both jobs and their
 * endpoints read it: counters come back from the database as text (bigint) and become numbers.
 */

export interface RefusedRow {
  line: number;
  reason: string;
}

export interface SubjectJobRecord {
  id: number;
  customer_id: number;
  kind: 'import' | 'rescreen';
  state: 'running' | 'done' | 'failed';
  rows_read: number;
  total: number | null;
  taken: number;
  refused: number;
  refused_rows: RefusedRow[];
  alerts_opened: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export const SUBJECT_JOB_COLUMNS = `id, customer_id, kind, state, rows_read, total, taken, refused, refused_rows,
  alerts_opened, error, created_at, finished_at`;

type Counter = 'rows_read' | 'total' | 'taken' | 'refused' | 'alerts_opened';
export type SubjectJobRow = Omit<SubjectJobRecord, Counter | 'refused_rows' | 'created_at' | 'finished_at'> & {
  rows_read: string | number;
  total: string | number | null;
  taken: string | number;
  refused: string | number;
  refused_rows: RefusedRow[] | string;
  alerts_opened: string | number;
  created_at: Date | string;
  finished_at: Date | string | null;
};

export function subjectJobFromRow(r: SubjectJobRow): SubjectJobRecord {
  return {
    id: Number(r.id),
    customer_id: r.customer_id,
    kind: r.kind,
    state: r.state,
    rows_read: Number(r.rows_read),
    total: r.total === null ? null : Number(r.total),
    taken: Number(r.taken),
    refused: Number(r.refused),
    refused_rows: typeof r.refused_rows === 'string' ? (JSON.parse(r.refused_rows) as RefusedRow[]) : r.refused_rows,
    alerts_opened: Number(r.alerts_opened),
    error: r.error,
    created_at: new Date(r.created_at).toISOString(),
    finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
  };
}

/** A job as its endpoint answers it (SubjectJob): without the customer, whom the caller is. */
export function jobView(job: SubjectJobRecord): Omit<SubjectJobRecord, 'customer_id'> {
  const { customer_id: _customer, ...view } = job;
  return view;
}
