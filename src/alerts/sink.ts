import type { Logger } from 'pino';
import type { AuditMatchRow, RowSink } from '../audit/rows.js';
import type { AlertStore } from './store.js';

/**
 * The audit sink of metered matches, extended to open or update alerts: rows go to the audit
 * trail as before, then to the alert store. Pushed rows are fire and forget: those pushed in the
 * same tick are recorded in one statement (a 10,000-item batch is one round trip), and a failure
 * is logged without failing the screening whose rows the audit trail already holds. Written rows
 * (strict mode) resolve once their alerts are stored too.
 */
export function alertingAuditSink(audit: RowSink<AuditMatchRow>, alerts: AlertStore, log: Logger): AlertingSink {
  let pending: AuditMatchRow[] = [];
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    const rows = pending;
    pending = [];
    flushing = flushing
      .then(() => alerts.record(rows))
      .catch((err: unknown) => log.error({ err, rows: rows.length }, 'alerts of audited matches not recorded'));
  };
  return {
    push(rows) {
      audit.push(rows);
      if (rows.length === 0) return;
      if (pending.length === 0) queueMicrotask(flush);
      for (const row of rows) pending.push(row);
    },
    async write(rows) {
      await audit.write(rows);
      await alerts.record(rows);
    },
    async idle() {
      while (pending.length > 0) await Promise.resolve();
      await flushing;
    },
  };
}

export interface AlertingSink extends RowSink<AuditMatchRow> {
  /** Resolves once the pushed rows' alerts are recorded (or their failure logged). */
  idle(): Promise<void>;
}
