import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';

/**
 * The control-plane suites run against embedded PGlite and a real PostgreSQL server:
 * `TEST_DATABASE_URL` when set; else the server of this run of scripts/run-tests.mjs, started by
 * the first file that needs it in `TEST_PG_DIR` (the runner stops it); else a throwaway server
 * for this test file alone (stopped when its process exits). Each file works in databases of its
 * own (`freshPostgresUrl`). Opening PGlite takes seconds, so a test file shares one migrated
 * database per backend (tests keep apart by creating their own customers); `restart()` closes
 * and reopens it, as a restart of the service would.
 */
export interface TestDb {
  db: Db;
  restart(): Promise<Db>;
}

export interface Backend {
  name: 'pglite' | 'postgres';
  database(): Promise<TestDb>;
}

const SCRIPT = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url));

function tryLock(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

async function postgresServer(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const shared = process.env.TEST_PG_DIR;
  if (shared) {
    // Files start at once: the lock makes one of them create the server, the others find it running.
    while (!tryLock(`${shared}.lock`)) await new Promise((r) => setTimeout(r, 200));
    try {
      return execFileSync(SCRIPT, ['start', shared], { encoding: 'utf8' }).trim();
    } finally {
      rmSync(`${shared}.lock`, { recursive: true, force: true });
    }
  }
  const dir = join(tmpdir(), `screening-pg-test-${process.pid}`);
  const url = execFileSync(SCRIPT, ['start', dir], { encoding: 'utf8' }).trim();
  process.on('exit', () => {
    execFileSync(SCRIPT, ['stop', dir]);
  });
  return url;
}

const opened: Promise<TestDb>[] = [];

/** Closes the databases of this file (call from a top-level `after`). */
export async function closeBackends(): Promise<void> {
  for (const t of await Promise.all(opened)) await t.db.close();
}

function memo(open: () => Promise<Db>): () => Promise<TestDb> {
  let current: Promise<TestDb> | null = null;
  return () => {
    if (current) return current;
    current = (async () => {
      const t: TestDb = {
        db: await open(),
        async restart() {
          await t.db.close();
          t.db = await open();
          return t.db;
        },
      };
      await migrate(t.db);
      return t;
    })();
    opened.push(current);
    return current;
  };
}

const pglite: Backend = {
  name: 'pglite',
  database: memo(
    (() => {
      let dir: Promise<string> | null = null;
      return async () => {
        if (!dir) {
          const d = mkdtempSync(join(tmpdir(), 'pglite-test-'));
          process.on('exit', () => rmSync(d, { recursive: true, force: true }));
          // A copy of an initialised database: initdb would cost each file seconds of CPU.
          dir = copyInitialisedPglite(join(d, 'pglite'));
        }
        return openPglite(await dir);
      };
    })(),
  ),
};

let server: Promise<string> | null = null;

/** URL of a new, empty database on the test PostgreSQL server. */
export async function freshPostgresUrl(): Promise<string> {
  server ??= postgresServer();
  const url = await server;
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = await openPostgres(url, 1);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.close();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const postgres: Backend = {
  name: 'postgres',
  database: memo(
    (() => {
      let url: Promise<string> | null = null;
      return async () => openPostgres(await (url ??= freshPostgresUrl()));
    })(),
  ),
};

export const BACKENDS: Backend[] = [pglite, postgres];
