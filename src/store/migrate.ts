import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

/**
 * Versioned migrations: `migrations/NNN_name.sql`, applied in order, each in its own transaction
 * together with its row in `schema_migrations`. An advisory lock serializes nodes starting at
 * the same time against one PostgreSQL server.
 */
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const LOCK_ID = 7_246_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const seen = new Set<number>();
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const version = Number(f.slice(0, 3));
      if (seen.has(version)) throw new Error(`duplicate migration number ${version} (${f})`);
      seen.add(version);
      return { version, name: f.slice(4, -4), sql: readFileSync(`${dir}/${f}`, 'utf8') };
    });
}

/** Applies the pending migrations; returns the versions applied. */
export async function migrate(db: Db, migrations = listMigrations()): Promise<number[]> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version integer PRIMARY KEY,
       name text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
      const { rows } = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length > 0) return false;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
