import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EntityType, ListType } from '../../engine/model.js';
import { ListOperationError, type ListManager, type RefreshOutcome } from '../../loaders/manager.js';
import {
  stagedBatches,
  stageUpload,
  UploadLimitError,
  UploadRowError,
  type UploadFormat,
} from '../../loaders/upload.js';
import { HttpError, ValidationFailed, forbidden, payloadTooLarge, statusOf, valueIssue } from '../core/errors.js';
import type { Notifier } from '../store/notify.js';
import { ALL_LISTS, type Job, type JobKind, type ListJobs } from './jobs.js';
import { removeUploadLeftovers } from './leftovers.js';

/**
 * Operations on lists: refresh on demand, and creating, uploading to and deleting the operator's
 * and customers' uploaded lists. Every operation is a job (jobs.ts) that the ingesting node runs
 * under its leadership, through its list manager, one at a time; any node takes the request
 * (an upload is received, checked row by row and staged in the shared DATA_DIR by the node the
 * client talks to) and waits for the outcome. Other nodes learn of each commit through the
 * `list_commits` signal and reload at once.
 */

/** Signal: a job was queued (the leader looks for it now rather than at its next poll). */
const JOBS_CHANNEL = 'list_jobs';
/** Signal: a list version was committed (followers reload now rather than at their next poll). */
export const COMMITS_CHANNEL = 'list_commits';

export interface NewList {
  slug: string;
  display_name: string;
  list_type: ListType;
  entity_types: EntityType[];
  in_default_set: boolean;
  /** The customer of a private list. */
  owner?: number;
}

export interface ListOperationsOptions {
  jobs: ListJobs;
  /** The list manager of this node's current role. */
  manager: () => ListManager;
  isLeader: () => boolean;
  notifier: Notifier;
  dataDir: string;
  log: Logger;
  /** Private lists a customer may have, and rows across them. */
  limits: { listsPerCustomer: number; rowsPerCustomer: number };
  /**
   * How often the leader looks for jobs queued on other nodes (default 1 s); null when there are
   * none (an embedded database, one process): every job is queued here and starts the leader.
   */
  pollMs?: number | null;
}

const ERROR_STATUS: Record<ListOperationError['code'], number> = { not_found: 404, conflict: 409, invalid: 400 };

export class ListOperations {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(private readonly opts: ListOperationsOptions) {
    opts.notifier.listen(JOBS_CHANNEL, () => this.kick());
  }

  /**
   * Leader: runs queued jobs, now and whenever one is queued (and every `pollMs`, unless null).
   * This node's own active jobs are left alone: on a change of role they are live (those a
   * crash interrupted were failed when the process started, `ListJobs.abandonRunning`).
   */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await removeUploadLeftovers(this.opts.dataDir, this.opts.jobs, this.opts.log);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Looks for queued jobs now (after the one running, if any). */
  kick(): void {
    if (this.stopped || !this.opts.isLeader()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.drain()
      .catch((err: unknown) => this.opts.log.error({ err }, 'list jobs could not be run'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        } else if (!this.stopped && this.opts.pollMs !== null) {
          this.timer = setTimeout(() => this.kick(), this.opts.pollMs ?? 1_000);
          this.timer.unref();
        }
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped || !this.opts.isLeader()) return;
      const job = await this.opts.jobs.claim();
      if (!job) return;
      await this.runJob(job);
    }
  }

  private async runJob(job: Job): Promise<void> {
    const log = this.opts.log.child({ job: job.id, kind: job.kind, list: job.list });
    try {
      const results = await this.execute(job);
      await this.opts.jobs.finish(job.id, { results });
      log.info({ results: results.map((r) => r.result) }, 'list job done');
    } catch (err) {
      const status = err instanceof ListOperationError ? ERROR_STATUS[err.code] : statusOf(err);
      if (status >= 500) log.error({ err }, 'list job failed');
      else log.info({ error: (err as Error).message }, 'list job refused');
      await this.opts.jobs.finish(job.id, { error: (err as Error).message, status });
    } finally {
      if (job.kind === 'upload') await rm(this.stagedPath(job.id), { force: true });
    }
  }

  private async execute(job: Job): Promise<RefreshOutcome[]> {
    const manager = this.opts.manager();
    const p = job.params;
    switch (job.kind) {
      case 'refresh':
        return manager.refresh(job.list === ALL_LISTS ? undefined : job.list, {
          sourceDir: typeof p.source_dir === 'string' ? p.source_dir : undefined,
        });
      case 'upload':
        return [
          {
            ...(await manager.uploadList(job.list, {
              records: stagedBatches(this.stagedPath(job.id)),
              version: String(p.version),
            })),
            duplicates: Number(p.duplicates ?? 0),
          },
        ];
      case 'create': {
        const def = p as unknown as NewList;
        if (def.owner !== undefined) {
          const owned = manager
            .definitions()
            .filter((d) => d.owner === def.owner && !d.deleted_at && d.slug !== def.slug).length;
          if (owned >= this.opts.limits.listsPerCustomer)
            throw forbidden(`a customer may have at most ${this.opts.limits.listsPerCustomer} private lists`);
        }
        return [
          await manager.createList({
            slug: def.slug,
            display_name: def.display_name,
            list_type: def.list_type,
            kind: def.owner === undefined ? 'operator_list' : 'private_list',
            cadence: 'manual',
            enabled: true,
            in_default_set: def.in_default_set,
            entity_types: def.entity_types,
            ...(def.owner === undefined ? {} : { owner: def.owner }),
          }),
        ];
      }
      case 'delete':
        return [await manager.deleteList(job.list)];
    }
  }

  /**
   * Queues an operation and waits up to `waitMs` for it. A 409 when the list has an operation
   * running already.
   */
  async submit(
    kind: Exclude<JobKind, 'upload'>,
    list: string,
    owner: number | undefined,
    params: Record<string, unknown>,
    waitMs: number,
  ): Promise<Job> {
    const job = await this.opts.jobs.open(kind, list, owner ?? null, params, 'queued');
    await this.signal();
    return this.opts.jobs.wait(job.id, waitMs);
  }

  /**
   * Receives an upload for `list`: the body is spooled to DATA_DIR/uploads as it arrives (so the
   * client's connection never waits on the parser), then parsed and checked row by row into a
   * staged file of records; a bad row is a 422 naming its line, more rows than allowed a 413, and
   * nothing is queued then. A complete upload is queued and waited for like any operation.
   */
  async upload(
    list: string,
    owner: number | undefined,
    entityTypes: readonly EntityType[],
    format: UploadFormat,
    body: AsyncIterable<Uint8Array>,
    waitMs: number,
  ): Promise<Job> {
    const maxRows =
      owner === undefined
        ? Number.MAX_SAFE_INTEGER
        : Math.max(0, this.opts.limits.rowsPerCustomer - this.rowsOfOthers(owner, list));
    const job = await this.opts.jobs.open('upload', list, owner ?? null, {}, 'receiving');
    const path = this.stagedPath(job.id);
    const spool = `${path}.body`;
    try {
      await mkdir(join(this.opts.dataDir, 'uploads'), { recursive: true });
      const t0 = performance.now();
      await pipeline(Readable.from(body), createWriteStream(spool));
      const received = performance.now();
      const staged = await stageUpload(createReadStream(spool), { format, list, entityTypes, path, maxRows });
      await rm(spool, { force: true });
      await this.opts.jobs.queue(job.id, {
        rows: staged.rows,
        duplicates: staged.duplicates,
        version: staged.version,
      });
      this.opts.log.info(
        {
          job: job.id,
          list,
          rows: staged.rows,
          duplicates: staged.duplicates,
          receive_ms: Math.round(received - t0),
          check_ms: Math.round(performance.now() - received),
        },
        'upload received and checked',
      );
    } catch (err) {
      await rm(spool, { force: true });
      await rm(path, { force: true });
      const refusal = uploadRefusal(err, owner === undefined ? null : this.opts.limits.rowsPerCustomer);
      await this.opts.jobs.finish(job.id, {
        error: (refusal ?? (err as Error)).message,
        status: refusal?.status ?? 500,
      });
      throw refusal ?? err;
    }
    await this.signal();
    return this.opts.jobs.wait(job.id, waitMs);
  }

  /** Rows of a customer's private lists other than `except` (their versions served now). */
  private rowsOfOthers(owner: number, except: string): number {
    const manager = this.opts.manager();
    const status = manager.status();
    return manager
      .definitions()
      .filter((d) => d.owner === owner && !d.deleted_at && d.slug !== except)
      .reduce((sum, d) => sum + (status[d.slug]?.total ?? 0), 0);
  }

  private async signal(): Promise<void> {
    if (this.opts.isLeader()) this.kick();
    else
      await this.opts.notifier
        .notify(JOBS_CHANNEL)
        .catch((err: unknown) =>
          this.opts.log.warn({ err: (err as Error).message }, 'could not signal the leader; it polls'),
        );
  }

  private stagedPath(jobId: number): string {
    return join(this.opts.dataDir, 'uploads', `job-${jobId}.ndjson`);
  }
}

/** The HTTP refusal of an upload that failed while it was received; null for a failure of ours. */
function uploadRefusal(err: unknown, rowLimit: number | null): HttpError | null {
  if (err instanceof UploadRowError) {
    return new ValidationFailed([
      valueIssue(
        ['body', err.line, ...(err.field ? [err.field] : [])],
        `line ${err.line}: ${err.reason}`,
        typeof err.input === 'string' && err.input.length <= 512 ? err.input : undefined,
        { line: err.line, error: err.reason },
      ),
    ]);
  }
  if (err instanceof UploadLimitError)
    return payloadTooLarge(
      rowLimit === null
        ? err.message
        : `${err.message}: a customer's private lists hold at most ${rowLimit} rows in all`,
    );
  return err instanceof HttpError ? err : null;
}
