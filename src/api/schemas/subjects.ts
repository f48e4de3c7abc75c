import { z } from 'zod';
import { externalIdParam, SUBJECT_TYPES, SubjectInput } from '../../subjects/model.js';

/** Schemas of the subjects API (`/account/subjects`): docs/monitoring.md. */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.', examples: ['2026-11-28T08:00:00.000Z'] });

export const Subject = SubjectInput.extend({
  external_id: externalIdParam,
  created_at: dateTime,
  updated_at: dateTime,
  screened_at: dateTime.nullable().meta({ description: 'When its fields were last screened; null before the first.' }),
  open_alerts: z.number().int().min(0).meta({ description: 'Its alerts in `open` or `escalated`.' }),
})
  .strict()
  .meta({ id: 'Subject' });

export const SubjectPutInput = SubjectInput.extend({ external_id: externalIdParam }).strict();

export const SubjectPutResponse = z
  .object({
    subject: Subject,
    created: z.boolean().meta({ description: 'True when the external id was new.' }),
    screened: z.boolean().meta({
      description: 'True when its screened fields were new or changed: it was screened now, for one credit.',
    }),
    alerts: z
      .array(z.number().int().min(1))
      .meta({ description: 'Ids of the alerts this screening opened or updated.' }),
  })
  .strict()
  .meta({ id: 'SubjectPutResponse' });

export const SubjectListInput = z
  .object({
    q: z.string().trim().min(1).max(200).optional().meta({ description: 'Text in a name or the external id.' }),
    type: z.enum(SUBJECT_TYPES).optional(),
    country: z.string().min(2).max(60).optional().meta({ description: 'Subjects with this country.' }),
    has_alerts: z.boolean().optional().meta({ description: 'Only subjects with (or without) open alerts.' }),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(200).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
  })
  .strict();

export const SubjectList = z
  .object({
    subjects: z.array(Subject),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass it as `cursor` for the next page; null on the last.' }),
  })
  .strict()
  .meta({ id: 'SubjectList' });

export const SubjectJob = z
  .object({
    id: z.number().int().min(1),
    kind: z.enum(['import', 'rescreen']),
    state: z.enum(['running', 'done', 'failed']),
    rows_read: z.number().int().min(0).meta({ description: 'Import: rows read so far. Re-screen: subjects screened.' }),
    total: z.number().int().min(0).nullable().meta({ description: 'Re-screen: the book’s size. Import: null.' }),
    taken: z.number().int().min(0).meta({ description: 'Rows stored (new or changed subjects, and unchanged ones).' }),
    refused: z.number().int().min(0),
    refused_rows: z
      .array(z.object({ line: z.number().int().min(1), reason: z.string() }).strict())
      .meta({ description: 'Each refused row’s line (1 is the first line of the body) and reason; the first 1,000.' }),
    alerts_opened: z.number().int().min(0),
    error: z.string().nullable().meta({ description: 'Why a `failed` job stopped.' }),
    created_at: dateTime,
    finished_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'SubjectJob' });
