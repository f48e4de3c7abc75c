import { z } from 'zod';
import type { ListManager, RefreshOutcome } from '../../../loaders/manager.js';
import type { ListDefinition } from '../../../loaders/types.js';
import type { UploadFormat } from '../../../loaders/upload.js';
import { Accepted, endpoint, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { HttpError, badRequest, conflict, notFound } from '../../core/errors.js';
import type { ListCatalog } from '../../lists/catalog.js';
import { ALL_LISTS, type Job, type ListJobs } from '../../lists/jobs.js';
import type { ListOperations, NewList } from '../../lists/operations.js';
import { ListEntitiesResponse } from '../schemas/screen.js';
import {
  ChangesPage,
  ListJob,
  OperatorListCreateInput,
  PrivateListCreateInput,
  RESERVED_SLUGS,
  UploadedList,
  UPLOAD_CONTENT_TYPES,
  changesFilter,
  waitParam,
} from '../schemas/lists.js';
import { customerOf } from './account.js';
import { changesPage, type ChangesDeps } from './changes.js';
import { EntitiesInput, listEntities, type PublicDeps } from './public.js';

/**
 * List operations beyond SPEC.md. The operator (`/admin/lists`): refresh any list now (or all),
 * create lists of its own, replace their content by upload, delete them. A customer
 * (`/account/lists`): the same for private lists, which only that customer screens and sees.
 * Every operation runs as a job on the ingesting node; the answer waits for it up to `wait`
 * seconds (200 with the job's outcome), else it is a 202 with the job to poll at `Location`.
 */

export interface ListsDeps extends ChangesDeps, Pick<PublicDeps, 'engine' | 'status'> {
  catalog: ListCatalog;
  operations: ListOperations;
  jobs: ListJobs;
  manager: () => ListManager;
}

type ListJobT = z.output<typeof ListJob>;

function resultView(o: RefreshOutcome): ListJobT['results'][number] {
  return {
    list: o.slug,
    result: o.result === 'reloaded' ? 'unchanged' : o.result,
    version: o.version,
    listed: o.listed ?? 0,
    delisted: o.delisted ?? 0,
    relisted: o.relisted ?? 0,
    total: o.total ?? null,
    duplicates: o.duplicates ?? null,
    error: o.error ?? null,
  };
}

function jobView(job: Job): ListJobT {
  return {
    id: job.id,
    kind: job.kind,
    list: job.list === ALL_LISTS ? null : job.list,
    status: job.status,
    results: job.results.map(resultView),
    error: job.error,
    created_at: job.created_at,
    finished_at: job.finished_at,
  };
}

/** The answer for a job waited on: its outcome, the error it failed with, or a 202 to poll. */
function jobAnswer(job: Job, jobsPath: string): ListJobT | Accepted<ListJobT> {
  if (job.status === 'done') return jobView(job);
  if (job.status === 'failed') throw new HttpError(job.error_status ?? 500, job.error ?? 'the operation failed');
  return new Accepted(jobView(job), { Location: `/api/v1${jobsPath}/${job.id}` });
}

function listView(def: ListDefinition, deps: ListsDeps): z.output<typeof UploadedList> {
  const s = deps.status()[def.slug] as
    { total?: number; version?: string | null; last_updated?: string | null } | undefined;
  return {
    slug: def.slug,
    display_name: def.display_name,
    list_type: def.list_type,
    kind: def.kind,
    cadence: def.cadence,
    entity_types: [...(def.entity_types ?? [])],
    in_default_set: def.in_default_set,
    total: s?.total ?? 0,
    version: s?.version ?? null,
    last_updated: s?.last_updated ?? null,
    created_at: def.created_at ?? null,
  };
}

const waitMs = (input: { wait: number }) => input.wait * 1000;
const JobIdInput = z.object({ job_id: z.number().int().min(1).max(2_147_483_647) }).strict();
const SlugWait = z.object({ slug: z.string().min(1).max(100), wait: waitParam }).strict();
const sourceDir = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^\/[^\u0000]*$/, 'must be an absolute path')
  .optional()
  .meta({
    description:
      'Read the source files from this directory of the ingesting node (laid out like the SOURCE_DIR tree) instead of the configured source: `lists import`.',
  });

/** An operator list by slug, or 404. */
function operatorList(deps: ListsDeps, slug: string): ListDefinition {
  const def = deps.catalog.get(slug);
  if (!def || def.source.type !== 'upload') throw notFound(`Operator list not found: ${slug}`);
  return def;
}

/** A customer's own private list by slug, or 404 (another customer's list is as unknown as a missing one). */
function privateList(deps: ListsDeps, caller: Caller, slug: string): ListDefinition {
  const def = deps.catalog.ownedBy(customerOf(caller)).find((d) => d.slug === slug);
  if (!def) throw notFound(`List not found: ${slug}`);
  return def;
}

const UPLOAD_DESCRIPTION =
  'Replaces the list’s content with the rows of the body, streamed: ' +
  Object.entries(UPLOAD_CONTENT_TYPES)
    .map(([type, what]) => `\`${type}\`: ${what}`)
    .join('; ') +
  '. Each row is checked with the normalizer of its entity type and the validator screening applies to its kind; the first bad row rejects the whole upload (422 naming its line) and the previous version stays. ' +
  'The upload becomes a new version: diffed (listed, delisted, relisted), recorded in the changes feed and the history, and delivered to webhooks of monitored values. ' +
  'A body over LIST_UPLOAD_MAX_BYTES is a 413; another upload of the same list still running a 409. Over /trpc an upload is refused (400): it streams over REST only.';

/** What an upload route needs: run the upload for a caller and answer like an endpoint. */
export type UploadHandler = (
  caller: Caller,
  input: { slug: string; wait: number },
  format: UploadFormat,
  body: AsyncIterable<Uint8Array>,
) => Promise<{ status: number; body: unknown; headers: Record<string, string> }>;

/** The upload routes' work (src/server/upload-route.ts): checks the list is the caller's to fill, then receives, runs and answers. */
export function uploadHandler(deps: ListsDeps, access: 'admin' | 'account'): UploadHandler {
  const jobsPath = access === 'admin' ? '/admin/lists/jobs' : '/account/lists/jobs';
  return async (caller, input, format, body) => {
    const def = access === 'admin' ? operatorList(deps, input.slug) : privateList(deps, caller, input.slug);
    const job = await deps.operations.upload(
      def.slug,
      def.owner,
      def.entity_types ?? [],
      format,
      body,
      input.wait * 1000,
    );
    const answer = jobAnswer(job, jobsPath);
    return answer instanceof Accepted
      ? { status: 202, body: answer.body, headers: answer.headers }
      : { status: 200, body: answer, headers: {} };
  };
}

/** An upload endpoint: its REST route streams the body (src/server/upload-route.ts); over tRPC it is refused. */
function uploadEndpoint(access: 'admin' | 'account', summary: string, description: string): AnyEndpoint {
  return endpoint({
    id: `${access}.lists.upload`,
    accepted: true,
    method: 'POST',
    path: `/${access}/lists/{slug}/upload`,
    tags: [access],
    summary,
    description,
    access,
    errors: [404, 409, 413, 415],
    nativeRoute: true,
    rawBody: UPLOAD_CONTENT_TYPES,
    input: SlugWait,
    output: ListJob,
    handler: () => {
      throw badRequest('an upload streams its rows as the request body: POST them to the REST route');
    },
  });
}

export function adminListEndpoints(deps: ListsDeps): AnyEndpoint[] {
  const TAGS = ['admin'];
  const JOBS = '/admin/lists/jobs';
  return [
    endpoint({
      id: 'admin.lists.list',
      method: 'GET',
      path: '/admin/lists',
      tags: TAGS,
      summary: 'The operator’s uploaded lists',
      access: 'admin',
      input: z.object({}).strict(),
      output: z.array(UploadedList),
      handler: () =>
        deps.catalog
          .publicDefinitions()
          .filter((d) => d.source.type === 'upload')
          .map((d) => listView(d, deps)),
    }),
    endpoint({
      id: 'admin.lists.create',
      accepted: true,
      method: 'POST',
      path: '/admin/lists',
      tags: TAGS,
      summary: 'Create an operator list (empty; fill it by upload)',
      description:
        'An operator list is public: it appears on /screen/lists, /stats, /search, /delisted and /changes like the registry’s lists, and is screened by default unless `in_default_set` is false.',
      access: 'admin',
      errors: [409],
      input: OperatorListCreateInput.extend({ wait: waitParam }),
      output: ListJob,
      handler: async (input) => {
        if (RESERVED_SLUGS.has(input.slug)) throw conflict(`the slug ${input.slug} is reserved`);
        const def: NewList = {
          slug: input.slug,
          display_name: input.display_name,
          list_type: input.list_type,
          entity_types: input.entity_types,
          in_default_set: input.in_default_set,
        };
        return jobAnswer(
          await deps.operations.submit(
            'create',
            input.slug,
            undefined,
            def as unknown as Record<string, unknown>,
            waitMs(input),
          ),
          JOBS,
        );
      },
    }),
    uploadEndpoint('admin', 'Replace an operator list’s content by upload', UPLOAD_DESCRIPTION),
    endpoint({
      id: 'admin.lists.delete',
      accepted: true,
      method: 'DELETE',
      path: '/admin/lists/{slug}',
      tags: TAGS,
      summary: 'Delete an operator list',
      description:
        'Its last version delists every value (monitors learn of it through their webhooks); the history stays in the changes feed and for screening as of a past date.',
      access: 'admin',
      errors: [404, 409],
      input: SlugWait,
      output: ListJob,
      handler: async (input) => {
        operatorList(deps, input.slug);
        return jobAnswer(await deps.operations.submit('delete', input.slug, undefined, {}, waitMs(input)), JOBS);
      },
    }),
    endpoint({
      id: 'admin.lists.refresh',
      accepted: true,
      method: 'POST',
      path: '/admin/lists/{slug}/refresh',
      tags: TAGS,
      summary: 'Check a list at its source now',
      description:
        'Runs on the ingesting node under its leadership. The result is `unchanged`, `new_version` with the counts of listed, delisted and relisted values, or `failed` with the source’s error (the previous version stays). ' +
        'A refresh of a list that is already running is a 409; an uploaded list has no source to check (400).',
      access: 'admin',
      errors: [400, 404, 409],
      input: SlugWait.extend({ source_dir: sourceDir }),
      output: ListJob,
      handler: async (input) => {
        const def = deps.catalog.get(input.slug);
        if (!def || !def.enabled) throw notFound(`List not found: ${input.slug}`);
        if (def.source.type === 'upload')
          throw badRequest(`list ${input.slug} is filled by upload: it has no source to check`);
        return jobAnswer(
          await deps.operations.submit(
            'refresh',
            input.slug,
            undefined,
            input.source_dir ? { source_dir: input.source_dir } : {},
            waitMs(input),
          ),
          JOBS,
        );
      },
    }),
    endpoint({
      id: 'admin.lists.refreshAll',
      accepted: true,
      method: 'POST',
      path: '/admin/lists/refresh',
      tags: TAGS,
      summary: 'Check every list with a source now',
      access: 'admin',
      errors: [409],
      input: z.object({ wait: waitParam, source_dir: sourceDir }).strict(),
      output: ListJob,
      handler: async (input) =>
        jobAnswer(
          await deps.operations.submit(
            'refresh',
            ALL_LISTS,
            undefined,
            input.source_dir ? { source_dir: input.source_dir } : {},
            waitMs(input),
          ),
          JOBS,
        ),
    }),
    endpoint({
      id: 'admin.lists.job',
      method: 'GET',
      path: '/admin/lists/jobs/{job_id}',
      tags: TAGS,
      summary: 'A list operation (job) and its outcome',
      access: 'admin',
      errors: [404],
      input: JobIdInput,
      output: ListJob,
      handler: async (input) => {
        const job = await deps.jobs.get(input.job_id);
        if (!job) throw notFound(`job ${input.job_id} not found`);
        return jobView(job);
      },
    }),
  ];
}

export function accountListEndpoints(deps: ListsDeps): AnyEndpoint[] {
  const TAGS = ['account'];
  const JOBS = '/account/lists/jobs';
  return [
    endpoint({
      id: 'account.lists.list',
      method: 'GET',
      path: '/account/lists',
      tags: TAGS,
      summary: 'The customer’s private lists',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(UploadedList),
      handler: (_input, ctx) => deps.catalog.ownedBy(customerOf(ctx.caller)).map((d) => listView(d, deps)),
    }),
    endpoint({
      id: 'account.lists.create',
      accepted: true,
      method: 'POST',
      path: '/account/lists',
      tags: TAGS,
      summary: 'Create a private list (empty; fill it by upload)',
      description:
        'A private list is screened for this customer only: it joins their default screening set (unless `in_default_set` is false) and may be named in their `lists=`; ' +
        'for anyone else it does not exist, and it never appears on a public endpoint. Its slug is `c<customer id>.<name>`. The number of lists per customer is limited (403 beyond).',
      access: 'account',
      errors: [403, 409],
      input: PrivateListCreateInput.extend({ wait: waitParam }),
      output: ListJob,
      handler: async (input, ctx) => {
        const owner = customerOf(ctx.caller);
        const slug = `c${owner}.${input.name}`;
        const def: NewList = {
          slug,
          display_name: input.display_name,
          list_type: input.list_type,
          entity_types: input.entity_types,
          in_default_set: input.in_default_set,
          owner,
        };
        return jobAnswer(
          await deps.operations.submit('create', slug, owner, def as unknown as Record<string, unknown>, waitMs(input)),
          JOBS,
        );
      },
    }),
    uploadEndpoint(
      'account',
      'Replace a private list’s content by upload',
      `${UPLOAD_DESCRIPTION} The rows across a customer’s private lists are limited (413 beyond). Webhook events of a private list go to its owner’s monitored values only.`,
    ),
    endpoint({
      id: 'account.lists.delete',
      accepted: true,
      method: 'DELETE',
      path: '/account/lists/{slug}',
      tags: TAGS,
      summary: 'Delete a private list',
      description:
        'Its last version delists every value (your monitors learn of it). Creating it again with the same name brings it back with its history.',
      access: 'account',
      errors: [404, 409],
      input: SlugWait,
      output: ListJob,
      handler: async (input, ctx) => {
        privateList(deps, ctx.caller, input.slug);
        return jobAnswer(
          await deps.operations.submit('delete', input.slug, customerOf(ctx.caller), {}, waitMs(input)),
          JOBS,
        );
      },
    }),
    endpoint({
      id: 'account.lists.entities',
      method: 'GET',
      path: '/account/lists/{slug}/entities',
      tags: TAGS,
      summary: 'The entities of a private list (JSON or CSV)',
      access: 'account',
      errors: [404],
      input: EntitiesInput,
      output: ListEntitiesResponse,
      handler: (input, ctx) => listEntities(deps, privateList(deps, ctx.caller, input.slug), input),
    }),
    endpoint({
      id: 'account.lists.changes',
      method: 'GET',
      path: '/account/lists/{slug}/changes',
      tags: TAGS,
      summary: 'The changes feed of a private list',
      description:
        'As `/changes`, for one of the customer’s private lists; a deleted list’s history stays readable here (its last version delisted every value).',
      access: 'account',
      errors: [404],
      input: z.object({ slug: z.string().min(1).max(100), ...changesFilter }),
      output: ChangesPage,
      handler: (input, ctx) => {
        const owner = customerOf(ctx.caller);
        const def = deps.catalog.definition(input.slug);
        if (!def || def.owner !== owner) throw notFound(`List not found: ${input.slug}`);
        return changesPage(deps, owner, [def.slug], input);
      },
    }),
    endpoint({
      id: 'account.lists.job',
      method: 'GET',
      path: '/account/lists/jobs/{job_id}',
      tags: TAGS,
      summary: 'An operation on one of the customer’s lists (job) and its outcome',
      access: 'account',
      errors: [404],
      input: JobIdInput,
      output: ListJob,
      handler: async (input, ctx) => {
        const job = await deps.jobs.get(input.job_id);
        if (!job || job.owner !== customerOf(ctx.caller)) throw notFound(`job ${input.job_id} not found`);
        return jobView(job);
      },
    }),
  ];
}
