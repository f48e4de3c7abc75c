import type { Logger } from 'pino';
import type { AuditMatchRow, RowSink } from '../audit/rows.js';
import type { Db } from '../store/db.js';
import type { SubjectStore } from './store.js';
import { SUBJECT_JOB_COLUMNS, subjectJobFromRow, type SubjectJobRecord, type SubjectJobRow } from './jobs.js';
import type { BookScreener } from './screening.js';

/**
 * A customer's whole book screened again at its new name threshold (issue #39): a `rescreen`
 * job of `subject_jobs` (total = the book's size, `rows_read` = subjects screened so far). Pages
 * are read by keyset and screened in bulk by the screener (in the engine's shards), the event loop
 * turning between pages, so the front end keeps serving while a book of millions is re-screened.
 * A node that stops ends its jobs between two pages, failed; one that crashed fails the jobs it
 * left running when it starts again (`abandonRunning`): the customer starts another by changing
 * the threshold again.
 */

export interface RescreenOptions {
  db: Db;
  subjects: Pick<SubjectStore, 'page' | 'count' | 'markScreened'>;
  screener: BookScreener;
  /** The audit sink of matches that also opens the alerts (src/alerts/sink.ts), as imports use. */
  matches: RowSink<AuditMatchRow>;
  log: Logger;
  /** This node's name (src/store/node-identity.ts). */
  node: string;
  /** Subjects screened per page. */
  pageSize: number;
}

const STOPPED = 'the node running it stopped; change the name threshold to start another';

export class Rescreens {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: RescreenOptions) {}

  /** Starts re-screening the customer's book at its current threshold: the job's id, or null for an empty book. */
  async start(customerId: number): Promise<number | null> {
    const { db } = this.opts;
    const total = await this.opts.subjects.count(customerId);
    if (total === 0) return null;
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO subject_jobs (customer_id, kind, total, node_id) VALUES ($1, 'rescreen', $2, $3) RETURNING id`,
      [customerId, total, this.opts.node],
    );
    const id = Number(rows[0].id);
    const run = this.run(customerId, id).finally(() => this.running.delete(run));
    this.running.add(run);
    return id;
  }

  async get(customerId: number, id: number): Promise<SubjectJobRecord | null> {
    const { rows } = await this.opts.db.query<SubjectJobRow>(
      `SELECT ${SUBJECT_JOB_COLUMNS} FROM subject_jobs WHERE id = $1 AND customer_id = $2 AND kind = 'rescreen'`,
      [id, customerId],
    );
    return rows[0] ? subjectJobFromRow(rows[0]) : null;
  }

  /** Fails the re-screens this node left running when it stopped or crashed. */
  async abandonRunning(): Promise<void> {
    await this.opts.db.query(
      `UPDATE subject_jobs SET state = 'failed', error = $2, finished_at = now()
        WHERE kind = 'rescreen' AND state = 'running' AND node_id = $1`,
      [this.opts.node, STOPPED],
    );
  }

  /** Resolves once every running job of this process ended (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /** The node stops: running jobs end, failed, after the page they are screening. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private async run(customerId: number, id: number): Promise<void> {
    const { db, log, pageSize } = this.opts;
    try {
      const { rows } = await db.query<{ name_threshold: number; created_at: Date }>(
        `SELECT c.name_threshold, j.created_at FROM customers c JOIN subject_jobs j ON j.customer_id = c.id
          WHERE c.id = $1 AND j.id = $2`,
        [customerId, id],
      );
      const threshold = Number(rows[0].name_threshold);
      const requestId = `rescreen:${id}`;
      let afterId = 0;
      for (;;) {
        if (this.stopped) throw new Error(STOPPED);
        const page = await this.opts.subjects.page(afterId, pageSize, customerId);
        if (page.length === 0) break;
        afterId = page[page.length - 1].id;
        const matches = await this.opts.screener.screen(customerId, page, {
          threshold,
          requestId,
          endpoint: 'subjects.rescreen',
        });
        // Awaited: the job says `done` only once its alerts can be read.
        await this.opts.matches.write(matches);
        await this.opts.subjects.markScreened(
          page.map((s) => s.id),
          new Date(),
        );
        // Opened by this job: first seen since it started, last touched by it (alerts already open are not counted).
        await db.query(
          `UPDATE subject_jobs SET rows_read = rows_read + $2,
             alerts_opened = (SELECT count(*) FROM alerts WHERE customer_id = $3 AND subject_key <> ''
                                AND request_id = $4 AND first_seen >= $5)
            WHERE id = $1`,
          [id, page.length, customerId, requestId, rows[0].created_at],
        );
        // Requests waiting on the front-end thread go first.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await db.query(`UPDATE subject_jobs SET state = 'done', finished_at = now() WHERE id = $1`, [id]);
    } catch (err) {
      if ((err as Error).message === STOPPED) log.warn({ job: id }, 're-screen stopped with the node');
      else log.error({ err, job: id }, 're-screen failed');
      await db
        .query(`UPDATE subject_jobs SET state = 'failed', error = $2, finished_at = now() WHERE id = $1`, [
          id,
          (err as Error).message,
        ])
        .catch(() => undefined);
    }
  }
}
