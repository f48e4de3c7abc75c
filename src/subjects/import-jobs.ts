import type { Logger } from 'pino';
import type { Db } from '../store/db.js';

/**
 * Import jobs of subjects (`subject_jobs` of kind `import`, migration 080): the node that took the
 * request runs the job and records its progress as it goes; anyone reads it. A node that restarts
 * fails the jobs it was running (its name survives restarts: src/store/node-identity.ts), since
 * the spooled body and the work in memory died with it.
 */

/** Refused rows kept with their line and reason (the count covers them all). */
export const REFUSED_KEPT = 1000;

interface RefusedRow {
  line: number;
  reason: string;
}

export interface ImportJob {
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

export interface ImportProgress {
  rows_read: number;
  taken: number;
  refused: number;
  refused_rows: RefusedRow[];
  alerts_opened: number;
}

interface JobRow extends Omit<
  ImportJob,
  'created_at' | 'finished_at' | 'rows_read' | 'total' | 'taken' | 'refused' | 'alerts_opened'
> {
  rows_read: string | number;
  total: string | number | null;
  taken: string | number;
  refused: string | number;
  alerts_opened: string | number;
  created_at: Date | string;
  finished_at: Date | string | null;
}

const COLUMNS =
  'id, customer_id, kind, state, rows_read, total, taken, refused, refused_rows, alerts_opened, error, created_at, finished_at';

function fromRow(r: JobRow): ImportJob {
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

export class ImportJobs {
  constructor(
    private readonly db: Db,
    private readonly opts: { node: string; log: Logger },
  ) {}

  async open(customerId: number): Promise<ImportJob> {
    const { rows } = await this.db.query<JobRow>(
      `INSERT INTO subject_jobs (customer_id, kind, node_id) VALUES ($1, 'import', $2) RETURNING ${COLUMNS}`,
      [customerId, this.opts.node],
    );
    return fromRow(rows[0]);
  }

  async progress(id: number, p: ImportProgress): Promise<void> {
    await this.db.query(
      `UPDATE subject_jobs SET rows_read = $2, taken = $3, refused = $4, refused_rows = $5, alerts_opened = $6
        WHERE id = $1 AND state = 'running'`,
      [id, p.rows_read, p.taken, p.refused, JSON.stringify(p.refused_rows), p.alerts_opened],
    );
  }

  /** Ends a job with its last progress: done, or failed with the reason. */
  async finish(id: number, p: ImportProgress, error: string | null = null): Promise<void> {
    await this.db.query(
      `UPDATE subject_jobs SET rows_read = $2, taken = $3, refused = $4, refused_rows = $5, alerts_opened = $6,
         state = $7, error = $8, finished_at = now()
        WHERE id = $1 AND state = 'running'`,
      [
        id,
        p.rows_read,
        p.taken,
        p.refused,
        JSON.stringify(p.refused_rows),
        p.alerts_opened,
        error === null ? 'done' : 'failed',
        error,
      ],
    );
  }

  /** The customer's import job, or null (another customer's job is as unknown as a missing one). */
  async get(customerId: number, id: number): Promise<ImportJob | null> {
    const { rows } = await this.db.query<JobRow>(
      `SELECT ${COLUMNS} FROM subject_jobs WHERE id = $1 AND customer_id = $2 AND kind = 'import'`,
      [id, customerId],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** At start: the imports this node was running when it stopped are failed (nobody will finish them). */
  async abandonRunning(): Promise<number[]> {
    const { rows } = await this.db.query<{ id: string | number }>(
      `UPDATE subject_jobs SET state = 'failed', error = 'interrupted: node ' || node_id || ' restarted during the import',
         finished_at = now()
        WHERE node_id = $1 AND kind = 'import' AND state = 'running' RETURNING id`,
      [this.opts.node],
    );
    const ids = rows.map((r) => Number(r.id));
    if (ids.length > 0)
      this.opts.log.warn({ jobs: ids }, 'subject imports interrupted by a restart of this node failed');
    return ids;
  }
}

/** A job as the API answers it (SubjectJob). */
export function jobView(job: ImportJob) {
  const { customer_id: _customer, ...view } = job;
  return view;
}
