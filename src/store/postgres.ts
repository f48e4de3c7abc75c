import pg from 'pg';
import type { Db, Queryable } from './db.js';

/** A PostgreSQL server through a small `pg` pool. */
export async function openPostgres(url: string, poolSize = 5): Promise<Db> {
  // allowExitOnIdle: idle connections do not keep a finished CLI command (or test) alive.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, allowExitOnIdle: true });
  // Fail fast on a wrong URL instead of at the first request.
  const probe = await pool.connect();
  probe.release();
  const query = async <T>(sql: string, params: unknown[] = []) => ({
    rows: (await pool.query(sql, params)).rows as T[],
  });
  // Without parameters `pg` uses the simple protocol, which accepts several statements.
  const exec = async (sql: string) => {
    await pool.query(sql);
  };
  return {
    kind: 'postgres',
    query,
    exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({
          query: async <R>(sql: string, params: unknown[] = []) => ({
            rows: (await client.query(sql, params)).rows as R[],
          }),
          exec: async (sql: string) => {
            await client.query(sql);
          },
        });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
