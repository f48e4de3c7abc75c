import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ListJobs } from './jobs.js';

/**
 * Files a node that stopped mid-operation (a crash) leaves in DATA_DIR, removed at start: no
 * one will finish them, and an interrupted commit of a large upload leaves tens of megabytes.
 */

/**
 * Spooled bodies and staged records (`uploads/job-<id>.ndjson*`) of jobs that are no longer
 * active: failed, done, or gone. Those of active jobs stay, whichever node runs them, since
 * nodes may share DATA_DIR.
 */
export async function removeUploadLeftovers(dataDir: string, jobs: ListJobs, log: Logger): Promise<void> {
  const dir = join(dataDir, 'uploads');
  for (const name of await names(dir)) {
    const m = /^job-(\d+)\.ndjson/.exec(name);
    const job = m ? await jobs.get(Number(m[1])) : null;
    if (job && (job.status === 'receiving' || job.status === 'queued' || job.status === 'running')) continue;
    await rm(join(dir, name), { force: true });
    log.info({ file: name, job: job?.id ?? null, status: job?.status ?? null }, 'removed a stopped job’s upload file');
  }
}

/**
 * The temporary files of a list commit (`lists/<slug>/*.tmp-<pid>`, `lists/*.tmp-<pid>`) whose
 * writer is no longer running. Only the ingesting node writes there, so it calls this when it
 * takes the lead, before its list manager starts: nothing of this process writes there yet, so
 * a file of its own pid is a dead process's (in a container the service has the same pid at
 * every start). A file whose pid is alive on this host may belong to a writer still at work (a
 * leader that just lost the lead finishing its commit) and is left; a pid on another host
 * sharing DATA_DIR cannot be checked, and such a writer's commit then fails at its rename,
 * leaving the list as it was (state.json is the commit point).
 */
export async function removeCommitLeftovers(dataDir: string, log: Logger): Promise<void> {
  const root = join(dataDir, 'lists');
  const dirs = [root, ...(await names(root, true)).map((d) => join(root, d))];
  let files = 0;
  let bytes = 0;
  for (const dir of dirs) {
    for (const name of await names(dir)) {
      const m = /\.tmp-(\d+)(?:-[0-9a-f]+)?$/.exec(name);
      if (!m || isRunning(Number(m[1]))) continue;
      const path = join(dir, name);
      bytes += await size(path);
      await rm(path, { force: true });
      files++;
    }
  }
  if (files > 0) log.info({ files, bytes }, 'removed the temporary files of an interrupted list commit');
}

async function names(dir: string, directories = false): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() === directories).map((e) => e.name);
  } catch {
    return [];
  }
}

async function size(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

/** A process other than this one with that pid exists on this host. */
function isRunning(pid: number): boolean {
  if (pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
