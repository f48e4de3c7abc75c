import { z } from 'zod';
import { DateRangeInput } from './billing.js';
import { MATCH_KINDS } from '../../../engine/model.js';
import { externalIdParam } from '../../subjects/model.js';
import { ALERT_SORTS, SORT_ORDERS } from '../../alerts/cursor.js';
import { ALERT_STATUSES, COMMENT_REQUIRED, DECISION_STATUSES, EVENT_KINDS } from '../../alerts/store.js';

/** Schemas of the alerts API (`/account/alerts`): docs/alerts.md. */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.', examples: ['2025-06-01T08:00:00.000Z'] });
const id = z.number().int().min(1);

const AlertStatus = z.enum(ALERT_STATUSES).meta({
  id: 'AlertStatus',
  description:
    '`confirmed` is a true match; `false_positive` a match that is not the listed party; `delisted` (the system’s) an open alert whose listed entity left its list, for a person to close.',
});

const Alert = z
  .object({
    id,
    version: z.number().int().min(1).meta({ description: 'Name it in a decision; it rises with each decision.' }),
    status: AlertStatus,
    screened_value: z.string().meta({ description: 'The value screened (normalized as the audit trail stores it).' }),
    matched_value: z.string().meta({ description: 'The listed value it matched (a name match: the best name).' }),
    listed_party: z.string().meta({
      description: 'What the alert is about: the listed party (`metadata.id` of a name match), else the listed value.',
    }),
    score: z.number().min(0).max(1).meta({ description: 'The latest match score; 1 for an exact match.' }),
    subject: z
      .object({ external_id: z.string(), type: z.string(), names: z.array(z.string()) })
      .strict()
      .nullable()
      .meta({ description: 'The monitored subject the match came from; null for a screening.' }),
    list: z.string().meta({ description: 'List slug.' }),
    list_type: z.string(),
    match: z.string().meta({ description: 'How the latest occurrence matched (`exact`, `fuzzy`, …).' }),
    occurrences: z.number().int().min(1).meta({ description: 'Metered screenings that produced this match.' }),
    first_seen: dateTime,
    last_seen: dateTime,
    decided_at: dateTime.nullable().meta({ description: 'Time of the latest decision; null while none.' }),
    pending: z
      .object({
        status: AlertStatus,
        comment: z.string().nullable(),
        token_id: z.number().int().meta({ description: 'The proposing token: another token must approve.' }),
        token_label: z.string().nullable(),
        at: dateTime,
      })
      .strict()
      .nullable()
      .meta({
        description:
          'A four-eyes proposal: it takes effect when a different token posts the same status on the current version.',
      }),
  })
  .strict()
  .meta({ id: 'Alert' });

const PartyChanges = z
  .record(z.string(), z.object({ from: z.array(z.string()), to: z.array(z.string()) }).strict())
  .meta({
    id: 'AlertPartyChanges',
    description:
      'The fields of the listed party’s record (`name`, `aliases`, `birth_dates`, `identifiers`, `programs`) that changed since the decision: as decided and as the later list version has them.',
  });

const AlertEvent = z
  .object({
    kind: z.enum(EVENT_KINDS).meta({
      description:
        '`decision`; `proposal` and `approval` under the four-eyes rule; `reopened` (a false positive whose listed party changed, a closed alert matched again) and `party_changed` (a confirmed alert’s party changed) are the system’s; `comment`.',
    }),
    status: AlertStatus.nullable().meta({
      description: 'The status set (a proposal: proposed; party_changed: unchanged); null for a comment.',
    }),
    comment: z
      .string()
      .nullable()
      .meta({ description: 'The analyst’s comment; the system’s events say what changed.' }),
    on_version: z.number().int().nullable().meta({ description: 'The version the event was made on.' }),
    token_id: z.number().int().meta({ description: 'The analyst’s token; 0 for the system.' }),
    token_label: z
      .string()
      .nullable()
      .meta({ description: 'The token’s name when the event was recorded; `system` for the system.' }),
    at: dateTime,
    changes: PartyChanges.nullable().meta({ description: 'What changed in the listed party; null for other events.' }),
  })
  .strict()
  .meta({ id: 'AlertEvent' });

export const AlertDetail = Alert.extend({
  evidence: z
    .object({
      match: z.string(),
      list_version: z.string().meta({ description: 'The list version of the latest occurrence.' }),
      endpoint: z.string().meta({ description: 'The operation of the latest occurrence.' }),
      request_id: z.string().meta({ description: 'Its request id, to find it in the audit trail.' }),
      answer: z.record(z.string(), z.unknown()).meta({
        description: 'The match as the screening answered it (value, list, metadata, source_url), kept whole.',
      }),
    })
    .strict(),
  history: z
    .array(AlertEvent)
    .meta({ description: 'Decisions, comments and system events, oldest first; never edited.' }),
})
  .strict()
  .meta({ id: 'AlertDetail' });

const score = (bound: string) =>
  z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: `The latest score is at ${bound} this (0 to 1; an exact match scores 1).` });

/** What narrows the list and the export alike. */
const filterFields = {
  status: AlertStatus.optional(),
  list: z.string().min(1).max(200).optional().meta({ description: 'List slug.' }),
  kind: z.enum(MATCH_KINDS).optional().meta({ description: 'Match kind of the latest occurrence.' }),
  min_score: score('least'),
  max_score: score('most'),
  since: z.iso.datetime().optional().meta({ description: 'Seen last at or after this time.' }),
  until: z.iso.datetime().optional().meta({ description: 'Seen last before this time.' }),
  text: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Part of the screened or the matched value (case-insensitive; `%` and `_` are literal).' }),
  subject: externalIdParam.optional().meta({ description: 'Only the alerts of the subject with this external id.' }),
};

function rangesInOrder(
  f: { min_score?: number; max_score?: number; since?: string; until?: string },
  ctx: z.RefinementCtx,
) {
  if (f.min_score !== undefined && f.max_score !== undefined && f.min_score > f.max_score)
    ctx.addIssue({ code: 'custom', path: ['min_score'], message: 'min_score must not be above max_score' });
  if (f.since !== undefined && f.until !== undefined && Date.parse(f.since) >= Date.parse(f.until))
    ctx.addIssue({ code: 'custom', path: ['since'], message: 'since must be before until' });
}

export const AlertListInput = z
  .object({
    ...filterFields,
    sort: z.enum(ALERT_SORTS).default('time').meta({
      description: '`time`: by `last_seen`; `score`: by the latest score, then `last_seen`. The id breaks ties.',
    }),
    order: z.enum(SORT_ORDERS).default('desc').meta({ description: '`desc`: newest or highest first.' }),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(200).optional().meta({
      description: 'The `next_cursor` of the previous page, asked with the same `sort` and `order` (else 422).',
    }),
  })
  .strict()
  .superRefine(rangesInOrder);

/** An export's alerts at most. */
const ALERT_EXPORT_MAX = 100_000;

export const AlertExportInput = z
  .object({
    ...filterFields,
    format: z.enum(['csv', 'json']).default('csv').meta({
      description: '`csv`: one row per alert, its history in one cell; `json`: an array of AlertDetail.',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(ALERT_EXPORT_MAX)
      .default(ALERT_EXPORT_MAX)
      .meta({ description: 'Alerts at most, in id order; continue with `after_id` = the last id.' }),
    after_id: z.number().int().min(0).default(0).meta({ description: 'Only alerts with a higher id.' }),
  })
  .strict()
  .superRefine(rangesInOrder);

export const AlertExportText = z.string().meta({
  description:
    '`format=csv`: text/csv with a header line (docs/alerts.md lists the columns); `format=json`: a JSON array of AlertDetail.',
});

export const AlertPage = z
  .object({
    items: z.array(Alert).meta({ description: 'In the requested order.' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass it as `cursor` for the next page; null on the last page.' }),
  })
  .strict()
  .meta({ id: 'AlertPage' });

export const AlertIdInput = z.object({ alert_id: id }).strict();

const decisionFields = {
  status: z.enum(DECISION_STATUSES).meta({ description: 'A delisted alert can only be closed.' }),
  comment: z
    .string()
    .min(1)
    .max(4000)
    .optional()
    .meta({ description: 'Why; required for `confirmed` and `false_positive`.' }),
  version: z.number().int().min(1).meta({ description: 'The alert’s `version` the decision was made on.' }),
};

function commentRequired(d: { status: string; comment?: string }, ctx: z.RefinementCtx, path: (string | number)[]) {
  if (d.comment === undefined && (COMMENT_REQUIRED as readonly string[]).includes(d.status))
    ctx.addIssue({ code: 'custom', path: [...path, 'comment'], message: `a ${d.status} decision needs a comment` });
}

export const AlertDecisionInput = z
  .object({ alert_id: id, ...decisionFields })
  .strict()
  .superRefine((d, ctx) => commentRequired(d, ctx, []));

export const AlertCommentInput = z.object({ alert_id: id, text: z.string().min(1).max(4000) }).strict();

export const AlertDecisionsInput = z
  .object({
    decisions: z
      .array(z.object({ id, ...decisionFields }).strict())
      .min(1)
      .max(1000)
      .superRefine((ds, ctx) => {
        ds.forEach((d, i) => commentRequired(d, ctx, [i]));
        const seen = new Set<number>();
        ds.forEach((d, i) => {
          if (seen.has(d.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'alert named twice' });
          seen.add(d.id);
        });
      }),
  })
  .strict();

export const AlertDecisionsResult = z
  .object({ alerts: z.array(AlertDetail).meta({ description: 'The decided alerts, by id.' }) })
  .strict()
  .meta({ id: 'AlertDecisionsResult' });

export const AlertCounts = z
  .array(
    z
      .object({ customer_id: id, status: AlertStatus, count: z.number().int().min(1) })
      .strict()
      .meta({ id: 'AlertCount' }),
  )
  .meta({ description: 'One row per customer and status that has alerts, by customer then status.' });

export const AlertDecisionTrailInput = DateRangeInput.extend({
  alert_id: id.optional().meta({ description: 'Only the decisions on this alert.' }),
  limit: z.number().int().min(1).max(1000).default(100),
}).strict();

export const AlertDecisionTrail = z
  .object({
    items: z
      .array(
        z
          .object({
            time: dateTime,
            alert_id: z.number().int().min(0).meta({ description: '0 for a change of the four-eyes rule.' }),
            event: z.enum([...EVENT_KINDS.filter((k) => k !== 'comment'), 'four_eyes_on', 'four_eyes_off']).meta({
              description:
                'An alert’s event (as in its history), or `four_eyes_on` / `four_eyes_off`: the customer’s four-eyes rule turned on or off by the token named.',
            }),
            status: AlertStatus.nullable().meta({
              description: 'The alert’s status set; null for the four-eyes rule.',
            }),
            on_version: z.number().int().meta({ description: 'The alert’s version the event was made on.' }),
            version: z.number().int().meta({ description: 'The alert’s version after it.' }),
            token_id: z.number().int().meta({ description: 'The analyst’s token; 0 for the system.' }),
            token_label: z.string().meta({ description: 'The token’s name then; `system` for the system.' }),
            comment: z.string().nullable(),
            screened_value: z.string(),
            list: z.string(),
            listed_party: z.string(),
            list_version: z.string().meta({ description: 'The list version of the evidence decided on.' }),
            request_id: z.string().meta({ description: 'The request of that evidence, in the audit trail.' }),
            evidence: z
              .record(z.string(), z.unknown())
              .meta({ description: 'The match decided on, as the screening answered it.' }),
            changes: PartyChanges.nullable(),
          })
          .strict()
          .meta({ id: 'AuditedAlertDecision' }),
      )
      .meta({ description: 'Oldest first.' }),
    truncated: z.boolean().meta({ description: 'More decisions in the range: narrow it or raise `limit`.' }),
  })
  .strict()
  .meta({ id: 'AlertDecisionTrail' });
