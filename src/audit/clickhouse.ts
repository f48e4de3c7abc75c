import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { stagedFileInsert } from './chdb-insert.js';
import { DROPPED_PROJECTIONS, ident, missingProjections, REKEYED, renderDdl, ROLLUPS, rollupBackfill } from './schema.js';
import type { InsertLines } from './writer.js';

export type ClickHouseConfig = Pick<Config, 'DATA_DIR' | 'CLICKHOUSE_URL' | 'CLICKHOUSE_USER' | 'CLICKHOUSE_PASSWORD' | 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'>;

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
export function connectClickHouse(cfg: ClickHouseConfig, log?: Logger): ClickHouse {
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
  const client = createClient({ connection: connection as never, clickhouse_settings: SETTINGS });
  // Batches go through a staged file, not the client's insert (which decodes the body to a JS
  // string and builds it into the SQL text on the main thread) nor chDB's raw insert (five times
  // the parsing CPU): see stagedFileInsert.
  const insertLines = stagedFileInsert(connection.chdb, join(cfg.DATA_DIR, 'audit-staging'), log);
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

/** The comment of a rollup table once it holds every row stored before its view. */
const ROLLUP_FILLED = 'filled from audit rows stored before the view';

/**
 * Creates the database and tables when missing and adds the columns added since (every start;
 * the statements are idempotent); a table whose key changed is renamed aside first (REKEYED).
 * A rollup table not yet filled is filled from the rows already stored. Then adds the projections a
 * table created by an earlier version lacks (their data for the parts already stored is built by
 * a background mutation) and drops the ones no longer read.
 */
export async function migrateClickHouse(client: ClickHouseClient, cfg: Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'>): Promise<void> {
  const db = cfg.CLICKHOUSE_DATABASE;
  const on = cfg.CLICKHOUSE_CLUSTER ? ` ON CLUSTER ${ident(cfg.CLICKHOUSE_CLUSTER)}` : '';
  for (const { table, column } of REKEYED) {
    const rs = await client.query({
      query: `SELECT countIf(name = {column:String}) AS has, count() AS columns FROM system.columns WHERE database = {db:String} AND table = {table:String}`,
      query_params: { db, table, column },
      format: 'JSONEachRow',
    });
    const [found] = await rs.json<{ has: number; columns: number }>();
    if (!found || Number(found.columns) === 0 || Number(found.has) > 0) continue;
    const names = cfg.CLICKHOUSE_CLUSTER ? [table, `${table}_local`] : [table];
    for (const name of names)
      await client.command({ query: `RENAME TABLE ${ident(db)}.${ident(name)} TO ${ident(db)}.${ident(`${name.replace(/_local$/, '')}_legacy${name.endsWith('_local') ? '_local' : ''}`)}${on}` });
  }
  for (const query of renderDdl(db, cfg.CLICKHOUSE_CLUSTER)) {
    await client.command({ query });
  }
  // A rollup not yet marked filled (new, or its filling was interrupted) is emptied and counts
  // the rows stored so far. Nothing else writes while the service starts on one node; on a
  // cluster, rows other nodes insert meanwhile are counted twice (docs/clickhouse.md).
  const tables = async () => {
    const rs = await client.query({
      query: 'SELECT name, create_table_query, comment FROM system.tables WHERE database = {db:String}',
      query_params: { db },
      format: 'JSONEachRow',
    });
    return new Map((await rs.json<{ name: string; create_table_query: string; comment: string }>()).map((t) => [t.name, t]));
  };
  const stored = await tables();
  for (const r of ROLLUPS) {
    const local = cfg.CLICKHOUSE_CLUSTER ? `${r.name}_local` : r.name;
    if (stored.get(local)?.comment === ROLLUP_FILLED) continue;
    await client.command({ query: `TRUNCATE TABLE ${ident(db)}.${ident(local)}${on}` });
    await client.command({ query: rollupBackfill(db, r) });
    await client.command({ query: `ALTER TABLE ${ident(db)}.${ident(local)}${on} MODIFY COMMENT '${ROLLUP_FILLED}'` });
  }
  const created = await tables();
  for (const [table, p] of missingProjections(cfg.CLICKHOUSE_CLUSTER, (t) => created.get(t)?.create_table_query ?? '')) {
    const target = `${ident(db)}.${ident(table)}${on}`;
    await client.command({ query: `ALTER TABLE ${target} ADD PROJECTION IF NOT EXISTS ${p.name} (${p.select})` });
    await client.command({ query: `ALTER TABLE ${target} MATERIALIZE PROJECTION ${p.name}` });
  }
  for (const { table, name } of DROPPED_PROJECTIONS) {
    const local = cfg.CLICKHOUSE_CLUSTER ? `${table}_local` : table;
    if (created.get(local)?.create_table_query.includes(`PROJECTION ${name} `)) await client.command({ query: `ALTER TABLE ${ident(db)}.${ident(local)}${on} DROP PROJECTION IF EXISTS ${name}` });
  }
}
