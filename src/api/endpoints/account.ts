import { z } from 'zod';
import { endpoint, RawResponse, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { HttpError } from '../../core/errors.js';
import type { AuditStore } from '../../audit/store.js';
import { AUDIT_EXPORT_COLUMNS } from '../../audit/queries.js';
import { csvChunks } from '../csv.js';
import type { CustomerService } from '../../billing/customers.js';
import type { QuotaManager } from '../../billing/quota.js';
import type { TokenService } from '../../billing/tokens.js';
import { dayRange, tokenView } from '../../billing/views.js';
import {
  AccountInfo,
  ApiToken,
  AuditCsvInput,
  AuditTrailInput,
  AuditTrailPage,
  CreatedApiToken,
  CsvText,
  DateRangeInput,
  MatchesDay,
  TokenCreateInput,
  TokenIdInput,
  UsageDay,
} from '../schemas/billing.js';

export interface AccountDeps {
  tokens: TokenService;
  quota: QuotaManager;
  customers: CustomerService;
  audit: Pick<AuditStore, 'queries'>;
}

const TAGS = ['account'];

export function customerOf(caller: Caller): number {
  // The gate lets only a customer's token through to `account` endpoints.
  if (caller.kind !== 'customer') throw new HttpError(401, 'Not authenticated', { 'WWW-Authenticate': 'Bearer' });
  return caller.customerId;
}

/**
 * The customer's dashboard API under `/account`: their tokens, quota, usage and audit trail.
 * Authenticated with one of their tokens, never metered.
 */
export function accountEndpoints(deps: AccountDeps): AnyEndpoint[] {
  const { tokens, quota, customers, audit } = deps;
  return [
    endpoint({
      id: 'account.get',
      method: 'GET',
      path: '/account',
      tags: TAGS,
      summary: 'The calling customer and this month’s quota',
      access: 'account',
      input: z.object({}).strict(),
      output: AccountInfo,
      handler: async (_input, ctx) => {
        const id = customerOf(ctx.caller);
        const [c, q] = await Promise.all([customers.getCustomer(id), quota.status(id)]);
        if (!c || !q) throw new HttpError(404, 'Customer not found');
        return { customer_id: c.id, name: c.name, plan: c.plan_name, quota: q };
      },
    }),
    endpoint({
      id: 'account.tokens.list',
      method: 'GET',
      path: '/account/tokens',
      tags: TAGS,
      summary: 'The customer’s API tokens (prefixes only)',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(ApiToken),
      handler: async (_input, ctx) => (await tokens.list(customerOf(ctx.caller))).map(tokenView),
    }),
    endpoint({
      id: 'account.tokens.create',
      method: 'POST',
      path: '/account/tokens',
      tags: TAGS,
      summary: 'Create an API token (shown once)',
      access: 'account',
      input: TokenCreateInput,
      output: CreatedApiToken,
      handler: async (input, ctx) => {
        const { token, record } = await tokens.create(customerOf(ctx.caller), input.name ?? null);
        return { ...tokenView(record), token };
      },
    }),
    endpoint({
      id: 'account.tokens.revoke',
      method: 'DELETE',
      path: '/account/tokens/{token_id}',
      tags: TAGS,
      summary: 'Revoke one of the customer’s API tokens',
      description: 'Effective on every node within TOKEN_CACHE_SECONDS (5 s by default).',
      access: 'account',
      errors: [404],
      input: TokenIdInput,
      output: ApiToken,
      handler: async (input, ctx) => {
        const record = await tokens.revoke(input.token_id, customerOf(ctx.caller));
        if (!record) throw new HttpError(404, 'Token not found');
        return tokenView(record);
      },
    }),
    endpoint({
      id: 'account.usage',
      method: 'GET',
      path: '/account/usage',
      tags: TAGS,
      summary: 'Requests and credits per day and endpoint',
      access: 'account',
      input: DateRangeInput,
      output: z.array(UsageDay),
      handler: (input, ctx) => audit.queries.usageByDay(customerOf(ctx.caller), dayRange(input, ctx.now())),
    }),
    endpoint({
      id: 'account.matches',
      method: 'GET',
      path: '/account/matches',
      tags: TAGS,
      summary: 'Matches per list and day',
      access: 'account',
      input: DateRangeInput,
      output: z.array(MatchesDay),
      handler: (input, ctx) => audit.queries.matchesByDay(customerOf(ctx.caller), dayRange(input, ctx.now())),
    }),
    endpoint({
      id: 'account.audit',
      method: 'GET',
      path: '/account/audit',
      tags: TAGS,
      summary: 'The audit trail: every match of the customer’s requests, newest first',
      access: 'account',
      input: AuditTrailInput,
      output: AuditTrailPage,
      handler: async (input, ctx) => {
        const page = { limit: input.limit, offset: input.offset };
        const filter = { ...dayRange(input, ctx.now()), list: input.list, value: input.value };
        const { total, items } = await audit.queries.auditTrail(customerOf(ctx.caller), filter, page);
        return { total, ...page, items };
      },
    }),
    endpoint({
      id: 'account.auditCsv',
      method: 'GET',
      path: '/account/audit/export',
      tags: TAGS,
      summary: 'The audit trail as a CSV download',
      description: `Columns: ${AUDIT_EXPORT_COLUMNS.join(', ')}. Newest first.`,
      access: 'account',
      input: AuditCsvInput,
      output: CsvText,
      handler: async (input, ctx) => {
        const filter = { ...dayRange(input, ctx.now()), list: input.list, value: input.value };
        const rows = await audit.queries.auditExport(customerOf(ctx.caller), filter, input.limit);
        return new RawResponse('text/csv; charset=utf-8', csvChunks(AUDIT_EXPORT_COLUMNS, rows), { 'Content-Disposition': 'attachment; filename="audit.csv"' });
      },
    }),
  ];
}
