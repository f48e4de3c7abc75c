import type { ClickHouseClient } from '@clickhouse/client';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { changeSink, type ChangeSink } from './changes.js';
import { migrateClickHouse, openClickHouse, type ClickHouseConfig } from './clickhouse.js';
import { AuditQueries } from './queries.js';
import type { AuditMatchRow, ListChangeRow, SettlementRow, UsageRow } from './rows.js';
import { BatchWriter, type WriterOptions } from './writer.js';

export type AuditConfig = ClickHouseConfig & Pick<Config, 'AUDIT_BATCH_ROWS' | 'AUDIT_FLUSH_MS'>;

/** The ClickHouse side of the service: one batched writer per table and the read queries. */
export interface AuditStore {
  client: ClickHouseClient;
  matches: BatchWriter<AuditMatchRow>;
  usage: BatchWriter<UsageRow>;
  settlements: BatchWriter<SettlementRow>;
  listChanges: BatchWriter<ListChangeRow>;
  /** For the list loader: `changes.write(ListChange[])`. */
  changes: ChangeSink;
  queries: AuditQueries;
  /** Inserts every buffered row, then closes the client (graceful shutdown). */
  close(): Promise<void>;
}

export async function openAuditStore(cfg: AuditConfig, opts: { log?: Logger; client?: ClickHouseClient } = {}): Promise<AuditStore> {
  const client = opts.client ?? openClickHouse(cfg);
  await migrateClickHouse(client, cfg);
  const w: WriterOptions = { batchRows: cfg.AUDIT_BATCH_ROWS, flushMs: cfg.AUDIT_FLUSH_MS, log: opts.log };
  const table = (name: string) => `${cfg.CLICKHOUSE_DATABASE}.${name}`;
  const matches = new BatchWriter<AuditMatchRow>(client, table('audit_matches'), w);
  const usage = new BatchWriter<UsageRow>(client, table('usage'), w);
  const settlements = new BatchWriter<SettlementRow>(client, table('x402_settlements'), w);
  const listChanges = new BatchWriter<ListChangeRow>(client, table('list_changes'), w);
  return {
    client,
    matches,
    usage,
    settlements,
    listChanges,
    changes: changeSink(listChanges),
    queries: new AuditQueries(client, cfg.CLICKHOUSE_DATABASE),
    async close() {
      const results = await Promise.allSettled([matches.close(), usage.close(), settlements.close(), listChanges.close()]);
      await client.close();
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
