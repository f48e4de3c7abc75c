import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
async function initialisedPgliteDir(): Promise<string> {
  const { version } = JSON.parse(
    readFileSync(join(REPO_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
  ) as { version: string };
  const cache = await builtOnce(`test-pglite-${version}`, async (dir) => {
    await (await openPglite(join(dir, 'pglite'))).close();
  });
  return join(cache, 'pglite');
}

/** Fills `dir` with a copy of an initialised, not migrated PGlite database and returns it, for openPglite(dir). */
export async function copyInitialisedPglite(dir: string): Promise<string> {
  cpSync(await initialisedPgliteDir(), dir, { recursive: true });
  return dir;
}
