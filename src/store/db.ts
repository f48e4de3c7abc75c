import { join } from 'node:path';
import type { Config } from '../config.js';

/**
 * The control-plane database: PostgreSQL dialect, either embedded PGlite (default, one process
 * per data directory) or a PostgreSQL server through `pg` (`DATABASE_URL`). Callers write plain
 * SQL with `$1` parameters and never see which one they talk to. Integer columns are `integer`
 * (never `bigint`) and aggregates are cast to `::int`, because `pg` returns 64-bit values as
 * strings while PGlite returns numbers.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  /** Runs `fn` in one transaction (committed when it resolves, rolled back when it throws). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** `pglite` or `postgres`, for logs and the CLI's messages. */
  readonly kind: 'pglite' | 'postgres';
}

/** Opens the database named by the configuration (`DATABASE_URL`, else `DATA_DIR/pglite`). */
export async function openDb(cfg: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): Promise<Db> {
  if (cfg.DATABASE_URL) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(cfg.DATABASE_URL);
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(join(cfg.DATA_DIR, 'pglite'));
}
