import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { RefreshOutcome } from '../../loaders/manager.js';
import { conflict } from '../core/errors.js';
import type { Db } from '../store/db.js';

/**
 * List operations as jobs in the control-plane database (migration 035): any node takes a
 * request and records it, only the ingesting node (the leader) runs it, and whoever asked waits
 * for the row to finish — in-process when the leader took the request itself, by polling the row
 * otherwise — or hands the client the job to poll. A unique index allows one active job per
 * list, across nodes: a second operation on a list while one is active is a 409. A node
 * heartbeats its active jobs; one whose node stopped heartbeating is failed, freeing its list.
 * The node's name survives a restart (src/store/node-identity.ts), so a restarted node fails the
 * jobs it was receiving or running at once instead of leaving them to the heartbeat's expiry.
 */

export type JobKind = 'refresh' | 'upload' | 'create' | 'delete';
type JobStatus = 'receiving' | 'queued' | 'running' | 'done' | 'failed';

/** The list of a refresh of every list. */
export const ALL_LISTS = '*';

export interface Job {
  id: number;
  kind: JobKind;
  list: string;
  owner: number | null;
  params: Record<string, unknown>;
  status: JobStatus;
  results: RefreshOutcome[];
  error: string | null;
  /** The HTTP status an operation's failure maps to (404, 409, 400, 403, ...); null for success. */
  error_status: number | null;
  created_at: string;
  finished_at: string | null;
}

interface JobRow extends Omit<Job, 'params' | 'results' | 'created_at' | 'finished_at'> {
  params: string;
  results: string;
  created_at: Date | string;
  finished_at: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

function fromRow(r: JobRow): Job {
  return {
    id: r.id,
    kind: r.kind,
    list: r.list,
    owner: r.owner,
    params: JSON.parse(r.params) as Record<string, unknown>,
    status: r.status,
    results: JSON.parse(r.results) as RefreshOutcome[],
    error: r.error,
    error_status: r.error_status,
    created_at: iso(r.created_at)!,
    finished_at: iso(r.finished_at),
  };
}

const COLUMNS = 'id, kind, list, owner, params, status, results, error, error_status, created_at, finished_at';
const ACTIVE = "('receiving', 'queued', 'running')";

export interface ListJobsOptions {
  /** This node's name (jobs it took or runs): the same across its restarts. */
  node: string;
  log: Logger;
  now?: () => number;
  /** An active job whose node has not heartbeaten for this long is failed (default 60 s). */
  staleMs?: number;
  /** How often a waiter re-reads a job another node runs (default 200 ms). */
  pollMs?: number;
}

export class ListJobs {
  private readonly finished = new EventEmitter();
  private readonly staleMs: number;
  private readonly pollMs: number;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly opts: ListJobsOptions,
  ) {
    this.staleMs = opts.staleMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 200;
    this.finished.setMaxListeners(0);
  }

  /**
   * Heartbeats this node's active jobs every `staleMs / 4`, and fails those of any node that
   * stopped heartbeating: a node that died for good frees its lists within `staleMs * 1.25`
   * even if nobody asks for them (a job's readers see it failed, not running forever).
   */
  start(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      this.db
        .query(`UPDATE list_jobs SET updated_at = now() WHERE node = $1 AND status IN ${ACTIVE}`, [this.opts.node])
        .then(() => this.expireStale())
        .catch((err: unknown) => this.opts.log.warn({ err: (err as Error).message }, 'list job heartbeat failed'));
    }, this.staleMs / 4);
    this.heartbeat.unref();
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /**
   * Records a new job on `list`; a 409 when the list has an active job. A job whose node stopped
   * heartbeating is failed first, so a crashed node never holds a list for good.
   */
  async open(
    kind: JobKind,
    list: string,
    owner: number | null,
    params: Record<string, unknown>,
    status: 'receiving' | 'queued',
  ): Promise<Job> {
    await this.expireStale(list);
    try {
      const { rows } = await this.db.query<JobRow>(
        `INSERT INTO list_jobs (kind, list, owner, params, status, node) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [kind, list, owner, JSON.stringify(params), status, this.opts.node],
      );
      return fromRow(rows[0]);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      const { rows } = await this.db.query<{ id: number; kind: string }>(
        `SELECT id, kind FROM list_jobs WHERE list = $1 AND status IN ${ACTIVE}`,
        [list],
      );
      const what = list === ALL_LISTS ? 'a refresh of every list' : `an operation on list ${list}`;
      throw conflict(
        `${what} is already running${rows[0] ? ` (job ${rows[0].id}, ${rows[0].kind})` : ''}: wait for it to finish`,
      );
    }
  }

  /** An upload received in full: the leader may take it. */
  async queue(id: number, params: Record<string, unknown>): Promise<void> {
    await this.db.query(
      `UPDATE list_jobs SET status = 'queued', params = $2, updated_at = now() WHERE id = $1 AND status = 'receiving'`,
      [id, JSON.stringify(params)],
    );
  }

  /** Takes the oldest queued job for this (the leader) node, or null. */
  async claim(): Promise<Job | null> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<JobRow>(
        `SELECT ${COLUMNS} FROM list_jobs WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!rows[0]) return null;
      await tx.query(`UPDATE list_jobs SET status = 'running', node = $2, updated_at = now() WHERE id = $1`, [
        rows[0].id,
        this.opts.node,
      ]);
      return { ...fromRow(rows[0]), status: 'running' as const };
    });
  }

  /**
   * At start, before the first heartbeat: the jobs this node was receiving or running when it
   * stopped (a crash) are failed, so their lists are free again at once. Its queued jobs were
   * received in full and staged; the leader still runs them.
   */
  async abandonRunning(): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      `UPDATE list_jobs SET status = 'failed', error = 'interrupted: node ' || node || ' restarted during the ' || kind,
         error_status = 503, updated_at = now(), finished_at = now()
       WHERE node = $1 AND status IN ('receiving', 'running') RETURNING id`,
      [this.opts.node],
    );
    if (rows.length > 0)
      this.opts.log.warn({ jobs: rows.map((r) => r.id) }, 'list jobs interrupted by a restart of this node failed');
    return rows.map((r) => r.id);
  }

  /** Fails the active jobs (of `list`, or of every list) whose node stopped heartbeating. */
  async expireStale(list?: string): Promise<void> {
    const { rows } = await this.db.query<{ id: number; node: string }>(
      `UPDATE list_jobs SET status = 'failed', error = 'interrupted: node ' || node || ' stopped while it ran', error_status = 503,
         updated_at = now(), finished_at = now()
       WHERE status IN ${ACTIVE} AND updated_at < now() - make_interval(secs => $1) AND ($2::text IS NULL OR list = $2)
       RETURNING id, node`,
      [this.staleMs / 1000, list ?? null],
    );
    for (const r of rows) {
      this.opts.log.warn({ job: r.id, node: r.node }, 'list job failed: its node stopped heartbeating');
      this.finished.emit(String(r.id));
    }
  }

  async finish(id: number, outcome: { results: RefreshOutcome[] } | { error: string; status: number }): Promise<void> {
    if ('results' in outcome) {
      await this.db.query(
        `UPDATE list_jobs SET status = 'done', results = $2, updated_at = now(), finished_at = now() WHERE id = $1`,
        [id, JSON.stringify(outcome.results)],
      );
    } else {
      await this.db.query(
        `UPDATE list_jobs SET status = 'failed', error = $2, error_status = $3, updated_at = now(), finished_at = now() WHERE id = $1`,
        [id, outcome.error, outcome.status],
      );
    }
    this.finished.emit(String(id));
  }

  async get(id: number): Promise<Job | null> {
    const { rows } = await this.db.query<JobRow>(`SELECT ${COLUMNS} FROM list_jobs WHERE id = $1`, [id]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** The job once it is done or failed, or as it stands after `ms`. */
  async wait(id: number, ms: number): Promise<Job> {
    const deadline = Date.now() + ms;
    for (;;) {
      const job = await this.get(id);
      if (!job) throw new Error(`list job ${id} vanished`);
      if (job.status === 'done' || job.status === 'failed') return job;
      const left = deadline - Date.now();
      if (left <= 0) return job;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          () => {
            this.finished.off(String(id), done);
            resolve();
          },
          Math.min(left, this.pollMs),
        );
        this.finished.once(String(id), done);
      });
    }
  }
}
