import { z } from 'zod';
import { DateRangeInput } from './billing.js';

/** Schemas of the analytics endpoints (`/account/analytics/...`, `/admin/analytics/...`). */

const count = z.number().int().min(0);
const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.' });

export const AdminAnalyticsInput = DateRangeInput.extend({
  customer_id: z.number().int().min(1).optional().meta({ description: 'One customer; default: every customer.' }),
}).strict();

export const AdminTopValuesInput = AdminAnalyticsInput.extend({
  limit: z.number().int().min(1).max(100).default(10),
}).strict();

export const TopCustomersInput = DateRangeInput.extend({
  limit: z.number().int().min(1).max(1000).default(20),
}).strict();

export const DailyActivity = z
  .object({
    day: z.string().meta({ description: '`YYYY-MM-DD`, UTC. Every day of the range is listed.' }),
    requests: count.meta({ description: 'Metered requests.' }),
    credits: count,
    paid_requests: count.meta({ description: 'Requests paid with x402 instead of quota.' }),
    matches: count.meta({ description: 'Audited matches (a request can match several lists).' }),
  })
  .strict()
  .meta({ id: 'DailyActivity' });

export const EndpointActivity = z
  .object({
    endpoint: z.string().meta({ description: 'Procedure id, e.g. `screen.crypto`.' }),
    requests: count,
    credits: count,
    paid_requests: count,
    matches: count,
  })
  .strict()
  .meta({ id: 'EndpointActivity' });

export const ListActivity = z
  .object({ list: z.string(), list_name: z.string(), list_type: z.string(), matches: count, last_match_at: dateTime })
  .strict()
  .meta({ id: 'ListActivity' });

export const TopValue = z
  .object({
    matched_value: z.string().meta({ description: 'The value as published on the list.' }),
    list: z.string(),
    matches: count,
    last_match_at: dateTime,
  })
  .strict()
  .meta({ id: 'TopValue' });

export const CustomerActivity = z
  .object({
    customer_id: z.number().int().min(0).meta({ description: '0: x402 payers without a token.' }),
    name: z.string().nullable(),
    requests: count,
    credits: count,
    paid_requests: count,
  })
  .strict()
  .meta({ id: 'CustomerActivity' });
