import { z } from 'zod';
import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import { HttpError, valueError } from '../../core/errors.js';
import { AnalyticsBoundExceeded, type AnalyticsQueries, type Scope } from '../../audit/analytics.js';
import type { DateRange } from '../../audit/queries.js';
import type { CustomerService } from '../../billing/customers.js';
import { dayRange } from '../../billing/views.js';
import type { ListCatalog } from '../../lists/catalog.js';
import { DateRangeInput } from '../schemas/billing.js';
import {
  AdminAnalyticsInput,
  AdminTopValuesInput,
  CustomerActivity,
  DailyActivity,
  EndpointActivity,
  ListActivity,
  TopCustomersInput,
  TopValue,
  TopValuesInput,
} from '../schemas/analytics.js';
import { customerOf } from './account.js';

export interface AnalyticsDeps {
  analytics: AnalyticsQueries;
  catalog: ListCatalog;
  customers: CustomerService;
}

const TAGS = ['analytics'];
const MAX_DAYS = 366;
const DAY = 86_400_000;
const RANGE = 'The range is whole UTC days, `from` and `to` inclusive (default: the last 30 days), at most 366 days.';
const BOUND = 'A query stopped by its time or row bound is a 503: narrow the range.';

/** The request's days as a range, at most MAX_DAYS long. */
function range(input: { from?: string; to?: string }, now: number): DateRange {
  const r = dayRange(input, now);
  if (r.from >= r.to) throw valueError(['query', 'from'], '`from` must not be after `to`', input.from);
  if (r.to - r.from > MAX_DAYS * DAY) throw valueError(['query', 'from'], `the range is longer than ${MAX_DAYS} days`, input.from);
  return r;
}

async function bounded<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    if (err instanceof AnalyticsBoundExceeded) throw new HttpError(503, err.message);
    throw err;
  }
}

/**
 * Aggregates of the audit trail and usage behind the dashboard's charts: a customer's own
 * (`/account/analytics/...`, scope `dashboard`) and the operator's across customers
 * (`/admin/analytics/...`). Answered from ClickHouse's aggregate projections (docs/clickhouse.md).
 */
export function analyticsEndpoints(deps: AnalyticsDeps): AnyEndpoint[] {
  const { analytics, catalog } = deps;
  const listView = async (scope: Scope, r: DateRange) =>
    (await bounded(analytics.lists(scope, r))).map((l) => ({
      list: l.list,
      list_name: catalog.labels.get(l.list)?.list_name ?? l.list,
      list_type: catalog.labels.get(l.list)?.list_type ?? 'risk',
      matches: l.matches,
      last_match_at: l.last_match_at,
    }));
  const admin = (input: { customer_id?: number }): Scope => ({ customerId: input.customer_id ?? null });
  const both = [
    { who: 'account', access: 'account' as const, input: DateRangeInput, topInput: TopValuesInput, whose: 'the customer’s' },
    { who: 'admin', access: 'admin' as const, input: AdminAnalyticsInput, topInput: AdminTopValuesInput, whose: 'every customer’s (or one customer’s)' },
  ];
  return [
    ...both.flatMap(({ who, access, input, topInput, whose }) => {
      const scope = (i: { customer_id?: number }, caller: Parameters<typeof customerOf>[0]): Scope => (access === 'account' ? { customerId: customerOf(caller) } : admin(i));
      return [
        endpoint({
          id: `${who}.analytics.daily`,
          method: 'GET',
          path: `/${who}/analytics/daily`,
          tags: TAGS,
          summary: `Requests, credits and matches per day: ${whose}`,
          description: `${RANGE} ${BOUND}`,
          access,
          errors: [503],
          input,
          output: z.array(DailyActivity),
          handler: (i: z.output<typeof AdminAnalyticsInput>, ctx) => bounded(analytics.daily(scope(i, ctx.caller), range(i, ctx.now()))),
        }),
        endpoint({
          id: `${who}.analytics.endpoints`,
          method: 'GET',
          path: `/${who}/analytics/endpoints`,
          tags: TAGS,
          summary: `Requests, credits and matches per endpoint, busiest first: ${whose}`,
          description: `${RANGE} ${BOUND}`,
          access,
          errors: [503],
          input,
          output: z.array(EndpointActivity),
          handler: (i: z.output<typeof AdminAnalyticsInput>, ctx) => bounded(analytics.endpoints(scope(i, ctx.caller), range(i, ctx.now()))),
        }),
        endpoint({
          id: `${who}.analytics.lists`,
          method: 'GET',
          path: `/${who}/analytics/lists`,
          tags: TAGS,
          summary: `Matches per list, most matched first: ${whose}`,
          description: `${RANGE} ${BOUND}`,
          access,
          errors: [503],
          input,
          output: z.array(ListActivity),
          handler: (i: z.output<typeof AdminAnalyticsInput>, ctx) => listView(scope(i, ctx.caller), range(i, ctx.now())),
        }),
        endpoint({
          id: `${who}.analytics.topValues`,
          method: 'GET',
          path: `/${who}/analytics/top-values`,
          tags: TAGS,
          summary: `The listed values matched most often: ${whose}`,
          description: `${RANGE} ${BOUND}`,
          access,
          errors: [503],
          input: topInput,
          output: z.array(TopValue),
          handler: (i: z.output<typeof AdminTopValuesInput>, ctx) => bounded(analytics.topValues(scope(i, ctx.caller), range(i, ctx.now()), i.limit)),
        }),
      ];
    }),
    endpoint({
      id: 'admin.analytics.customers',
      method: 'GET',
      path: '/admin/analytics/customers',
      tags: TAGS,
      summary: 'Requests and credits per customer, busiest first',
      description: `Customer 0 stands for x402 payers without a token. ${RANGE} ${BOUND}`,
      access: 'admin',
      errors: [503],
      input: TopCustomersInput,
      output: z.array(CustomerActivity),
      handler: async (input, ctx) => {
        const rows = await bounded(analytics.customers(range(input, ctx.now()), input.limit));
        const names = await deps.customers.names(rows.map((r) => r.customer_id));
        return rows.map((r) => ({ ...r, name: names.get(r.customer_id) ?? null }));
      },
    }),
  ];
}
