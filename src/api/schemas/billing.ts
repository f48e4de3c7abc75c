import { z } from 'zod';

/** Schemas of the management API: `/account/...` (a customer's token) and `/admin/...` (ADMIN_KEY). */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.', examples: ['2025-06-01T08:00:00.000Z'] });
const id = z.number().int().min(1);

export const ApiToken = z
  .object({
    id,
    name: z.string().nullable().meta({ description: 'Label given at creation.' }),
    prefix: z.string().meta({ description: 'First 8 characters of the token (`sk_` and 5 more), to recognise it.' }),
    created_at: dateTime,
    last_used_at: dateTime.nullable().meta({ description: 'Last use, written within a few seconds.' }),
    revoked_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'ApiToken' });

export const CreatedApiToken = ApiToken.extend({
  token: z.string().meta({
    description: 'The token, shown only in this answer: `sk_` and 32 base62 characters. Send it as `Authorization: Bearer <token>`.',
    examples: ['sk_4fQ9dJ0cXk2LwP7sV1mN8bR3tY6uZ5aE'],
  }),
})
  .strict()
  .meta({ id: 'CreatedApiToken' });

export const TokenCreateInput = z
  .object({ name: z.string().min(1).max(100).optional().meta({ description: 'A label for the token.' }) })
  .strict();

export const TokenIdInput = z.object({ token_id: id }).strict();

const QuotaStatus = z
  .object({
    month: z.string().meta({ description: 'Calendar month in UTC, `YYYY-MM`.' }),
    monthly_quota: z.number().int(),
    used: z.number().int().meta({ description: 'Credits consumed this month (a few seconds behind).' }),
    remaining: z.number().int(),
  })
  .strict()
  .meta({ id: 'QuotaStatus' });

export const Plan = z
  .object({ id, name: z.string(), monthly_quota: z.number().int().min(0), created_at: dateTime })
  .strict()
  .meta({ id: 'Plan' });

export const PlanCreateInput = z
  .object({ name: z.string().min(1).max(100), monthly_quota: z.number().int().min(0).max(1_000_000_000) })
  .strict();

export const PlanUpdateInput = z.object({ plan_id: id, monthly_quota: z.number().int().min(0).max(1_000_000_000) }).strict();

export const Customer = z
  .object({
    id,
    name: z.string(),
    plan_id: id.nullable(),
    plan: z.string().nullable().meta({ description: 'Name of the plan, if any.' }),
    monthly_quota: z.number().int().meta({ description: 'The quota in force: the customer’s own, else the plan’s.' }),
    quota_override: z.number().int().nullable().meta({ description: 'The customer’s own quota, overriding the plan’s.' }),
    created_at: dateTime,
  })
  .strict()
  .meta({ id: 'Customer' });

export const CustomerDetail = Customer.extend({ quota: QuotaStatus }).strict().meta({ id: 'CustomerDetail' });

export const CustomerCreateInput = z
  .object({
    name: z.string().min(1).max(200),
    plan_id: id.optional(),
    monthly_quota: z.number().int().min(0).max(1_000_000_000).optional().meta({
      description: 'Own monthly quota; without it the plan’s, and without a plan the default (DEFAULT_MONTHLY_QUOTA).',
    }),
  })
  .strict();

export const CustomerUpdateInput = z
  .object({
    customer_id: id,
    name: z.string().min(1).max(200).optional(),
    plan_id: id.nullable().optional(),
    monthly_quota: z.number().int().min(0).max(1_000_000_000).nullable().optional().meta({ description: 'null returns to the plan’s quota.' }),
  })
  .strict();

export const CustomerIdInput = z.object({ customer_id: id }).strict();

export const PageInput = z
  .object({ limit: z.number().int().min(1).max(1000).default(100), offset: z.number().int().min(0).default(0) })
  .strict();

export const AccountInfo = z
  .object({ customer_id: id, name: z.string(), plan: z.string().nullable(), quota: QuotaStatus })
  .strict()
  .meta({ id: 'AccountInfo' });

const day = z.iso.date();

export const DateRangeInput = z
  .object({
    from: day.meta({ description: 'First day (UTC, inclusive), `YYYY-MM-DD`. Default: 30 days before `to`.' }).optional(),
    to: day.meta({ description: 'Last day (UTC, inclusive), `YYYY-MM-DD`. Default: today.' }).optional(),
  })
  .strict();

export const UsageDay = z
  .object({
    day: z.string().meta({ description: '`YYYY-MM-DD`, UTC.' }),
    endpoint: z.string().meta({ description: 'Procedure id, e.g. `screen.crypto`.' }),
    requests: z.number().int(),
    credits: z.number().int(),
    paid_requests: z.number().int().meta({ description: 'Requests paid with x402 instead of quota.' }),
  })
  .strict()
  .meta({ id: 'UsageDay' });

export const MatchesDay = z
  .object({
    day: z.string(),
    list: z.string().meta({ description: 'List slug.' }),
    matches: z.number().int(),
    requests: z.number().int().meta({ description: 'Distinct requests with a match on this list.' }),
  })
  .strict()
  .meta({ id: 'MatchesDay' });

const AuditFilterInput = DateRangeInput.extend({
  list: z.string().min(1).max(100).optional().meta({ description: 'Only matches on this list (slug).' }),
  value: z.string().min(1).max(1000).optional().meta({ description: 'Only matches whose screened or matched value is exactly this.' }),
}).strict();

export const AuditTrailInput = AuditFilterInput.extend({
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).max(1_000_000).default(0),
}).strict();

export const AuditCsvInput = AuditFilterInput.extend({
  limit: z.number().int().min(1).max(1_000_000).default(100_000),
}).strict();

const AuditEntry = z
  .object({
    time: dateTime,
    request_id: z.string(),
    endpoint: z.string(),
    screened_value: z.string(),
    matched_value: z.string().meta({ description: 'The value as published on the list.' }),
    list: z.string(),
    list_type: z.string(),
    match: z.string(),
    list_version: z.string().meta({ description: 'The version of the list the request was screened against.' }),
    as_of: dateTime.nullable().meta({ description: 'The as-of time of a screening as of a past date, else null.' }),
  })
  .strict()
  .meta({ id: 'AuditEntry' });

export const AuditTrailPage = z
  .object({
    total: z.number().int().meta({ description: 'Entries matching the filter.' }),
    limit: z.number().int(),
    offset: z.number().int(),
    items: z.array(AuditEntry),
  })
  .strict()
  .meta({ id: 'AuditTrailPage' });

export const CsvText = z.string().meta({ description: 'CSV with a header line.' });
