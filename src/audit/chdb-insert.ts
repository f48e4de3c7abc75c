import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { fileStructure, ident } from './schema.js';
import type { InsertLines } from './writer.js';

/** What the staged insert needs of a chDB connection: its `.chdb` extension's query. */
export interface ChdbQueryRunner {
  queryAsync(sql: string): Promise<unknown>;
}

/**
 * Settings of every audit insert (also the client insert's, clickhouse.ts). `optimize_on_insert = 0`:
 * ClickHouse would otherwise sort and collapse each block written to an Aggregating or
 * ReplacingMergeTree table (the rollups, list changes) before writing it, which their merges and
 * their readers, who aggregate, do anyway. Skipping it cut the CPU per stored row by 18% with the
 * rollup views (docs/clickhouse.md).
 */
export const INSERT_SETTINGS = { optimize_on_insert: 0 } as const;
const settingsClause = Object.entries(INSERT_SETTINGS)
  .map(([name, value]) => `${name} = ${value}`)
  .join(', ');

const quoted = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;

/**
 * Inserts each batch into chDB from a file: the lines are written to `stagingDir`, then
 * `INSERT INTO db.table (columns) SELECT * FROM file('<file>', TabSeparated, '<structure>') SETTINGS …`
 * reads them, and the file is removed. chDB's raw insert of the same bytes inline cost about
 * twice the CPU per stored row (docs/clickhouse.md). The file lives for one insert, so it stays
 * in the page cache; files left by a crash are removed at start, since their rows may or may not
 * have been inserted (docs/audit.md).
 */
export function stagedFileInsert(chdb: ChdbQueryRunner, stagingDir: string, log?: Logger): InsertLines {
  const leftovers = existsSync(stagingDir) ? readdirSync(stagingDir).length : 0;
  if (leftovers > 0) {
    rmSync(stagingDir, { recursive: true, force: true });
    log?.warn({ files: leftovers }, 'removed audit insert files left by a crash');
  }
  mkdirSync(stagingDir, { recursive: true });
  let seq = 0;
  return async (table, columns, lines) => {
    const file = join(stagingDir, `${table.replace(/[^\w.-]/g, '_')}.${++seq}.tsv`);
    // Built first: a table or column the schema does not declare throws before anything is written.
    const statement =
      `INSERT INTO ${table.split('.').map(ident).join('.')} (${columns.map(ident).join(', ')}) ` +
      `SELECT * FROM file(${quoted(file)}, TabSeparated, ${quoted(fileStructure(table, columns))}) SETTINGS ${settingsClause}`;
    try {
      await writeFile(file, lines);
      await chdb.queryAsync(statement);
    } finally {
      await rm(file, { force: true });
    }
  };
}
