import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { changeSink, type ChangeSink } from './changes.js';
import {
  connectClickHouse,
  fillRollups,
  migrateClickHouse,
  streamInsert,
  type ClickHouseConfig,
} from './clickhouse.js';
import {
  alertDecisionLines,
  auditMatchLines,
  listChangeLines,
  settlementLines,
  usageLines,
  type LineFormat,
} from './formats.js';
import { AlertDecisionQueries } from './decisions.js';
import { AuditQueries } from './queries.js';
import { ident } from './schema.js';
import { AnalyticsQueries, DEFAULT_BOUNDS } from './analytics.js';
import type { AlertDecisionRow, AuditMatchRow, ListChangeRow, SettlementRow, UsageRow } from './rows.js';
import { BatchWriter, type WriterOptions } from './writer.js';
import { LoggedWriter, type RowWriter } from './logged-writer.js';
import { text } from './tsv.js';
import { AuditLog, storedKey, type StoredKeys } from './wal.js';

export type AuditConfig = ClickHouseConfig & Pick<Config, 'AUDIT_BATCH_ROWS' | 'AUDIT_FLUSH_MS' | 'AUDIT_STRICT'>;

/** The ClickHouse side of the service: one batched writer per table and the read queries. */
export interface AuditStore {
  client: ClickHouseClient;
  /** Through the audit log (DATA_DIR/audit-wal) with AUDIT_STRICT, else batched in memory. */
  matches: RowWriter<AuditMatchRow>;
  usage: RowWriter<UsageRow>;
  settlements: RowWriter<SettlementRow>;
  listChanges: BatchWriter<ListChangeRow>;
  /**
   * Alert decisions, written (awaited) once the control plane committed them, in every audit mode:
   * the answer to a decision comes after its copy is stored.
   */
  alertDecisions: BatchWriter<AlertDecisionRow>;
  decisionQueries: AlertDecisionQueries;
  /** For the list loader: `changes.write(ListChange[])`. */
  changes: ChangeSink;
  queries: AuditQueries;
  /** The dashboard's aggregates (bounded queries). */
  analytics: AnalyticsQueries;
  /**
   * Fills the rollups this start found new or half-filled from the rows stored before it (once;
   * later calls return the same promise), in the background: the service serves meanwhile, and the
   * most matched values are read from the rows until it is done. Resolves at once when none was.
   */
  fillRollups(): Promise<void>;
  /** Inserts every buffered row, then closes the client (graceful shutdown). */
  close(): Promise<void>;
}

export interface AuditStoreOptions {
  log?: Logger;
  client?: ClickHouseClient;
  /** Awaited before the rollups' fill begins (tests hold the fill with it). */
  beforeRollupFill?: () => Promise<void>;
}

/**
 * Opens the store on `cfg`'s ClickHouse, or on `opts.client`, which then also carries the
 * inserts (as a stream of TabSeparated lines).
 */
export async function openAuditStore(cfg: AuditConfig, opts: AuditStoreOptions = {}): Promise<AuditStore> {
  const { client, insertLines } = opts.client
    ? { client: opts.client, insertLines: streamInsert(opts.client) }
    : connectClickHouse(cfg, opts.log);
  const fills = await migrateClickHouse(client, cfg);
  let filled = fills.length === 0;
  let filling: Promise<void> | null = null;
  let closing = false;
  const w: WriterOptions = { batchRows: cfg.AUDIT_BATCH_ROWS, flushMs: cfg.AUDIT_FLUSH_MS, log: opts.log };
  const table = (name: string) => `${cfg.CLICKHOUSE_DATABASE}.${name}`;
  const log = cfg.AUDIT_STRICT
    ? new AuditLog({
        dir: join(cfg.DATA_DIR, 'audit-wal'),
        tables: new Map([
          [table('audit_matches'), auditMatchLines.columns],
          [table('usage'), usageLines.columns],
          [table('x402_settlements'), settlementLines.columns],
        ]),
        insert: insertLines,
        stored: storedKeys(client),
        flushMs: cfg.AUDIT_FLUSH_MS,
        log: opts.log,
      })
    : null;
  // A strict answer's rows are durable in the log before ClickHouse has them: the customer's reads
  // insert what the log holds first, so they see every answered request, as they did when strict
  // answers waited for the insert.
  const reader = log ? readingAfter(client, () => log.flush()) : client;
  const writer = <T extends object>(name: string, format: LineFormat<T>): RowWriter<T> =>
    log ? new LoggedWriter(log, table(name), format) : new BatchWriter(insertLines, table(name), format, w);
  const matches = writer('audit_matches', auditMatchLines);
  const usage = writer('usage', usageLines);
  const settlements = writer('x402_settlements', settlementLines);
  const listChanges = new BatchWriter<ListChangeRow>(insertLines, table('list_changes'), listChangeLines, w);
  const alertDecisions = new BatchWriter(insertLines, table('alert_decisions'), alertDecisionLines, w);
  return {
    client,
    matches,
    usage,
    settlements,
    listChanges,
    alertDecisions,
    decisionQueries: new AlertDecisionQueries(reader, cfg.CLICKHOUSE_DATABASE),
    changes: changeSink(listChanges),
    queries: new AuditQueries(reader, cfg.CLICKHOUSE_DATABASE),
    analytics: new AnalyticsQueries(reader, cfg.CLICKHOUSE_DATABASE, DEFAULT_BOUNDS, () => filled),
    fillRollups() {
      filling ??= (async () => {
        if (filled) return;
        await opts.beforeRollupFill?.();
        const started = performance.now();
        const rollups = fills.map((f) => f.rollup.name);
        try {
          filled = await fillRollups(client, cfg, fills, () => closing);
        } catch (err) {
          // A statement refused because close() closed the client is no failure: the rollup stays
          // unmarked, and the next start empties and fills it again.
          if (!closing) throw err;
        }
        if (filled)
          opts.log?.info(
            { rollups, seconds: Math.round(performance.now() - started) / 1000 },
            'rollups filled from the stored audit rows',
          );
        else opts.log?.info({ rollups }, 'rollups not filled before shutdown: the next start fills them');
      })();
      return filling;
    },
    async close() {
      closing = true;
      const results = await Promise.allSettled([
        matches.close(),
        usage.close(),
        settlements.close(),
        listChanges.close(),
        alertDecisions.close(),
      ]);
      if (log) results.push(...(await Promise.allSettled([log.close()])));
      await client.close();
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/** The (request id, time) pairs of a table's rows between two times (an audit log replay's check). */
export function storedKeys(client: ClickHouseClient): StoredKeys {
  return async (table, fromMs, toMs) => {
    const name = table.split('.').map(ident).join('.');
    const rs = await client.query({
      query: `SELECT DISTINCT request_id, toUnixTimestamp64Milli(time) AS ms FROM ${name} WHERE time >= fromUnixTimestamp64Milli(toInt64(${Math.floor(fromMs)})) AND time <= fromUnixTimestamp64Milli(toInt64(${Math.ceil(toMs)}))`,
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ request_id: string; ms: number }>();
    return new Set(rows.map((r) => storedKey(text(r.request_id), Number(r.ms))));
  };
}

/** `client`, whose queries first await `settle`. */
function readingAfter(client: ClickHouseClient, settle: () => Promise<void>): ClickHouseClient {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'query')
        return async (params: Parameters<ClickHouseClient['query']>[0]) => {
          await settle();
          return target.query(params);
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
