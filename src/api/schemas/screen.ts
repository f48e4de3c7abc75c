import { z } from 'zod';
import { LIST_TYPES, ENTITY_TYPES, MATCH_KINDS } from '../../../engine/model.js';
import { CADENCES, LIST_KINDS } from '../../../loaders/types.js';
import { valueProblem, type ValueValidator } from '../../../engine/normalize/validate.js';
import type { ScreeningKinds } from '../../core/kinds.js';
import { ALERT_STATUSES } from '../../alerts/store.js';
import { birthDateParam, countryParam, NAME_MAX, partyTypeParam } from '../../core/person.js';

/**
 * SPEC.md's resources, field for field: names, types, nullability, required lists. These schemas
 * validate responses, generate the OpenAPI components and type the handlers.
 */

const dateTime = z.iso.datetime({ offset: true });
const metadata = z.record(z.string(), z.unknown()).meta({ description: 'Free-form attributes of the list entry.' });
const listType = z.enum(LIST_TYPES).meta({ description: '`sanctions`, `crime` or `risk`.' });
const entityType = z
  .enum(ENTITY_TYPES)
  .meta({ description: `One of ${ENTITY_TYPES.map((t) => `\`${t}\``).join(', ')}.` });
const matchKind = z.string().meta({
  description:
    'The kind of match: `exact` (equal canonical values), `subdomain` (a subdomain of a listed domain), `domain` (the e-mail address is on a listed e-mail domain), ' +
    '`region` (a country containing, or lying in, a listed sanctioned region), `fuzzy` (similar government ID or name), `regex` (search only).',
  examples: [...MATCH_KINDS],
});

/** `metadata.review` of a match: the customer's decided alert about it (issue #38). */
const MatchReview = z
  .object({
    alert_id: z.number().int(),
    status: z.enum(ALERT_STATUSES),
    decided_at: dateTime,
  })
  .strict()
  .meta({
    id: 'MatchReview',
    description:
      "Customers only: the decision on this match's alert (one per screened value, listed party or entity, and list), absent while nobody has decided it. `false_positive` lets a client clear a known false positive.",
  });

/** What every match's metadata carries besides the list entry's own attributes. */
export const matchMetadataFields = {
  explanation_text: z.string().meta({
    description: 'Why it matched, in one or two plain sentences (list, listed party, what agreed, score).',
  }),
  review: MatchReview.optional(),
};

const matchMetadata = z
  .object(matchMetadataFields)
  .catchall(z.unknown())
  .meta({ description: 'Free-form attributes of the list entry, with `explanation_text` and `review`.' });

export const ScreenMatch = z
  .object({
    list: z.string().meta({ description: 'List slug.' }),
    list_name: z.string(),
    list_type: listType,
    match: matchKind,
    value: z.string().meta({ description: 'The value as published on the list (case as published).' }),
    source_url: z.string().nullable().optional(),
    metadata: matchMetadata,
  })
  .strict()
  .meta({ id: 'ScreenMatch' });

export const ScreenResponse = z
  .object({
    value: z.string().meta({
      description: 'The screened value; for a crypto request with a dotted (ENS) name, the resolved address.',
    }),
    flagged: z.boolean().meta({ description: 'True for any match, including crime and risk lists.' }),
    sanctioned: z
      .boolean()
      .meta({ description: 'True only when a match came from a list whose list_type is sanctions.' }),
    lists_checked: z.array(z.string()).meta({ description: 'Slugs of the lists screened.' }),
    matches: z.array(ScreenMatch),
  })
  .strict()
  .meta({ id: 'ScreenResponse' });

export const ListInfo = z
  .object({
    slug: z.string(),
    display_name: z.string(),
    list_type: listType,
    kind: z.enum(LIST_KINDS),
    cadence: z.enum(CADENCES),
    enabled: z.boolean(),
    total: z.number().int().meta({ description: 'Entity count (active entities).' }),
    last_updated: z.string().nullable(),
  })
  .strict()
  .meta({ id: 'ListInfo' });

const ListedEntity = z
  .object({
    entity_type: entityType,
    value: z.string(),
    metadata,
    source_url: z.string().nullable(),
    listed_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'ListedEntity' });

export const ListEntitiesResponse = z
  .object({
    list: z.string(),
    list_name: z.string(),
    list_type: listType,
    total: z.number().int().meta({ description: 'All active entities of the list, not the page.' }),
    last_updated: dateTime.nullable(),
    entities: z.array(ListedEntity),
  })
  .strict()
  .meta({ id: 'ListEntitiesResponse' });

export const DelistedEntity = z
  .object({
    entity_type: entityType,
    value: z.string(),
    list: z.string(),
    metadata,
    source_url: z.string().nullable(),
    removed_at: dateTime,
  })
  .strict()
  .meta({ id: 'DelistedEntity' });

export const PublicSearchResult = z
  .object({
    entity_type: entityType,
    value: z.string(),
    match: matchKind,
    similarity: z.number().min(0).max(1),
    list: z.string().optional().meta({ description: 'List slug; the primary sanctions list when absent.' }),
    list_name: z.string(),
    list_type: listType.optional().meta({ description: 'Defaults to `sanctions` when absent.' }),
    metadata,
    source_url: z.string().nullable().optional(),
    removed_at: dateTime.nullable().optional().meta({ description: 'Set on delisted rows.' }),
  })
  .strict()
  .meta({ id: 'PublicSearchResult' });

const SourceStats = z
  .object({
    list_type: listType,
    total: z.number().int(),
    by_entity_type: z.record(z.string(), z.number().int()),
    last_updated: z.string().nullable(),
    last_error: z.string().nullable().optional().meta({
      description:
        'The last refresh failure of this source, if its last attempt failed (the last good version is still served).',
    }),
    stale: z.boolean().optional().meta({
      description:
        'The source has been failing for longer than its cadence allows: the version served is older than it should be (or there is none).',
    }),
  })
  .strict()
  .meta({ id: 'SourceStats' });

export const StatsResponse = z
  .object({
    sources: z.record(z.string(), SourceStats),
    countries: z.number().int().meta({ description: 'Number of country and region designations.' }),
    delisted: z.number().int().meta({ description: 'Number of delisted entities.' }),
    last_updated: z.string().nullable(),
    primary_refresh: z
      .object({
        check_minutes_utc: z.array(z.number().int()),
        next_check_at: dateTime,
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'StatsResponse' });

/** Input pieces shared by several endpoints. */
export const listsParam = z
  .string()
  .max(2000)
  .meta({ description: 'Comma-separated list slugs; default: all (screening: the default set); unknown: 400.' })
  .optional();

/** Longest screened value. */
const VALUE_MAX = 512;

/** Adds the kind's validator's verdict (engine/normalize/validate.ts) as a zod issue; lengths are the string schema's business. */
function checkValue(kind: ValueValidator, value: string, ctx: z.RefinementCtx, path?: string[]): void {
  // Lengths count code points, as the string schema does (a UTF-16 length over the maximum may not be).
  if (value.length === 0 || (value.length > VALUE_MAX && [...value].length > VALUE_MAX)) return;
  const problem = valueProblem(kind, value);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, input: value, ...(path ? { path } : {}) });
}

/** A screened value of one kind: refused (422, nothing charged) when it cannot be of that kind. */
export function screenedValue(kind: ValueValidator, description: string) {
  return z
    .string()
    .trim()
    .min(1)
    .max(VALUE_MAX)
    .superRefine((v, ctx) => checkValue(kind, v, ctx))
    .meta({ description });
}

/** An ISO 8601 date-time with a zone, as `as_of` takes it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Screening as of a past date (every screening endpoint and the batch). Checked by a refinement
 * rather than `z.iso.datetime()`, whose JSON schema carries a long pattern: the x402 discovery
 * block of each metered endpoint describes its parameters, and v2 clients echo it in a header
 * that must stay under uWS's 4 KB.
 */
export const asOfParam = z
  .string()
  .refine(
    (s) => ISO_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
    'Input should be a valid datetime (ISO 8601 with a zone)',
  )
  .optional()
  .meta({ format: 'date-time', description: 'Screen as of this time.' });

/** Fields of a batch item that only a name may have. */
const NAME_ONLY = ['birth_date', 'country', 'party_type'] as const;

/** A batch item: a value of a kind of the table, or a name. */
export function batchItem(kinds: ScreeningKinds) {
  return z
    .object({
      type: z.enum([...kinds.names, 'name']),
      value: z.string().min(1).max(VALUE_MAX),
      birth_date: birthDateParam.optional(),
      country: countryParam.optional(),
      party_type: partyTypeParam.optional(),
    })
    .strict()
    .superRefine((item, ctx) => {
      if (item.type === 'name') {
        const length = item.value.trim().length;
        if (length < 2 || length > NAME_MAX)
          ctx.addIssue({ code: 'custom', path: ['value'], message: `a name has 2 to ${NAME_MAX} characters` });
        return;
      }
      for (const field of NAME_ONLY)
        if (item[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'only items of type name take it' });
      checkValue(kinds.named(item.type)!.rule, item.value, ctx, ['value']);
    })
    .meta({
      id: 'BatchItem',
      description:
        'A value to screen; a `name` item may add `birth_date`, `country` and `party_type` (as `/screen/name` takes them).',
    });
}
