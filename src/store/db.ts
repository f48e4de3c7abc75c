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
  /**
   * Embedded PGlite only: NOTIFYs of its own sessions (triggers included) on `channel`. A
   * PostgreSQL server's are heard on a connection of their own (src/store/notify.ts).
   */
  listen?(channel: string, fn: (payload: string) => void): Promise<void>;
  /** `pglite` or `postgres`, for logs and the CLI's messages. */
  readonly kind: 'pglite' | 'postgres';
}
