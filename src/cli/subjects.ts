import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../config.js';
import { runningService } from '../operator/service-file.js';
import { announce, intArg, parse, runCommand, UsageError } from './support.js';

/**
 * `subjects import FILE --customer N`: imports a customer's subjects through the admin API of the
 * running service (the one advertised in DATA_DIR, or `--server URL` with ADMIN_KEY), since
 * screening needs its engine; waits for the job and prints its outcome.
 */

export const summary = "import subjects into a customer's book (through the running service)";

const USAGE = `usage: cli subjects import FILE --customer ID [--format csv|ndjson] [--json]

  import   upsert the subjects of FILE into the customer's book and screen the new or changed
           ones (one credit each, from the customer's quota): CSV with a header (external_id,
           type, names, birth_date, countries, identifiers, crypto, email, website; several
           values separated by |) or NDJSON, by extension unless --format says it. Prints the
           job: rows read, taken, refused (line and reason), alerts opened.
  --server URL   go through the admin API at URL (needs ADMIN_KEY)

Exit status 1 when the import is refused or fails; refused rows alone are not a failure.`;

const CONTENT_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;

interface JobView {
  id: number;
  state: 'running' | 'done' | 'failed';
  rows_read: number;
  taken: number;
  refused: number;
  refused_rows: { line: number; reason: string }[];
  alerts_opened: number;
  error: string | null;
}

function formatOf(file: string, given: string | boolean | undefined): keyof typeof CONTENT_TYPES {
  const f =
    typeof given === 'string'
      ? given
      : extname(file)
          .slice(1)
          .toLowerCase()
          .replace(/^(jsonl|json)$/, 'ndjson');
  if (f !== 'csv' && f !== 'ndjson')
    throw new UsageError('--format must be csv or ndjson (or the file ends in .csv, .ndjson, .jsonl)');
  return f;
}

function text(job: JobView): string {
  const lines = [
    `import job ${job.id}: ${job.state}${job.error ? ` (${job.error})` : ''}`,
    `rows read ${job.rows_read}, taken ${job.taken}, refused ${job.refused}, alerts opened ${job.alerts_opened}`,
  ];
  for (const r of job.refused_rows) lines.push(`  line ${r.line}: ${r.reason}`);
  if (job.refused > job.refused_rows.length) lines.push(`  (${job.refused - job.refused_rows.length} more refused)`);
  return lines.join('\n');
}

export function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(args, { customer: { type: 'string' }, format: { type: 'string' } });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return Promise.resolve(2);
  }
  const v = parsed.values;
  let failed = false;
  return runCommand(
    parsed,
    USAGE,
    '',
    async () => {
      const config = loadConfig();
      if (typeof v.server === 'string') {
        if (!config.ADMIN_KEY) throw new Error('ADMIN_KEY is required to use the admin API at --server');
        return { resource: { url: v.server, key: config.ADMIN_KEY }, close: async () => undefined, using: v.server };
      }
      const running = runningService(config.DATA_DIR);
      if (!running)
        throw new Error(
          `no service runs on DATA_DIR ${resolve(config.DATA_DIR)}: start it, or give --server URL (screening needs its engine)`,
        );
      return {
        resource: { url: running.url, key: running.operator_key },
        close: async () => undefined,
        using: `the service running on DATA_DIR ${resolve(config.DATA_DIR)} (${running.url})`,
      };
    },
    async ({ url, key }) => {
      if (parsed.sub !== 'import') throw new UsageError(`unknown subcommand ${parsed.sub}`);
      const file = parsed.positionals[0];
      if (!file) throw new UsageError('FILE is required');
      const customer = intArg(v.customer, '--customer');
      const format = formatOf(file, v.format);
      await stat(file);
      const root = `${url.replace(/\/+$/, '')}/api/v1/admin/customers/${customer}/subjects`;
      const auth = { authorization: `Bearer ${key}` };
      const res = await fetch(`${root}/import`, {
        method: 'POST',
        headers: { ...auth, 'content-type': CONTENT_TYPES[format] },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      let job = (await res.json().catch(() => null)) as JobView | { detail?: unknown } | null;
      if (res.status !== 202) {
        const detail = (job as { detail?: unknown } | null)?.detail;
        throw new Error(
          `import refused: ${res.status} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`,
        );
      }
      const id = (job as JobView).id;
      announce(`import job ${id}`);
      while ((job as JobView).state === 'running') {
        await new Promise((r) => setTimeout(r, 500));
        const poll = await fetch(`${root}/imports/${id}`, { headers: auth });
        if (poll.status !== 200) throw new Error(`import job ${id}: ${poll.status} ${await poll.text()}`);
        job = (await poll.json()) as JobView;
      }
      failed = (job as JobView).state === 'failed';
      return { json: job, text: text(job as JobView) };
    },
  ).then((code) => (code === 0 && failed ? 1 : code));
}
