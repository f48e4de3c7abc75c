import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { AuditMatchRow, RowSink, UsageRow } from '../audit/rows.js';
import type { Reservation } from '../billing/quota.js';
import { HttpError, paymentRequired, payloadTooLarge, serviceUnavailable } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { importRows, ImportFormatError, RowCounter, type ImportFormat } from './import-rows.js';
import { REFUSED_KEPT, type ImportJob, type ImportJobs, type ImportProgress } from './import-jobs.js';
import { subjectRecord, type SubjectRecord } from './model.js';
import type { BookScreener } from './screening.js';
import { SubjectLimitExceeded, type StoredSubject, type SubjectStore } from './store.js';

/**
 * Bulk imports of a customer's subjects (docs/monitoring.md "Imports"). The body is spooled to
 * DATA_DIR as it arrives, its rows counted on the way: more than `maxRows` is a 413, and a
 * customer whose remaining credits are fewer than the rows is refused whole with a 402 before
 * anything is stored (each row may be new or changed, and so charged). The credits are then
 * reserved, the request answered 202 with the job, and the job reads the spool in chunks on this
 * node: upsert by external_id, screen what is new or changed, store the matches (audit trail and
 * alerts), and consume one credit per subject screened; the rest of the reservation goes back.
 */

/** Rows upserted and screened together: thousands per statement, one screening call. */
const IMPORT_CHUNK = 5000;
const IMPORT_ENDPOINT = 'subjects.import';

export interface ImporterDeps {
  db: Db;
  store: Pick<SubjectStore, 'upsertMany' | 'markScreened'>;
  screener: BookScreener;
  jobs: ImportJobs;
  /** Credits held for an import: null when the customer's remaining credits do not cover them. */
  quota: {
    reserve(customerId: number, credits: number): Reservation | null | Promise<Reservation | null>;
    status(customerId: number): Promise<{ remaining: number } | null>;
  };
  /** The audit sink that also opens alerts (src/alerts/sink.ts). */
  audit: RowSink<AuditMatchRow>;
  usage: RowSink<UsageRow>;
  /** The customer's name threshold (`/account` `name_threshold`). */
  thresholdOf(customerId: number): Promise<number>;
  dataDir: string;
  node: string;
  log: Logger;
  now?: () => number;
  /** Rows an import may hold (SUBJECT_IMPORT_MAX_ROWS): more is a 413. */
  maxRows: number;
  chunk?: number;
}

/** The spool files of this node: a restarted node removes them, nobody else will read them. */
function spoolPrefix(node: string): string {
  return `subject-import-${node.replace(/[^A-Za-z0-9._-]/g, '_')}-`;
}

export class SubjectImporter {
  private readonly now: () => number;
  private readonly maxRows: number;
  private readonly chunk: number;
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly deps: ImporterDeps) {
    this.now = deps.now ?? Date.now;
    this.maxRows = deps.maxRows;
    this.chunk = deps.chunk ?? IMPORT_CHUNK;
  }

  private get dir(): string {
    return join(this.deps.dataDir, 'subject-imports');
  }

  /** At start: fails the imports a previous run of this node left running and removes their spools. */
  async recover(): Promise<void> {
    await this.deps.jobs.abandonRunning();
    const prefix = spoolPrefix(this.deps.node);
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) if (name.startsWith(prefix)) await rm(join(this.dir, name), { force: true });
  }

  /** Resolves once every import this node runs has ended (tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Graceful stop: running imports end after their current chunk, failed as interrupted (what
   * they stored and screened stays, and is charged), before the stores they write to close.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.idle();
  }

  /**
   * Receives an import: spools and counts the body, reserves its credits, opens the job and starts
   * it. Throws the HTTP error of a refusal (413 over `maxRows`, 402 short of credits).
   */
  async receive(
    customerId: number,
    format: ImportFormat,
    body: AsyncIterable<Uint8Array>,
    requestId: string,
  ): Promise<ImportJob> {
    if (this.stopping) throw serviceUnavailable('the service is stopping: send the import again');
    await mkdir(this.dir, { recursive: true });
    const spool = join(this.dir, `${spoolPrefix(this.deps.node)}${randomUUID()}.body`);
    let started = false;
    try {
      const rows = await this.spool(body, spool, format);
      const reservation = rows === 0 ? null : await this.deps.quota.reserve(customerId, rows);
      if (rows > 0 && !reservation) {
        const remaining = (await this.deps.quota.status(customerId))?.remaining ?? 0;
        throw paymentRequired(
          `Insufficient credits: the import has ${rows} rows and ${remaining} credits remain this month; an import needs a credit for each row it could screen (it is charged only for new or changed subjects)`,
        );
      }
      let job: ImportJob;
      try {
        job = await this.deps.jobs.open(customerId);
      } catch (err) {
        reservation?.release();
        throw err;
      }
      started = true;
      const run = this.run(job, format, spool, reservation, requestId).finally(() => {
        this.running.delete(run);
        return rm(spool, { force: true });
      });
      this.running.add(run);
      return job;
    } finally {
      if (!started) await rm(spool, { force: true });
    }
  }

  /** Writes the body to `path`, counting its rows; a 413 as soon as they exceed maxRows. */
  private async spool(body: AsyncIterable<Uint8Array>, path: string, format: ImportFormat): Promise<number> {
    const counter = new RowCounter();
    const max = this.maxRows;
    await pipeline(
      Readable.from(body, { objectMode: false }),
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          counter.add(chunk);
          if (counter.rows(format) > max)
            done(payloadTooLarge(`Too many rows: an import holds at most ${max} rows; split the file`));
          else done(null, chunk);
        },
      }),
      createWriteStream(path),
    );
    return counter.rows(format);
  }

  private async run(
    job: ImportJob,
    format: ImportFormat,
    spool: string,
    reservation: Reservation | null,
    requestId: string,
  ): Promise<void> {
    const { jobs, log } = this.deps;
    const p: ImportProgress = { rows_read: 0, taken: 0, refused: 0, refused_rows: [], alerts_opened: 0 };
    const charged = { credits: 0 };
    const started = new Date(this.now());
    let error: string | null = null;
    // One chunk is screened while the next is read and upserted.
    let screening: Promise<void> = Promise.resolve();
    try {
      const threshold = await this.deps.thresholdOf(job.customer_id);
      let batch: Map<string, SubjectRecord> = new Map();
      /** Rows of `batch`, duplicates included: taken once it is stored. */
      let batchRows = 0;
      const flush = async () => {
        const records = [...batch.values()];
        batch = new Map();
        const stored = await this.upsert(job.customer_id, records);
        p.taken += batchRows;
        batchRows = 0;
        await screening;
        screening = this.screen(job, stored, { threshold, requestId, started }, p, charged);
        // A failed screening is awaited (and reported) at the next flush or at the end.
        screening.catch(() => undefined);
        await jobs.progress(job.id, p);
      };
      for await (const r of importRows(createReadStream(spool), format)) {
        p.rows_read++;
        if ('reason' in r) {
          p.refused++;
          if (p.refused_rows.length < REFUSED_KEPT) p.refused_rows.push({ line: r.line, reason: r.reason });
          continue;
        }
        batchRows++;
        // The last row of an external id wins: within a chunk by replacing it, across chunks by the later upsert.
        batch.delete(r.row.external_id);
        batch.set(r.row.external_id, subjectRecord(r.row.external_id, r.row));
        if (batch.size < this.chunk) continue;
        await flush();
        if (this.stopping) throw new ImportStopped(`interrupted: node ${this.deps.node} stopped during the import`);
        // Requests waiting on the front-end thread go first: a chunk's parse and (on PGlite) its
        // statements run there, and a 1M-row import is two hundred of them.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (batch.size > 0) await flush();
      await screening;
    } catch (err) {
      await screening.catch(() => undefined);
      error = reasonOf(err);
      if (
        !(err instanceof ImportFormatError) &&
        !(err instanceof SubjectLimitExceeded) &&
        !(err instanceof ImportStopped)
      )
        log.error({ err, job: job.id }, 'subject import failed');
    }
    reservation?.commit(charged.credits);
    try {
      await jobs.finish(job.id, p, error);
    } catch (err) {
      log.error({ err, job: job.id }, 'subject import outcome not recorded');
    }
    log.info(
      {
        job: job.id,
        customer: job.customer_id,
        rows: p.rows_read,
        taken: p.taken,
        refused: p.refused,
        credits: charged.credits,
      },
      'subject import finished',
    );
  }

  /**
   * Upserts a chunk; the subjects to screen, as stored: new or changed ones, and unchanged ones
   * never screened (an import that stopped between its upsert and its screening).
   */
  private async upsert(customerId: number, records: SubjectRecord[]): Promise<StoredSubject[]> {
    const results = await this.deps.store.upsertMany(customerId, records);
    const byId = new Map(records.map((r) => [r.external_id, r]));
    const at = new Date(this.now()).toISOString();
    const unscreened = await this.unscreened(results.filter((r) => !r.changed).map((r) => r.id));
    const changed: StoredSubject[] = [];
    for (const res of results) {
      if (!res.changed && !unscreened.has(res.id)) continue;
      const record = byId.get(res.external_id)!;
      changed.push({
        ...record,
        id: res.id,
        customer_id: customerId,
        created_at: at,
        updated_at: at,
        screened_at: null,
      });
    }
    return changed;
  }

  private async unscreened(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.deps.db.query<{ id: number }>(
      'SELECT id::float8 AS id FROM subjects WHERE id = ANY($1::bigint[]) AND screened_at IS NULL',
      [ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Screens a chunk's new or changed subjects, stores their matches and alerts, and charges them. */
  private async screen(
    job: ImportJob,
    subjects: StoredSubject[],
    opts: { threshold: number; requestId: string; started: Date },
    p: ImportProgress,
    charged: { credits: number },
  ): Promise<void> {
    if (subjects.length === 0) return;
    const customerId = job.customer_id;
    const matches = await this.deps.screener.screen(customerId, subjects, {
      threshold: opts.threshold,
      requestId: opts.requestId,
      endpoint: IMPORT_ENDPOINT,
    });
    // Awaited: the job says `done` only once its alerts can be read.
    await this.deps.audit.write(matches);
    const time = this.now();
    await this.deps.store.markScreened(
      subjects.map((s) => s.id),
      new Date(time),
    );
    charged.credits += subjects.length;
    this.deps.usage.push([
      {
        time,
        customer_id: customerId,
        payer: '',
        request_id: opts.requestId,
        endpoint: IMPORT_ENDPOINT,
        status: 202,
        credits: subjects.length,
        method: 'quota',
        amount: '0',
        tx_hash: '',
        network: '',
      },
    ]);
    if (matches.length > 0) p.alerts_opened = await this.alertsOpened(customerId, opts.requestId, opts.started);
  }

  /** Alerts this import opened: first seen since it started, last touched by its request. */
  private async alertsOpened(customerId: number, requestId: string, since: Date): Promise<number> {
    const { rows } = await this.deps.db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM alerts
        WHERE customer_id = $1 AND subject_key <> '' AND request_id = $2 AND first_seen >= $3`,
      [customerId, requestId, since],
    );
    return Number(rows[0].n);
  }
}

/** The node stops: the job ends between two chunks. */
class ImportStopped extends Error {}

function reasonOf(err: unknown): string {
  if (err instanceof ImportFormatError || err instanceof ImportStopped) return err.message;
  if (err instanceof SubjectLimitExceeded) return err.message;
  if (err instanceof HttpError) return err.message;
  return `the import stopped: ${(err as Error).message}`;
}
