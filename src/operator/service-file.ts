import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * How an operator's tools on this machine find the running service: the ingesting node writes
 * `DATA_DIR/service.json` (mode 0600) once it listens — its pid, host, URL and a local operator
 * key made at start — and removes it when it stops or stops ingesting. The CLI's list commands
 * then go through that node's admin API instead of writing beside it (embedded PGlite and chDB
 * are one process per data directory, and two writers of the snapshots would race). A file whose
 * pid is gone (a crash) is stale and ignored.
 *
 * The local operator key is accepted by the admin API like ADMIN_KEY. It grants nothing the file
 * system does not already: whoever can read DATA_DIR can read the embedded databases themselves.
 * It lets a CLI on the service's machine act without ADMIN_KEY being configured anywhere.
 */

const SERVICE_FILE = 'service.json';

export interface ServiceFile {
  pid: number;
  host: string;
  /** Base URL of the node's HTTP API, as reachable from this machine. */
  url: string;
  started_at: string;
  /** Bearer credential for its admin API. */
  operator_key: string;
}

export function newOperatorKey(): string {
  return `op_${randomBytes(24).toString('base64url')}`;
}

/** The URL a local client uses for a node listening on `host:port` (a wildcard address means loopback). */
export function localUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** Writes the file (0600, atomically); returns a remover that removes it only while it is still this one. */
export async function advertise(
  dataDir: string,
  file: Omit<ServiceFile, 'pid' | 'host' | 'started_at'>,
): Promise<() => Promise<void>> {
  const path = join(dataDir, SERVICE_FILE);
  const content: ServiceFile = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), ...file };
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = await open(tmp, 'w', 0o600);
  try {
    await fd.writeFile(JSON.stringify(content, null, 2) + '\n');
  } finally {
    await fd.close();
  }
  await rename(tmp, path);
  return async () => {
    const current = readServiceFile(dataDir);
    if (current && current.pid === content.pid && current.operator_key === content.operator_key)
      await rm(path, { force: true });
  };
}

function readServiceFile(dataDir: string): ServiceFile | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, SERVICE_FILE), 'utf8')) as Partial<ServiceFile>;
    if (
      typeof parsed.pid !== 'number' ||
      typeof parsed.url !== 'string' ||
      typeof parsed.operator_key !== 'string' ||
      typeof parsed.host !== 'string'
    )
      return null;
    return parsed as ServiceFile;
  } catch {
    return null;
  }
}

/**
 * The running service advertised in `dataDir`, or null. On this host the pid must be alive; a
 * file written on another host (a shared DATA_DIR) cannot be checked that way and is trusted.
 */
export function runningService(dataDir: string): ServiceFile | null {
  const file = readServiceFile(dataDir);
  if (!file) return null;
  if (file.host !== hostname()) return file;
  try {
    process.kill(file.pid, 0);
    return file;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? file : null;
  }
}
