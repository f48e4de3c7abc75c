import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Config } from '../config.js';
import { renderDdl } from './schema.js';
import type { InsertLines } from './writer.js';

export type ClickHouseConfig = Pick<
  Config,
  'DATA_DIR' | 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'
>;

// 64-bit integers come back as JSON numbers from a server too (chDB always does), so both
// answer alike; our counters stay far below 2^53.
const SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

/** A ClickHouse client and the way the audit writers insert through it. */
export interface ClickHouse {
  client: ClickHouseClient;
  insertLines: InsertLines;
}

/**
 * Embedded chDB in `DATA_DIR/chdb` by default (one process per data directory), or the server
 * at `CLICKHOUSE_URL`.
 */
export function connectClickHouse(cfg: ClickHouseConfig): ClickHouse {
  if (cfg.CLICKHOUSE_URL) {
    const client = createClient({
      url: cfg.CLICKHOUSE_URL,
      username: cfg.CLICKHOUSE_USER,
      password: cfg.CLICKHOUSE_PASSWORD,
      clickhouse_settings: SETTINGS,
    });
    return { client, insertLines: streamInsert(client) };
  }
  const path = join(cfg.DATA_DIR, 'chdb');
  mkdirSync(path, { recursive: true });
  const connection = createChdbConnection({ path });
  // The chDB connection implements @clickhouse/client-common's Connection; the cast bridges
  // two copies of that package's types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const client = createClient({ connection: connection as any, clickhouse_settings: SETTINGS });
  // A table's chunks are joined in a buffer kept for that table (its writer runs one insert at a
  // time), not a new one per insert: fresh off-heap buffers drive V8 into full collections.
  const joined = new Map<string, Buffer>();
  const joinLines = (table: string, lines: Buffer[]): Buffer => {
    if (lines.length === 1) return lines[0];
    let size = 0;
    for (const l of lines) size += l.length;
    let buf = joined.get(table);
    if (!buf || buf.length < size) {
      buf = Buffer.allocUnsafe(Math.max(size, 2 * (buf?.length ?? 0)));
      joined.set(table, buf);
    }
    let at = 0;
    for (const l of lines) at += l.copy(buf, at);
    return buf.subarray(0, size);
  };
  // chDB's client connection decodes an insert body to a JS string and re-encodes it into the
  // SQL text on the main thread; its raw insert hands the Buffer to chDB as it is, which is
  // about 0.6 µs per row less main-thread time (docs/clickhouse.md).
  const insertLines: InsertLines = async (table, columns, lines) => {
    await connection.chdb.rawInsert({ table, columns, values: joinLines(table, lines), format: 'TabSeparated' });
  };
  return { client, insertLines };
}

/** A ClickHouse client: embedded chDB or a server, as `connectClickHouse`. */
export function openClickHouse(cfg: ClickHouseConfig): ClickHouseClient {
  return connectClickHouse(cfg).client;
}

/** Inserts lines through the client (a server over HTTP, or any client): the body streams as it is. */
export function streamInsert(client: ClickHouseClient): InsertLines {
  return async (table, columns, lines) => {
    await client.insert({ table, columns: [...columns], values: Readable.from(lines, { objectMode: false }), format: 'TabSeparated' });
  };
}

/** Creates the database and tables when missing (every start; the statements are idempotent). */
export async function migrateClickHouse(client: ClickHouseClient, cfg: Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'>): Promise<void> {
  for (const query of renderDdl(cfg.CLICKHOUSE_DATABASE, cfg.CLICKHOUSE_CLUSTER)) {
    await client.command({ query });
  }
}
