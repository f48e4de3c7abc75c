import type { LineFormat } from './formats.js';
import type { RowSink } from './rows.js';
import type { AuditLog } from './wal.js';

/** What the service writes a table's rows through, and flushes or closes (BatchWriter, LoggedWriter). */
export interface RowWriter<T> extends RowSink<T> {
  /** `database.table`. */
  readonly table: string;
  /** Rows held in memory, not yet handed to an insert or to the audit log. */
  readonly pending: number;
  /** Inserts everything handed over so far; rejects when an insert fails. */
  flush(): Promise<void>;
  /** Inserts what is left and refuses further rows. */
  close(): Promise<void>;
}

/**
 * A table's rows through the audit log (AUDIT_STRICT): checked and encoded when handed over, as
 * BatchWriter does, then appended to the log, which inserts them. `write` resolves once they are
 * fsync'd to the log, which is what strict mode calls stored (docs/audit.md).
 */
export class LoggedWriter<T extends object> implements RowWriter<T> {
  private closed = false;
  /** Rows go to the log as they are handed over. */
  readonly pending = 0;

  constructor(
    private readonly log: AuditLog,
    readonly table: string,
    private readonly format: LineFormat<T>,
  ) {}

  push(rows: T[]): void {
    if (rows.length === 0) return;
    this.log.append(this.table, this.encode(rows));
  }

  write(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    try {
      this.log.append(this.table, this.encode(rows));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.log.sync();
  }

  /** Every row checked before any is encoded: a row that throws leaves nothing appended. */
  private encode(rows: T[]): string {
    if (this.closed) throw new Error(`${this.table} writer is closed`);
    const { check, line } = this.format;
    for (let i = 0; i < rows.length; i++) check(rows[i]);
    let text = '';
    for (let i = 0; i < rows.length; i++) text += line(rows[i]);
    return text;
  }

  flush(): Promise<void> {
    return this.log.flush();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.log.flush();
  }
}
