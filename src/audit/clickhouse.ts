import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Config } from '../config.js';
import { renderDdl } from './schema.js';

export type ClickHouseConfig = Pick<
  Config,
  'DATA_DIR' | 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'
>;

// 64-bit integers come back as JSON numbers from a server too (chDB always does), so both
// answer alike; our counters stay far below 2^53.
const SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

/**
 * A ClickHouse client: embedded chDB in `DATA_DIR/chdb` by default (one process per data
 * directory), or the server at `CLICKHOUSE_URL`.
 */
export function openClickHouse(cfg: ClickHouseConfig): ClickHouseClient {
  if (cfg.CLICKHOUSE_URL) {
    return createClient({
      url: cfg.CLICKHOUSE_URL,
      username: cfg.CLICKHOUSE_USER,
      password: cfg.CLICKHOUSE_PASSWORD,
      clickhouse_settings: SETTINGS,
    });
  }
  const path = join(cfg.DATA_DIR, 'chdb');
  mkdirSync(path, { recursive: true });
  // The chDB connection implements @clickhouse/client-common's Connection; the cast bridges
  // two copies of that package's types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return createClient({ connection: createChdbConnection({ path }) as any, clickhouse_settings: SETTINGS });
}

/** Creates the database and tables when missing (every start; the statements are idempotent). */
export async function migrateClickHouse(client: ClickHouseClient, cfg: Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'>): Promise<void> {
  for (const query of renderDdl(cfg.CLICKHOUSE_DATABASE, cfg.CLICKHOUSE_CLUSTER)) {
    await client.command({ query });
  }
}
