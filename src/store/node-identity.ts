import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * A node's name among the nodes of one control-plane database: the jobs it takes and runs are
 * recorded under it, so after a crash the restarted node recognises its own interrupted jobs
 * (src/lists/jobs.ts). It must survive a restart, which a pid does not: `NODE_ID` when set, else
 * an id generated at the first start and kept in `DATA_DIR/node-id/<host name>`. The file is per
 * host because nodes on several hosts may share one DATA_DIR (the list snapshots), and each
 * needs its own name; two processes on one host sharing a DATA_DIR need a NODE_ID each.
 */
export function nodeIdentity(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 48) || 'node';
  const dir = join(dataDir, 'node-id');
  const file = join(dir, host);
  const stored = readId(file);
  if (stored) return stored;
  mkdirSync(dir, { recursive: true });
  const id = `${host}-${randomBytes(6).toString('hex')}`;
  try {
    // 'wx': of two processes starting at once, one writes and both read its id.
    writeFileSync(file, `${id}\n`, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readId(file) ?? id;
}

function readId(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
