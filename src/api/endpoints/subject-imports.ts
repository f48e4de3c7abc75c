import { z } from 'zod';
import { endpoint, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { badRequest, notFound } from '../../core/errors.js';
import type { ImportFormat } from '../../subjects/import-rows.js';
import type { ImportJob, ImportJobs } from '../../subjects/import-jobs.js';
import { jobView } from '../../subjects/jobs.js';
import type { SubjectImporter } from '../../subjects/importer.js';
import { SubjectJob } from '../schemas/subjects.js';
import { customerOf } from './account.js';

/**
 * Bulk imports of a customer's book (docs/monitoring.md "Imports"): `subjects.import` streams
 * its body over REST only (src/server/subject-import-route.ts) and answers 202 with the job;
 * `subjects.importJob` reads it. The operator has the same pair under `/admin/customers/{id}`
 * (what `cli subjects import` uses).
 */

export interface SubjectImportDeps {
  /** SUBJECT_IMPORT_MAX_ROWS. */
  maxRows: number;
  importer: SubjectImporter;
  jobs: ImportJobs;
  customerExists(customerId: number): Promise<boolean>;
}

export const IMPORT_CONTENT_TYPES: Record<string, ImportFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
};

const RAW_BODY = {
  'text/csv':
    'A header line naming the columns (external_id and names required; type, birth_date, countries, identifiers, crypto, email, website optional), then one subject a line. Several names, countries or values are separated by `|`; an identifier is `type:value` (or a bare value).',
  'application/x-ndjson':
    'One JSON object a line: {"external_id", "type", "names": [...], "birth_date", "countries": [...], "identifiers": [{"type", "value"}], "values": {"crypto": [...], "email": [...], "website": [...]}}.',
};

const description = (maxRows: number) =>
  `Upserts subjects by \`external_id\` from the streamed body (at most ${maxRows.toLocaleString('en')} rows, SUBJECT_IMPORT_MAX_ROWS: more is a 413) and screens the new or changed ones, one credit each. ` +
  'Before anything is stored, the body is counted: when fewer credits remain than it has rows, the import is refused whole (402). ' +
  'The answer is a 202 with the job (`state` running) to poll at `Location`; a bad row is refused with its line and reason and the others are taken; when an external id appears twice, the last row wins.';

const jobId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const customerId = z.number().int().min(1).max(2_147_483_647);

/** A job of the customer, or 404. */
async function jobOf(deps: SubjectImportDeps, customer: number, id: number): Promise<ImportJob> {
  const job = await deps.jobs.get(customer, id);
  if (!job) throw notFound(`Import job not found: ${id}`);
  return job;
}

/** What the import route runs once the caller is known: receive the body and start the job. */
export type ImportHandler = (
  caller: Caller,
  input: Record<string, unknown>,
  format: ImportFormat,
  body: AsyncIterable<Uint8Array>,
  requestId: string,
) => Promise<{ job: z.output<typeof SubjectJob>; location: string }>;

export function importHandler(deps: SubjectImportDeps, access: 'account' | 'admin'): ImportHandler {
  return async (caller, input, format, body, requestId) => {
    const customer = access === 'account' ? customerOf(caller) : (input.customer_id as number);
    if (access === 'admin' && !(await deps.customerExists(customer))) throw notFound(`Customer not found: ${customer}`);
    const job = await deps.importer.receive(customer, format, body, requestId);
    const location =
      access === 'account'
        ? `/api/v1/account/subjects/imports/${job.id}`
        : `/api/v1/admin/customers/${customer}/subjects/imports/${job.id}`;
    return { job: jobView(job), location };
  };
}

const refuseOverTrpc = () => {
  throw badRequest('an import streams its rows as the request body: POST them to the REST route');
};

export function subjectImportEndpoints(deps: SubjectImportDeps): AnyEndpoint[] {
  return [
    endpoint({
      id: 'subjects.import',
      accepted: true,
      method: 'POST',
      path: '/account/subjects/import',
      tags: ['account'],
      summary: 'Import subjects in bulk (CSV or NDJSON)',
      description: description(deps.maxRows),
      access: 'account',
      errors: [402, 413, 415],
      nativeRoute: true,
      rawBody: RAW_BODY,
      input: z.object({}).strict(),
      output: SubjectJob,
      handler: refuseOverTrpc,
    }),
    endpoint({
      id: 'subjects.importJob',
      method: 'GET',
      path: '/account/subjects/imports/{id}',
      tags: ['account'],
      summary: 'An import job: progress, refused rows, alerts opened',
      access: 'account',
      errors: [404],
      input: z.object({ id: jobId }).strict(),
      output: SubjectJob,
      handler: async (input, ctx) => jobView(await jobOf(deps, customerOf(ctx.caller), input.id)),
    }),
    endpoint({
      id: 'admin.subjects.import',
      accepted: true,
      method: 'POST',
      path: '/admin/customers/{customer_id}/subjects/import',
      tags: ['admin'],
      summary: 'Import subjects in bulk for a customer',
      description: `${description(deps.maxRows)} The customer's credits pay for it as if it had imported them.`,
      access: 'admin',
      errors: [402, 404, 413, 415],
      nativeRoute: true,
      rawBody: RAW_BODY,
      input: z.object({ customer_id: customerId }).strict(),
      output: SubjectJob,
      handler: refuseOverTrpc,
    }),
    endpoint({
      id: 'admin.subjects.importJob',
      method: 'GET',
      path: '/admin/customers/{customer_id}/subjects/imports/{id}',
      tags: ['admin'],
      summary: 'A customer’s import job',
      access: 'admin',
      errors: [404],
      input: z.object({ customer_id: customerId, id: jobId }).strict(),
      output: SubjectJob,
      handler: async (input) => jobView(await jobOf(deps, input.customer_id, input.id)),
    }),
  ];
}
