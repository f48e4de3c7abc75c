import type { Schemas } from './api';

export type ListJob = Schemas['ListJob'];

const POLL_MS = 1000;

/**
 * A list operation's outcome: the job the first call answered (200 when done within its wait, 202
 * while it goes on), polled with `poll` until it is done; a failed job is an error.
 */
export async function settled(first: Promise<ListJob>, poll: (id: number) => Promise<ListJob>): Promise<ListJob> {
  let job = await first;
  while (job.status !== 'done' && job.status !== 'failed') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await poll(job.id);
  }
  if (job.status === 'failed') throw new Error(job.error ?? 'The operation failed.');
  return job;
}

/** One line per list of a finished job, as a person reads it. */
export function jobSummary(job: ListJob): string {
  return job.results
    .map((r) => {
      switch (r.result) {
        case 'new_version':
          return `${r.list}: new version ${r.version ?? ''} (${r.listed} listed, ${r.delisted} delisted, ${r.relisted} relisted${r.total === null ? '' : `; ${r.total} in service`}).`;
        case 'unchanged':
          return `${r.list}: checked, unchanged.`;
        case 'not_configured':
          return `${r.list}: not configured on this server (${r.error ?? 'see its last error'}).`;
        default:
          return `${r.list}: the check failed: ${r.error ?? 'unknown error'}. The previous version stays in service.`;
      }
    })
    .join(' ');
}
