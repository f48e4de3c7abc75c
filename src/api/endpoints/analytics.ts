import { z } from 'zod';
import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import { serviceUnavailable, valueError } from '../../core/errors.js';
import { AnalyticsBoundExceeded, type AnalyticsQueries, type Scope } from '../../audit/analytics.js';
import type { DateRange } from '../../audit/queries.js';
import type { CustomerService } from '../../billing/customers.js';
import { dayRange } from '../../billing/views.js';
import type { ListCatalog } from '../../lists/catalog.js';
import {
  AdminAnalyticsInput,
  AdminTopValuesInput,
  CustomerActivity,
  DailyActivity,
  EndpointActivity,
  ListActivity,
  TopCustomersInput,
  TopValue,
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
  if (r.to - r.from > MAX_DAYS * DAY)
    throw valueError(['query', 'from'], `the range is longer than ${MAX_DAYS} days`, input.from);
  return r;
}

async function bounded<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    if (err instanceof AnalyticsBoundExceeded) throw serviceUnavailable(err.message);
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
  /** One analytics endpoint for the customer (`/account/analytics/...`) or the operator (`/admin/analytics/...`). */
  const define = <I extends typeof AdminAnalyticsInput | typeof AdminTopValuesInput, O extends z.ZodType>(
    who: 'account' | 'admin',
    name: string,
    summary: string,
    input: I,
    output: O,
    run: (scope: Scope, r: DateRange, input: z.output<I>) => Promise<z.output<O>>,
  ) =>
    endpoint({
      id: `${who}.analytics.${name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}`,
      method: 'GET',
      path: `/${who}/analytics/${name}`,
      tags: TAGS,
      summary: `${summary}: ${who === 'account' ? 'the customer’s' : 'every customer’s (or one customer’s)'}`,
      description: `${RANGE} ${BOUND}`,
      access: who,
      errors: [503],
      // The customer's endpoints take no customer_id: the scope is the caller.
      input: (who === 'account' ? (input as z.ZodObject).omit({ customer_id: true }) : input) as I,
      output,
      handler: (i, ctx) =>
        run(
          who === 'account' ? { customerId: customerOf(ctx.caller) } : { customerId: i.customer_id ?? null },
          range(i, ctx.now()),
          i,
        ),
    });
  return [
    ...(['account', 'admin'] as const).flatMap((who) => [
      define(
        who,
        'daily',
        'Requests, credits and matches per day',
        AdminAnalyticsInput,
        z.array(DailyActivity),
        (scope, r) => bounded(analytics.daily(scope, r)),
      ),
      define(
        who,
        'endpoints',
        'Requests, credits and matches per endpoint, busiest first',
        AdminAnalyticsInput,
        z.array(EndpointActivity),
        (scope, r) => bounded(analytics.endpoints(scope, r)),
      ),
      define(
        who,
        'lists',
        'Matches per list, most matched first',
        AdminAnalyticsInput,
        z.array(ListActivity),
        listView,
      ),
      define(
        who,
        'top-values',
        'The listed values matched most often',
        AdminTopValuesInput,
        z.array(TopValue),
        (scope, r, i) => bounded(analytics.topValues(scope, r, i.limit)),
      ),
    ]),
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
