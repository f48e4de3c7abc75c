import type { Logger } from 'pino';
import type { AuditMatchRow, RowSink } from '../audit/rows.js';
import { mergeMatches, type AlertStore, type Upsert } from './store.js';

/**
 * How long pushed matches wait to be recorded together. An embedded database (PGlite) runs its
 * statements on the front-end thread, about a millisecond each: one statement per request capped
 * matching screenings near 1,000/s. Merged over this window, one screening repeated at any rate
 * costs one row of one statement. The upsert of even one row costs ~5-10 ms of that thread (its
 * CTE, the row's indexes): every 200 ms that was 10.5 µs of a 44 µs matching request at 10k req/s,
 * every second 2.5 µs (docs/investigations/2026-11-28-match-route-alert-cost.md).
 */
const FLUSH_MS = 1_000;
/** Alerts per statement: between chunks the event loop serves requests (a crafted answer has 1,220). */
const CHUNK = 500;

/** Matches merged by alert, recorded as one unit; `done` settles once all of them are stored. */
class Generation {
  readonly ups = new Map<string, Upsert>();
  waited = false;
  private settle!: { resolve: () => void; reject: (err: unknown) => void };
  readonly done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
  constructor() {
    // Pushed rows have nobody awaiting them: their failure is logged, not an unhandled rejection.
    this.done.catch(() => undefined);
  }
  resolve(): void {
    this.settle.resolve();
  }
  reject(err: unknown): void {
    this.settle.reject(err);
  }
}

/**
 * The audit sink of metered matches, extended to open or update alerts: rows go to the audit trail
 * as before, then to the alert store. Pushed rows are fire and forget: merged by alert and recorded
 * every FLUSH_MS, a failure logged without failing the screenings whose rows the audit trail
 * already holds. Written rows (strict mode) resolve once their alerts are stored too: a write
 * records at once, together with every match that arrived meanwhile (group commit).
 */
export function alertingAuditSink(audit: RowSink<AuditMatchRow>, alerts: AlertStore, log: Logger): AlertingSink {
  let current = new Generation();
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const store = async (gen: Generation) => {
    const ups = [...gen.ups.values()];
    try {
      for (let i = 0; i < ups.length; i += CHUNK) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        await alerts.upsert(ups.slice(i, i + CHUNK));
      }
      gen.resolve();
    } catch (err) {
      log.error({ err, alerts: ups.length }, 'alerts of audited matches not recorded');
      gen.reject(err);
    }
  };
  const schedule = () => {
    if (timer === null && running === null) timer = setTimeout(kick, FLUSH_MS).unref();
  };
  function kick(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (running !== null || current.ups.size === 0) return;
    const gen = current;
    current = new Generation();
    running = store(gen).finally(() => {
      running = null;
      if (current.waited) kick();
      else if (current.ups.size > 0) schedule();
    });
  }
  return {
    push(rows) {
      audit.push(rows);
      if (rows.length === 0) return;
      mergeMatches(rows, current.ups);
      if (current.ups.size > 0) schedule();
    },
    async write(rows) {
      await audit.write(rows);
      mergeMatches(rows, current.ups);
      if (current.ups.size === 0) return;
      const gen = current;
      gen.waited = true;
      kick();
      await gen.done;
    },
    async idle() {
      while (running !== null || current.ups.size > 0) {
        kick();
        await running;
      }
    },
  };
}

/** The audit sink alone, for a service that records no alerts (`ALERTS=false`). */
export function auditOnly(audit: RowSink<AuditMatchRow>): AlertingSink {
  return {
    push: (rows) => audit.push(rows),
    write: (rows) => audit.write(rows),
    idle: () => Promise.resolve(),
  };
}

export interface AlertingSink extends RowSink<AuditMatchRow> {
  /** Resolves once every pushed row's alert is recorded (or its failure logged). */
  idle(): Promise<void>;
}
