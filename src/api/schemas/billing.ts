import { z } from 'zod';
import { TOKEN_SCOPES } from '../../billing/tokens.js';

/** Schemas of the management API: `/account/...` (a customer's token) and `/admin/...` (ADMIN_KEY). */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.', examples: ['2025-06-01T08:00:00.000Z'] });
const id = z.number().int().min(1);
const nameThreshold = z.number().min(0.5).max(1);

const TokenScope = z.enum(TOKEN_SCOPES).meta({
  id: 'TokenScope',
  description:
    '`screen`: the metered endpoints (screening, PEP, IP). `dashboard`: the /account API (usage, audit trail, tokens, webhooks). A token without the scope an endpoint needs gets a 403.',
});

const scopes = z.array(TokenScope).min(1).max(TOKEN_SCOPES.length);

export const ApiToken = z
  .object({
    id,
    name: z.string().nullable().meta({ description: 'Label given at creation.' }),
    prefix: z.string().meta({ description: 'First 8 characters of the token (`sk_` and 5 more), to recognise it.' }),
    created_at: dateTime,
    last_used_at: dateTime.nullable().meta({ description: 'Last use, written within a few seconds.' }),
    revoked_at: dateTime.nullable(),
    scopes,
  })
  .strict()
  .meta({ id: 'ApiToken' });

export const CreatedApiToken = ApiToken.extend({
  token: z.string().meta({
    description:
      'The token, shown only in this answer: `sk_` and 32 base62 characters. Send it as `Authorization: Bearer <token>`.',
    examples: ['sk_4fQ9dJ0cXk2LwP7sV1mN8bR3tY6uZ5aE'],
  }),
})
  .strict()
  .meta({ id: 'CreatedApiToken' });

export const TokenCreateInput = z
  .object({
    name: z.string().min(1).max(100).optional().meta({ description: 'A label for the token.' }),
    scopes: scopes.optional().meta({
      description: 'What the token may do; default both scopes. A token for a server usually needs only `screen`.',
    }),
  })
  .strict();

export const TokenIdInput = z.object({ token_id: id }).strict();

const QuotaStatus = z
  .object({
    month: z.string().meta({ description: 'Calendar month in UTC, `YYYY-MM`.' }),
    monthly_quota: z.number().int(),
    used: z.number().int().meta({
      description:
        'Credits consumed this month (other nodes write theirs every second; after a crash, what the usage rows record).',
    }),
    remaining: z
      .number()
      .int()
      .meta({ description: 'Credits the nodes still grant this month: `monthly_quota - used`, at least 0.' }),
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

export const PlanUpdateInput = z
  .object({ plan_id: id, monthly_quota: z.number().int().min(0).max(1_000_000_000) })
  .strict();

export const Customer = z
  .object({
    id,
    name: z.string(),
    plan_id: id.nullable(),
    plan: z.string().nullable().meta({ description: 'Name of the plan, if any.' }),
    monthly_quota: z.number().int().meta({ description: 'The quota in force: the customer’s own, else the plan’s.' }),
    quota_override: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The customer’s own quota, overriding the plan’s.' }),
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
    monthly_quota: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .nullable()
      .optional()
      .meta({ description: 'null returns to the plan’s quota.' }),
  })
  .strict();

export const CustomerIdInput = z.object({ customer_id: id }).strict();

export const PageInput = z
  .object({ limit: z.number().int().min(1).max(1000).default(100), offset: z.number().int().min(0).default(0) })
  .strict();

export const AccountInfo = z
  .object({
    customer_id: id,
    name: z.string(),
    plan: z.string().nullable(),
    quota: QuotaStatus,
    token: z
      .object({ id, name: z.string().nullable(), prefix: z.string(), scopes })
      .strict()
      .meta({ description: 'The token this request was made with.' }),
    four_eyes: z.boolean().meta({
      description:
        'Alert decisions `confirmed` and `false_positive` take effect only when a second, different token approves them (docs/alerts.md).',
    }),
    name_threshold: nameThreshold.meta({
      description:
        'The score at or above which a name of a subject of the book matches a listed party (docs/monitoring.md).',
    }),
  })
  .strict()
  .meta({ id: 'AccountInfo' });

export const AccountSettingsInput = z
  .object({
    four_eyes: z.boolean().optional().meta({ description: 'Turn the four-eyes rule of alert decisions on or off.' }),
    name_threshold: nameThreshold.optional().meta({
      description: 'The name threshold of the subjects (0.5-1); a change re-screens the whole book as a job.',
    }),
  })
  .strict();

export const AccountUpdate = AccountInfo.extend({
  rescreen_job: z.number().int().min(1).nullable().meta({
    description:
      'The re-screen job a change of `name_threshold` started (GET /account/subjects/rescreens/{id}); null when none did (the same threshold, or an empty book).',
  }),
})
  .strict()
  .meta({ id: 'AccountUpdate' });

export const OfferedPlan = z
  .object({
    id,
    name: z.string(),
    monthly_quota: z.number().int().min(0).meta({ description: 'Credits per calendar month (UTC).' }),
  })
  .strict()
  .meta({ id: 'OfferedPlan' });

const planRequestStatus = z.enum(['pending', 'approved', 'declined', 'cancelled']).meta({
  description:
    '`pending` until the operator approves (the customer moves to the plan at once) or declines it; `cancelled` by the customer.',
});

export const PlanChangeRequest = z
  .object({
    id,
    plan_id: id,
    plan: z.string(),
    monthly_quota: z.number().int(),
    status: planRequestStatus,
    note: z.string().nullable().meta({ description: 'The customer’s note.' }),
    decision_note: z.string().nullable().meta({ description: 'The operator’s note with the decision.' }),
    created_at: dateTime,
    decided_at: dateTime.nullable(),
  })
  .strict()
  .meta({ id: 'PlanChangeRequest' });

export const AdminPlanChangeRequest = PlanChangeRequest.extend({
  customer_id: id,
  customer_name: z.string(),
  current_plan: z.string().nullable().meta({ description: 'The customer’s plan now (null: an own quota).' }),
})
  .strict()
  .meta({ id: 'AdminPlanChangeRequest' });

export const PlanRequestCreateInput = z.object({ plan_id: id, note: z.string().min(1).max(500).optional() }).strict();

export const PlanRequestIdInput = z.object({ request_id: id }).strict();

export const PlanDecisionInput = PlanRequestIdInput.extend({
  note: z.string().min(1).max(500).optional().meta({ description: 'Shown to the customer.' }),
}).strict();

export const PlanRequestsInput = z
  .object({ status: planRequestStatus.optional(), limit: z.number().int().min(1).max(500).default(100) })
  .strict();

export const Payment = z
  .object({
    time: dateTime,
    request_id: z.string(),
    endpoint: z.string(),
    payer: z.string().meta({ description: 'The paying wallet.' }),
    amount: z.string().meta({ description: 'Base units of the asset (6 decimals: 10000 = 0.01 USD).' }),
    network: z.string().meta({ description: 'CAIP-2 network.' }),
    tx_hash: z.string(),
    x402_version: z.number().int(),
  })
  .strict()
  .meta({ id: 'Payment' });

const day = z.iso.date();

export const DateRangeInput = z
  .object({
    from: day
      .meta({ description: 'First day (UTC, inclusive), `YYYY-MM-DD`. Default: 30 days before `to`.' })
      .optional(),
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
  endpoint: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Only matches of requests to this endpoint (procedure id, e.g. `screen.crypto`).' }),
  value: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: 'Only matches whose screened or matched value is exactly this.' }),
  value_contains: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Only matches whose screened or matched value contains this text (case-insensitive).' }),
}).strict();

export const AuditTrailInput = AuditFilterInput.extend({
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .meta({ description: 'Rows to skip; prefer `cursor` beyond the first pages.' }),
  cursor: z.string().min(1).max(2000).optional().meta({
    description: 'The `next_cursor` of the previous page: the page after it, however many rows came in since.',
  }),
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
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass it as `cursor` for the next (older) page; null on the last page.' }),
  })
  .strict()
  .meta({ id: 'AuditTrailPage' });

export const AuditRequestInput = z
  .object({
    request_id: z.string().min(1).max(100),
    day: day
      .optional()
      .meta({ description: 'The request’s day (UTC), which makes the lookup fast; default: the last 30 days.' }),
  })
  .strict();

const AuditMatchDetail = z
  .object({
    screened_value: z.string(),
    matched_value: z.string(),
    list: z.string(),
    list_name: z.string(),
    list_type: z.string(),
    match: z.string(),
    list_version: z.string().meta({ description: 'The version of the list the request was screened against.' }),
    as_of: dateTime.nullable().meta({ description: 'The as-of time of a screening as of a past date, else null.' }),
    metadata: z.record(z.string(), z.unknown()).nullable().meta({
      description:
        'The listing’s metadata as the answer gave it (`evidence.metadata`; a PEP candidate, which has none, is its own). For a match audited before evidence was kept: as the list has it now, or as it was when last listed; null if unknown.',
    }),
    source_url: z
      .string()
      .nullable()
      .meta({ description: 'As the answer gave it (`evidence.source_url`); for older matches as `metadata`.' }),
    evidence: z.record(z.string(), z.unknown()).nullable().meta({
      description:
        'The match exactly as the answer gave it (`value`, `list`, `list_type`, `match`, `metadata`, `source_url`; a name match’s party with its `score` and `explanation`; a PEP candidate as /screen/pep answers it), stored with the audit row. Null for matches audited before evidence was kept.',
    }),
  })
  .strict()
  .meta({ id: 'AuditMatchDetail' });

export const AuditRequestDetail = z
  .object({ request_id: z.string(), time: dateTime, endpoint: z.string(), matches: z.array(AuditMatchDetail) })
  .strict()
  .meta({ id: 'AuditRequestDetail' });

export const CsvText = z.string().meta({ description: 'CSV with a header line.' });
