import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import {
  SUBJECT_JOB_COLUMNS,
  subjectJobFromRow,
  type RefusedRow,
  type SubjectJobRecord,
  type SubjectJobRow,
} from './jobs.js';

/** An import's job. */
export type ImportJob = SubjectJobRecord;

/**
 * Import jobs of subjects (`subject_jobs` of kind `import`, migration 080): the node that took the
 * request runs the job and records its progress as it goes; anyone reads it. A node that restarts
 * fails the jobs it was running (its name survives restarts: src/store/node-identity.ts), since
 * the spooled body and the work in memory died with it.
 */

/** Refused rows kept with their line and reason (the count covers them all). */
export const REFUSED_KEPT = 1000;

export interface ImportProgress {
  rows_read: number;
  taken: number;
  refused: number;
  refused_rows: RefusedRow[];
  alerts_opened: number;
}

export class ImportJobs {
  constructor(
    private readonly db: Db,
    private readonly opts: { node: string; log: Logger },
  ) {}

  async open(customerId: number): Promise<ImportJob> {
    const { rows } = await this.db.query<SubjectJobRow>(
      `INSERT INTO subject_jobs (customer_id, kind, node_id) VALUES ($1, 'import', $2) RETURNING ${SUBJECT_JOB_COLUMNS}`,
      [customerId, this.opts.node],
    );
    return subjectJobFromRow(rows[0]);
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
    const { rows } = await this.db.query<SubjectJobRow>(
      `SELECT ${SUBJECT_JOB_COLUMNS} FROM subject_jobs WHERE id = $1 AND customer_id = $2 AND kind = 'import'`,
      [id, customerId],
    );
    return rows[0] ? subjectJobFromRow(rows[0]) : null;
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
