import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { INSERT_SETTINGS, stagedFileInsert } from './chdb-insert.js';
import {
  DROPPED_PROJECTIONS,
  ident,
  missingProjections,
  REKEYED,
  renderDdl,
  ROLLUPS,
  rollupBackfill,
  type RollupSpec,
} from './schema.js';
import type { InsertLines } from './writer.js';

export type ClickHouseConfig = Pick<
  Config,
  | 'DATA_DIR'
  | 'CLICKHOUSE_URL'
  | 'CLICKHOUSE_USER'
  | 'CLICKHOUSE_PASSWORD'
  | 'CLICKHOUSE_DATABASE'
  | 'CLICKHOUSE_CLUSTER'
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
    await client.insert({
      table,
      columns: [...columns],
      values: Readable.from(lines, { objectMode: false }),
      format: 'TabSeparated',
      clickhouse_settings: INSERT_SETTINGS,
    });
  };
}

/** The comment of a rollup table once it holds every row stored before its view. */
const ROLLUP_FILLED = 'filled from audit rows stored before the view';

type ClusterConfig = Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER'>;

/** The `ON CLUSTER` clause of a DDL statement (none on a single server). */
const onCluster = (cfg: ClusterConfig) =>
  cfg.CLICKHOUSE_CLUSTER ? ` ON CLUSTER ${ident(cfg.CLICKHOUSE_CLUSTER)}` : '';
/** The table holding a table's rows on this node: its `_local` shard on a cluster. */
const localTable = (cfg: ClusterConfig, table: string) => (cfg.CLICKHOUSE_CLUSTER ? `${table}_local` : table);

function markFilled(client: ClickHouseClient, cfg: ClusterConfig, r: RollupSpec) {
  return client.command({
    query: `ALTER TABLE ${ident(cfg.CLICKHOUSE_DATABASE)}.${ident(localTable(cfg, r.name))}${onCluster(cfg)} MODIFY COMMENT '${ROLLUP_FILLED}'`,
  });
}

/**
 * A rollup a start found new or half-filled, emptied and waiting for its fill (`fillRollups`):
 * its view counts every row inserted from now on, the fill the rows stored before.
 */
export interface RollupFill {
  rollup: RollupSpec;
  /** Epoch ms: the stored rows' times are all before it, the rows the service writes from now on after it. */
  before: number;
  /** The first and last month (`toYYYYMM`) of the stored rows: the fill reads one month at a time. */
  months: [first: number, last: number];
}

/**
 * Creates the database and tables when missing and adds the columns added since (every start;
 * the statements are idempotent); a table whose key changed is renamed aside first (REKEYED).
 * A rollup table not yet filled is emptied; it is returned to be filled from the rows already
 * stored (`fillRollups`, in the background once the service serves), unless there are none. Then
 * adds the projections a table created by an earlier version lacks (their data for the parts
 * already stored is built by a background mutation) and drops the ones no longer read.
 */
export async function migrateClickHouse(client: ClickHouseClient, cfg: ClusterConfig): Promise<RollupFill[]> {
  const db = cfg.CLICKHOUSE_DATABASE;
  const on = onCluster(cfg);
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
      await client.command({
        query: `RENAME TABLE ${ident(db)}.${ident(name)} TO ${ident(db)}.${ident(`${name.replace(/_local$/, '')}_legacy${name.endsWith('_local') ? '_local' : ''}`)}${on}`,
      });
  }
  for (const query of renderDdl(db, cfg.CLICKHOUSE_CLUSTER)) {
    await client.command({ query });
  }
  const tables = async () => {
    const rs = await client.query({
      query: 'SELECT name, create_table_query, comment FROM system.tables WHERE database = {db:String}',
      query_params: { db },
      format: 'JSONEachRow',
    });
    return new Map(
      (await rs.json<{ name: string; create_table_query: string; comment: string }>()).map((t) => [t.name, t]),
    );
  };
  const stored = await tables();
  // A rollup not yet marked filled (new, or its filling was interrupted) is emptied here, before
  // the service writes: from now on its view counts every insert, and the fill the rows stored
  // so far, which all have a time before `before` (the later ones after it, as long as the clock
  // does not go back). On a cluster, rows other nodes insert meanwhile may be counted twice
  // (docs/clickhouse.md).
  const fills: RollupFill[] = [];
  for (const r of ROLLUPS) {
    const local = localTable(cfg, r.name);
    if (stored.get(local)?.comment === ROLLUP_FILLED) continue;
    await client.command({ query: `TRUNCATE TABLE ${ident(db)}.${ident(local)}${on}` });
    // count, min and max of the partition key's column come from the parts' metadata.
    const rs = await client.query({
      query: `SELECT count() AS n, toYYYYMM(min(time)) AS first, toYYYYMM(max(time)) AS last, toUnixTimestamp64Milli(max(time)) AS last_ms FROM ${ident(db)}.${ident(r.source)}`,
      format: 'JSONEachRow',
    });
    const [rows] = await rs.json<{ n: number; first: number; last: number; last_ms: number }>();
    if (Number(rows.n) === 0) await markFilled(client, cfg, r);
    else
      fills.push({
        rollup: r,
        before: Math.max(Date.now(), Number(rows.last_ms) + 1),
        months: [Number(rows.first), Number(rows.last)],
      });
  }
  const created = await tables();
  for (const [table, p] of missingProjections(
    cfg.CLICKHOUSE_CLUSTER,
    (t) => created.get(t)?.create_table_query ?? '',
  )) {
    const target = `${ident(db)}.${ident(table)}${on}`;
    await client.command({ query: `ALTER TABLE ${target} ADD PROJECTION IF NOT EXISTS ${p.name} (${p.select})` });
    await client.command({ query: `ALTER TABLE ${target} MATERIALIZE PROJECTION ${p.name}` });
  }
  for (const { table, name } of DROPPED_PROJECTIONS) {
    const local = localTable(cfg, table);
    if (created.get(local)?.create_table_query.includes(`PROJECTION ${name} `))
      await client.command({
        query: `ALTER TABLE ${ident(db)}.${ident(local)}${on} DROP PROJECTION IF EXISTS ${name}`,
      });
  }
  return fills;
}

/** The month after `toYYYYMM` month `m`. */
const nextMonth = (m: number) => (m % 100 === 12 ? m + 89 : m + 1);

/**
 * Fills the rollups `migrateClickHouse` emptied from the rows stored before it ran, one month of
 * rows per statement (bounded memory, and each statement short), then marks each filled. Returns
 * false, leaving a rollup unmarked (emptied and filled again at the next start), when `stopped`
 * turns true between statements. The statements take no query parameters: chDB runs parameterized
 * queries one at a time, and a long fill would hold every other one back.
 */
export async function fillRollups(
  client: ClickHouseClient,
  cfg: ClusterConfig,
  fills: readonly RollupFill[],
  stopped: () => boolean = () => false,
): Promise<boolean> {
  for (const f of fills) {
    for (let month = f.months[0]; month <= f.months[1]; month = nextMonth(month)) {
      if (stopped()) return false;
      await client.command({ query: rollupBackfill(cfg.CLICKHOUSE_DATABASE, f.rollup, f.before, month) });
    }
    if (stopped()) return false;
    await markFilled(client, cfg, f.rollup);
  }
  return true;
}
