import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations, migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';
import { REPO_ROOT } from './paths.js';

/**
 * Builds `.tmp/<name>` once across the parallel test processes (a directory lock makes exactly
 * one of them build it) and returns its path; a DONE file marks it complete.
 */
export async function builtOnce(name: string, build: (dir: string) => Promise<void>): Promise<string> {
  const cache = join(REPO_ROOT, '.tmp', name);
  const done = join(cache, 'DONE');
  const lock = `${cache}.lock`;
  mkdirSync(join(REPO_ROOT, '.tmp'), { recursive: true });
  for (;;) {
    if (existsSync(done)) return cache;
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      rmSync(cache, { recursive: true, force: true });
      mkdirSync(cache, { recursive: true });
      await build(cache);
      writeFileSync(done, new Date().toISOString());
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * A PGlite data directory as `initdb` leaves it, not migrated (each service migrates its own, as
 * in production). Creating one costs seconds of CPU (12 s at load 15 on 2 cores); a copy of
 * this one opens in about one.
 */
function pgliteVersion(): string {
  const { version } = JSON.parse(
    readFileSync(join(REPO_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
  ) as { version: string };
  return version;
}

async function initialisedPgliteDir(): Promise<string> {
  const cache = await builtOnce(`test-pglite-${pgliteVersion()}`, async (dir) => {
    await (await openPglite(join(dir, 'pglite'))).close();
  });
  return join(cache, 'pglite');
}

/** Fills `dir` with a copy of an initialised, not migrated PGlite database and returns it, for openPglite(dir). */
export async function copyInitialisedPglite(dir: string): Promise<string> {
  cpSync(await initialisedPgliteDir(), dir, { recursive: true });
  return dir;
}

/**
 * An initialised PGlite data directory with every migration applied, keyed by the migrations and
 * the code that applies them. Each test service's start migrated its own copy: copy, open and
 * migrate took 8.0–8.8 s (1.5–2.9 s of CPU) at load 16, against 1.7–4.2 s (0.8 s) on this copy,
 * where its start still runs migrate() and finds them applied, as at any restart. The migrations
 * themselves are tested from an empty database (test/store/migrate, test/server/compiled).
 */
async function migratedPgliteDir(): Promise<string> {
  const h = createHash('sha256').update(pgliteVersion());
  h.update(readFileSync(join(REPO_ROOT, 'src', 'store', 'migrate.ts')));
  for (const m of listMigrations()) h.update(`${m.version} ${m.name}\n${m.sql}\n`);
  const cache = await builtOnce(`test-pglite-migrated-${h.digest('hex').slice(0, 16)}`, async (dir) => {
    const db = await openPglite(await copyInitialisedPglite(join(dir, 'pglite')));
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  });
  return join(cache, 'pglite');
}

/** Fills `dir` with a copy of a migrated PGlite database (see migratedPgliteDir) and returns it. */
export async function copyMigratedPglite(dir: string): Promise<string> {
  cpSync(await migratedPgliteDir(), dir, { recursive: true });
  return dir;
}
