import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';

/**
 * Embedded PostgreSQL (WASM). A data directory can be opened by one process at a time, so the
 * operator CLI must run while the server is stopped or target `DATABASE_URL` (docs/billing.md).
 * `dir` undefined gives an in-memory database (tests).
 */
export async function openPglite(dir?: string): Promise<Db> {
  if (dir) mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir);
  return {
    kind: 'pglite',
    query: async <T>(sql: string, params: unknown[] = []) => ({ rows: (await pg.query<T>(sql, params)).rows }),
    exec: async (sql: string) => {
      await pg.exec(sql);
    },
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      pg.transaction((tx) =>
        fn({
          query: async <R>(sql: string, params: unknown[] = []) => ({ rows: (await tx.query<R>(sql, params)).rows }),
          exec: async (sql: string) => {
            await tx.exec(sql);
          },
        }),
      ),
    close: () => pg.close(),
  };
}
