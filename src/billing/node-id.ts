import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * This node's name in the control plane, kept in `DATA_DIR/node-id`: a restart on the same data
 * directory is the same node, and finds the quota leases a crash of its previous run left behind
 * (the usage rows that settle them are in the same directory's embedded ClickHouse).
 */
export function nodeId(dataDir: string): string {
  const file = join(dataDir, 'node-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = `${hostname()}-${randomUUID()}`;
  writeFileSync(file, `${id}\n`);
  return id;
}
