import type { Logger } from 'pino';
import type { LineFormat } from './formats.js';
import { LineBuffer } from './linebuffer.js';

export interface WriterOptions {
  /** Insert as soon as this many rows are buffered (AUDIT_BATCH_ROWS). */
  batchRows: number;
  /** Insert buffered rows at the latest this long after the first of them arrived (AUDIT_FLUSH_MS). */
  flushMs: number;
  log?: Logger;
  /** Rows kept for retry while ClickHouse fails; beyond it the oldest are dropped and logged. */
  maxBufferedRows?: number;
}

/** Inserts newline-terminated TabSeparated rows of `columns` into `table`, chunks in order. */
export type InsertLines = (table: string, columns: readonly [string, ...string[]], lines: Buffer[]) => Promise<void>;

/** Largest text handed to the line buffer at once (it reserves 3 bytes per character). */
const APPEND_CHARS = 64 * 1024;

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Batched inserts into one table, one insert at a time.
 * - Rows are checked when they are handed over: a row a column would reject (a count that is not
 *   an integer, a time that is not a finite number, ...) makes `push` throw and `write` reject,
 *   and none of that call's rows is kept. They are encoded to TabSeparated lines in UTF-8 (see
 *   LineBuffer), which the insert sends as they are.
 * - `push` is fire and forget: its rows are encoded together with the other pushes of the same
 *   turn of the event loop, right after it (see `encodeQueued`), and go out when `batchRows` are
 *   buffered or `flushMs` after the first of them arrived (the default audit mode).
 * - `write` resolves once its rows are stored (AUDIT_STRICT, list changes). It does not wait for
 *   the timer: the buffer goes out at the next turn of the event loop, and rows arriving during
 *   an insert go out together right after it (group commit), so the wait is about one insert.
 * A failed insert keeps its rows for a retry `flushMs` later (up to `maxBufferedRows`) and
 * rejects the waiters of that batch. `close` inserts everything left. What a crash loses is
 * described in docs/audit.md.
 */
export class BatchWriter<T extends object> {
  private readonly lines = new LineBuffer();
  /** Pushed rows, checked and not yet encoded. */
  private queued: T[] = [];
  private encoding: NodeJS.Immediate | null = null;
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
    private readonly insert: InsertLines,
    /** `database.table`. */
    readonly table: string,
    private readonly format: LineFormat<T>,
    private readonly opts: WriterOptions,
  ) {
    this.maxBuffered = opts.maxBufferedRows ?? Math.max(100_000, opts.batchRows * 10);
  }

  push(rows: T[]): void {
    if (rows.length === 0) return;
    this.checkRows(rows);
    for (let i = 0; i < rows.length; i++) this.queued.push(rows[i]);
    this.encoding ??= setImmediate(this.encodeQueued);
  }

  write(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    try {
      this.checkRows(rows);
      this.encodeQueued();
      this.append(rows);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Rows buffered and not yet handed to an insert. */
  get pending(): number {
    return this.lines.rows + this.queued.length;
  }

  private checkRows(rows: T[]): void {
    if (this.closed) throw new Error(`${this.table} writer is closed`);
    const check = this.format.check;
    for (let i = 0; i < rows.length; i++) check(rows[i]);
  }

  /**
   * Encodes the pushed rows into the line buffer. Deferred to the end of the turn, so a request's
   * answer is sent before its rows are encoded, the CPU per row being the same. The rows passed
   * `check`, so `line` does not throw for them; if it did, the rows are
   * counted as dropped and logged, never lost unseen.
   */
  private readonly encodeQueued = (): void => {
    if (this.encoding) clearImmediate(this.encoding);
    this.encoding = null;
    if (this.queued.length === 0) return;
    const rows = this.queued;
    this.queued = [];
    try {
      this.append(rows);
    } catch {
      for (const row of rows) {
        try {
          this.append([row]);
        } catch (err) {
          this.dropped++;
          this.opts.log?.error({ err, table: this.table }, 'row passed its check but could not be encoded; dropped');
        }
      }
    }
    this.schedule();
  };

  private append(rows: T[]): void {
    const line = this.format.line;
    if (rows.length === 1) {
      this.lines.append(line(rows[0]), 1);
      return;
    }
    // Encoded whole before anything is buffered: a row that throws leaves no partial push. A
    // large push (a batch's matches) is handed over in slices that fit the line buffer's
    // reusable blocks.
    const texts: string[] = [];
    const counts: number[] = [];
    let text = '';
    let n = 0;
    for (let i = 0; i < rows.length; i++) {
      text += line(rows[i]);
      n++;
      if (text.length >= APPEND_CHARS) {
        texts.push(text);
        counts.push(n);
        text = '';
        n = 0;
      }
    }
    if (n > 0) {
      texts.push(text);
      counts.push(n);
    }
    for (let i = 0; i < texts.length; i++) this.lines.append(texts[i], counts[i]);
  }

  private schedule(): void {
    // The end of the running insert schedules what arrived meanwhile.
    if (this.inflight || this.lines.rows === 0) return;
    if (this.lines.rows >= this.opts.batchRows || this.waiters.length > 0) {
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
    this.encodeQueued();
    while (this.inflight || this.lines.rows > 0) {
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
    if (this.lines.rows === 0) return Promise.resolve();
    const rows = this.lines.rows;
    const chunks = this.lines.take();
    const waiters = this.waiters;
    this.waiters = [];
    this.inflight = (async () => {
      try {
        await this.insert(
          this.table,
          this.format.columns,
          chunks.map((c) => c.bytes),
        );
        this.lines.recycle(chunks);
        this.inserted += rows;
        this.lastError = null;
        for (const w of waiters) w.resolve();
      } catch (err) {
        this.lastError = err;
        this.opts.log?.error({ err, table: this.table, rows }, 'clickhouse insert failed; rows kept for retry');
        this.lines.putBack(chunks);
        if (this.lines.rows > this.maxBuffered) {
          const drop = this.lines.rows - this.maxBuffered;
          this.lines.dropOldest(drop);
          this.dropped += drop;
          this.opts.log?.error({ table: this.table, dropped: drop }, 'clickhouse buffer full; oldest rows dropped');
        }
        for (const w of waiters) w.reject(err);
      } finally {
        this.inflight = null;
      }
      if (this.closed || this.lines.rows === 0) return;
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
