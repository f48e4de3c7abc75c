import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from './db.js';

/** Opens the database named by the configuration (`DATABASE_URL`, else `DATA_DIR/pglite`). */
export async function openDb(cfg: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): Promise<Db> {
  if (cfg.DATABASE_URL) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(cfg.DATABASE_URL);
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(join(cfg.DATA_DIR, 'pglite'));
}
