import { z } from 'zod';
import { ENTITY_TYPES, LIST_TYPES } from '../../../engine/model.js';
import { ListInfo } from './screen.js';

/**
 * Schemas of the list operations beyond SPEC.md: the changes feed, refresh on demand, uploaded
 * (operator and private) lists and their jobs.
 */

const dateTime = z.iso.datetime({ offset: true });
const metadata = z.record(z.string(), z.unknown()).meta({ description: 'Free-form attributes of the list entry.' });
const listType = z.enum(LIST_TYPES).meta({ description: '`sanctions`, `crime` or `risk`.' });
const entityType = z.enum(ENTITY_TYPES);

const CHANGE_KINDS = ['listed', 'delisted', 'relisted'] as const;

const ListChange = z
  .object({
    change_id: z.string().meta({
      description: 'Deterministic id of the change (`chg_` + 32 hex digits); webhook events of the change carry it.',
    }),
    kind: z.enum(CHANGE_KINDS),
    list: z.string(),
    list_name: z.string(),
    list_type: listType,
    list_version: z.string().meta({ description: 'The version that made the change.' }),
    entity_type: entityType,
    value: z.string().meta({ description: 'The value as published on the list.' }),
    metadata,
    source_url: z.string().nullable(),
    at: dateTime.meta({ description: 'When the version was ingested.' }),
  })
  .strict()
  .meta({ id: 'ListChange' });

export const ChangesPage = z
  .object({
    changes: z.array(ListChange),
    next_cursor: z.string().meta({
      description: 'Pass as `cursor` to read on from here: also when the page is empty, to poll for new changes.',
    }),
    has_more: z.boolean().meta({ description: 'More changes are already there after this page.' }),
  })
  .strict()
  .meta({ id: 'ChangesPage' });

/** A comma-separated list of allowed words (an unknown one is a 422 naming it). */
const csvOf = (allowed: readonly string[], what: string) =>
  z
    .string()
    .max(500)
    .refine(
      (s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
          .every((x) => allowed.includes(x)),
      `must be comma-separated ${what}: ${allowed.join(', ')}`,
    )
    .optional();

export const changesFilter = {
  kinds: csvOf(CHANGE_KINDS, 'change kinds').meta({
    description: `Comma-separated change kinds (${CHANGE_KINDS.join(', ')}); default all.`,
  }),
  entity_types: csvOf(ENTITY_TYPES, 'entity types').meta({
    description: `Comma-separated entity types (${ENTITY_TYPES.join(', ')}); default all.`,
  }),
  since: dateTime.optional().meta({ description: 'Only changes ingested at or after this date-time.' }),
  cursor: z
    .string()
    .max(100)
    .optional()
    .meta({ description: '`next_cursor` of a previous page: the changes after it.' }),
  limit: z.number().int().min(1).max(1000).default(100),
  format: z
    .string()
    .regex(/^(json|csv)$/)
    .default('json')
    .meta({ description: '`csv`: the page as CSV, its cursor in the `X-Next-Cursor` header.' }),
};

/** Slug of an operator list: lower-case letters, digits and underscores, starting with a letter. */
export const OPERATOR_SLUG = /^[a-z][a-z0-9_]{2,47}$/;
/** Slugs an operator list may not take (they name routes under /admin/lists). */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set(['jobs', 'refresh']);
/** Name of a private list within its customer's namespace (the slug is `c<customer>.<name>`). */
const PRIVATE_NAME = /^[a-z][a-z0-9_]{0,39}$/;

const listFields = {
  display_name: z.string().trim().min(1).max(200),
  list_type: listType,
  entity_types: z
    .array(entityType)
    .min(1)
    .max(ENTITY_TYPES.length)
    .refine((a) => new Set(a).size === a.length, 'must not repeat an entity type')
    .meta({ description: 'Entity types an upload may hold.' }),
  in_default_set: z
    .boolean()
    .default(true)
    .meta({ description: 'Screened when a request names no lists (default true).' }),
};

export const OperatorListCreateInput = z
  .object({
    slug: z
      .string()
      .regex(OPERATOR_SLUG)
      .meta({ description: 'Slug: 3-48 lower-case letters, digits or underscores, starting with a letter.' }),
    ...listFields,
  })
  .strict();

export const PrivateListCreateInput = z
  .object({
    name: z.string().regex(PRIVATE_NAME).meta({
      description:
        'Name in your namespace (1-40 lower-case letters, digits or underscores): the slug is `c<customer id>.<name>`.',
    }),
    ...listFields,
  })
  .strict();

export const UploadedList = ListInfo.omit({ enabled: true })
  .extend({
    entity_types: z.array(entityType),
    in_default_set: z.boolean(),
    version: z.string().nullable().meta({ description: 'The version served.' }),
    last_updated: dateTime.nullable(),
    created_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'UploadedList' });

const RefreshResult = z
  .object({
    list: z.string(),
    result: z.enum(['new_version', 'unchanged', 'failed', 'not_configured']),
    version: z.string().nullable().meta({ description: 'The version served after the operation.' }),
    listed: z.number().int(),
    delisted: z.number().int(),
    relisted: z.number().int(),
    total: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Active entities of the version served (null when unknown after a failure).' }),
    duplicates: z.number().int().nullable().meta({
      description:
        'An upload: its rows that repeated an earlier row of the same entity type and value (as normalized), merged into that row (the first is kept). Null for other operations.',
    }),
    error: z.string().nullable(),
  })
  .strict()
  .meta({ id: 'RefreshResult' });

const JOB_KINDS = ['refresh', 'upload', 'create', 'delete'] as const;
const JOB_STATUSES = ['receiving', 'queued', 'running', 'done', 'failed'] as const;

export const ListJob = z
  .object({
    id: z.number().int(),
    kind: z.enum(JOB_KINDS),
    list: z.string().nullable().meta({ description: 'The list, or null for a refresh of every list.' }),
    status: z.enum(JOB_STATUSES),
    results: z
      .array(RefreshResult)
      .meta({ description: 'One per list once done (a refresh of every list has several).' }),
    error: z.string().nullable(),
    created_at: dateTime,
    finished_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'ListJob' });

export const waitParam = z
  .number()
  .int()
  .min(0)
  .max(300)
  .default(60)
  .meta({ description: 'Seconds to wait for the outcome (200) before answering 202 with the job to poll.' });

export const UPLOAD_CONTENT_TYPES: Record<string, string> = {
  'text/csv': 'CSV with a header line `entity_type,value,metadata` (metadata as JSON text; may be empty).',
  'application/json': 'A JSON array of `{"entity_type", "value", "metadata"}` objects.',
  'application/x-ndjson': 'One `{"entity_type", "value", "metadata"}` object per line.',
};
