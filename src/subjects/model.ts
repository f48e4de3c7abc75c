import { createHash } from 'node:crypto';
import { z } from 'zod';
import { normalizeCountry } from '../../engine/normalize/index.js';
import {
  prepareCrypto,
  prepareEmail,
  prepareId,
  prepareWebsite,
  ValueProblem,
} from '../../engine/normalize/validate.js';
import { birthDateParam, NAME_MAX } from '../core/person.js';

/**
 * A subject of a customer's book (issue #39, docs/monitoring.md): what `PUT /account/subjects/{id}`
 * takes and what each line of an import becomes. One schema for both, so an import refuses a row
 * for the reason a PUT would answer 422 with.
 */

export const SUBJECT_TYPES = ['person', 'organization', 'vessel', 'aircraft', 'unknown'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

/** Values of the other kinds a subject may carry, screened exactly as `/screen/{kind}` would. */
export const SUBJECT_VALUE_KINDS = ['crypto', 'email', 'website'] as const;
export type SubjectValueKind = (typeof SUBJECT_VALUE_KINDS)[number];

const EXTERNAL_ID_MAX = 200;
const NAMES_MAX = 20;
const LIST_MAX = 50;

const PREPARE: Record<SubjectValueKind, (v: string) => unknown> = {
  crypto: prepareCrypto,
  email: prepareEmail,
  website: prepareWebsite,
};

export const externalIdParam = z
  .string()
  .min(1)
  .max(EXTERNAL_ID_MAX)
  .regex(/^[^\x00-\x1f\x7f]+$/, 'control characters are not allowed')
  .meta({ description: 'The customer’s own reference of the subject, unique per customer.', examples: ['C-10042'] });

const subjectName = z.string().trim().min(2).max(NAME_MAX);

const country = z
  .string()
  .transform((s, ctx) => {
    const ref = normalizeCountry(s);
    // A region (Crimea, UA-43) is screened as its country: a person lives in a country.
    if (ref === null) ctx.addIssue({ code: 'custom', message: `not a known country name or ISO code: ${s}` });
    return ref === null ? '' : (ref.parent ?? ref.code);
  })
  .meta({ description: 'Country name or ISO 3166 code; stored as alpha-2.' });

const identifier = z
  .object({
    type: z.string().trim().min(1).max(40).nullable().default(null),
    value: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((v) => !(prepareId(v) instanceof ValueProblem), 'not a government identifier'),
  })
  .strict();

const valuesOf = (kind: SubjectValueKind) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(320)
        .superRefine((v, ctx) => {
          const p = PREPARE[kind](v);
          if (p instanceof ValueProblem) ctx.addIssue({ code: 'custom', message: p.message });
        }),
    )
    .max(LIST_MAX)
    .default([]);

/** The body of `PUT /account/subjects/{external_id}` and an import's row (with `external_id`). */
export const SubjectInput = z
  .object({
    type: z.enum(SUBJECT_TYPES).default('unknown'),
    names: z.array(subjectName).min(1).max(NAMES_MAX).meta({ description: 'The first is the primary name.' }),
    birth_date: birthDateParam.nullable().default(null),
    countries: z.array(country).max(LIST_MAX).default([]),
    identifiers: z.array(identifier).max(LIST_MAX).default([]),
    values: z
      .object({ crypto: valuesOf('crypto'), email: valuesOf('email'), website: valuesOf('website') })
      .strict()
      .default({ crypto: [], email: [], website: [] }),
  })
  .strict()
  .meta({ id: 'SubjectInput' });
export type SubjectInputT = z.output<typeof SubjectInput>;

/** An import's row: a subject with its reference. */
export const SubjectRow = SubjectInput.extend({ external_id: externalIdParam }).strict();
export type SubjectRowT = z.output<typeof SubjectRow>;

/** A subject as it is stored and screened. */
export interface SubjectRecord extends SubjectInputT {
  external_id: string;
}

/** Duplicates dropped, first occurrence kept (names in order: the first is the primary name). */
const unique = (xs: readonly string[]) => [...new Set(xs)];

/** A subject as stored: duplicates gone, countries as alpha-2. */
export function subjectRecord(externalId: string, input: SubjectInputT): SubjectRecord {
  return {
    external_id: externalId,
    type: input.type,
    names: unique(input.names),
    birth_date: input.birth_date,
    countries: unique(input.countries),
    identifiers: input.identifiers,
    values: {
      crypto: unique(input.values.crypto),
      email: unique(input.values.email),
      website: unique(input.values.website),
    },
  };
}

/**
 * The SHA-256 of what screening a subject reads: a PUT or import row that changes none of it is
 * neither screened again nor charged.
 */
export function subjectFingerprint(s: SubjectRecord): string {
  const screened = [s.type, s.names, s.birth_date, s.countries, s.identifiers, s.values];
  return createHash('sha256').update(JSON.stringify(screened)).digest('hex');
}

/** What the text search of the book matches: names and reference, lower-cased. */
export function subjectSearchText(s: SubjectRecord): string {
  return [s.external_id, ...s.names].join(' ').toLowerCase();
}
