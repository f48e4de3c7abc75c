import type { ClickHouseClient } from '@clickhouse/client';
import type { Logger } from 'pino';

export interface WriterOptions {
  /** Insert as soon as this many rows are buffered (AUDIT_BATCH_ROWS). */
  batchRows: number;
  /** Insert buffered rows at the latest this long after the first of them arrived (AUDIT_FLUSH_MS). */
  flushMs: number;
  log?: Logger;
  /** Rows kept for retry while ClickHouse fails; beyond it the oldest are dropped and logged. */
  maxBufferedRows?: number;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Batched inserts into one table (JSONEachRow), one insert at a time.
 * - `push` is fire and forget: rows go out when `batchRows` are buffered or `flushMs` after the
 *   first of them arrived (the default audit mode).
 * - `write` resolves once its rows are stored (AUDIT_STRICT, list changes). It does not wait for
 *   the timer: the buffer goes out at the next turn of the event loop, and rows arriving during
 *   an insert go out together right after it (group commit), so the wait is about one insert.
 * A failed insert keeps its rows for a retry `flushMs` later (up to `maxBufferedRows`) and
 * rejects the waiters of that batch. `close` inserts everything left. What a crash loses is
 * described in docs/audit.md.
 */
export class BatchWriter<T extends object> {
  private buffer: T[] = [];
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private inflight: Promise<void> | null = null;
  private closed = false;
  private lastError: unknown = null;
  private readonly maxBuffered: number;
  /** Rows inserted and dropped since start (for metrics and tests). */
  inserted = 0;
  dropped = 0;

  constructor(
    private readonly client: ClickHouseClient,
    /** `database.table`. */
    readonly table: string,
    private readonly opts: WriterOptions,
  ) {
    this.maxBuffered = opts.maxBufferedRows ?? Math.max(100_000, opts.batchRows * 10);
  }

  push(rows: T[]): void {
    if (rows.length === 0) return;
    if (this.closed) throw new Error(`${this.table} writer is closed`);
    for (const r of rows) this.buffer.push(r);
    this.schedule();
  }

  write(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.push(rows);
    });
  }

  /** Rows buffered and not yet handed to an insert. */
  get pending(): number {
    return this.buffer.length;
  }

  private schedule(): void {
    // The end of the running insert schedules what arrived meanwhile.
    if (this.inflight || this.buffer.length === 0) return;
    if (this.buffer.length >= this.opts.batchRows || this.waiters.length > 0) {
      this.immediate ??= setImmediate(() => {
        this.immediate = null;
        void this.flushOnce();
      });
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flushOnce();
      }, this.opts.flushMs);
      this.timer.unref();
    }
  }

  /** Inserts everything buffered now; rejects when an insert fails. */
  async flush(): Promise<void> {
    while (this.inflight || this.buffer.length > 0) {
      await (this.inflight ?? this.flushOnce());
      if (this.lastError) throw this.lastError;
    }
  }

  private flushOnce(): Promise<void> {
    if (this.inflight) return this.inflight;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    if (this.buffer.length === 0) return Promise.resolve();
    const rows = this.buffer;
    const waiters = this.waiters;
    this.buffer = [];
    this.waiters = [];
    this.inflight = (async () => {
      try {
        await this.client.insert({ table: this.table, values: rows, format: 'JSONEachRow' });
        this.inserted += rows.length;
        this.lastError = null;
        for (const w of waiters) w.resolve();
      } catch (err) {
        this.lastError = err;
        this.opts.log?.error({ err, table: this.table, rows: rows.length }, 'clickhouse insert failed; rows kept for retry');
        this.buffer = rows.concat(this.buffer);
        if (this.buffer.length > this.maxBuffered) {
          const drop = this.buffer.length - this.maxBuffered;
          this.buffer.splice(0, drop);
          this.dropped += drop;
          this.opts.log?.error({ table: this.table, dropped: drop }, 'clickhouse buffer full; oldest rows dropped');
        }
        for (const w of waiters) w.reject(err);
      } finally {
        this.inflight = null;
      }
      if (this.closed || this.buffer.length === 0) return;
      if (this.lastError) {
        // Retry on the timer, never in a tight loop against a failing server.
        this.timer ??= setTimeout(() => {
          this.timer = null;
          void this.flushOnce();
        }, this.opts.flushMs);
        this.timer.unref();
      } else {
        this.schedule();
      }
    })();
    return this.inflight;
  }

  /** Inserts what is left and refuses further rows. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
