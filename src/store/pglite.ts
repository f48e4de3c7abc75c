import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';

/** The data directory is held by another live process (the running server, usually). */
class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the PGlite database ${dir} is in use by process ${pid}`);
  }
}

/** Pid of the live process holding `dir`, or null. */
export function pgliteHolder(dir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(`${dir}.lock`, 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

// PGlite itself does not stop a second process from opening the same directory (which would
// corrupt it), so `<dir>.lock` holds the owner's pid; a lock of a dead process is taken over.
function lock(dir: string): () => void {
  const file = `${dir}.lock`;
  const holder = pgliteHolder(dir);
  if (holder !== null) throw new DataDirInUse(dir, holder);
  rmSync(file, { force: true });
  const fd = openSync(file, 'wx');
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return () => rmSync(file, { force: true });
}

/**
 * Embedded PostgreSQL (WASM). One process at a time per data directory: the operator CLI talks
 * to the running server's admin API instead (docs/billing.md). `dir` undefined gives an
 * in-memory database.
 */
export async function openPglite(dir?: string): Promise<Db> {
  let unlock = () => undefined as void;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    unlock = lock(dir);
  }
  let pg: PGlite;
  try {
    pg = await PGlite.create(dir);
  } catch (err) {
    unlock();
    throw err;
  }
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
    listen: async (channel: string, fn: (payload: string) => void) => {
      await pg.listen(channel, fn);
    },
    close: async () => {
      await pg.close();
      unlock();
    },
  };
}
