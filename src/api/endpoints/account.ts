import { z } from 'zod';
import { endpoint, RawResponse, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { conflict, notFound, unauthorized, valueError } from '../../core/errors.js';
import type { AuditStore } from '../../audit/store.js';
import { AUDIT_EXPORT_COLUMNS, type AuditCursor, type AuditTrailItem } from '../../audit/queries.js';
import { evidenceListing } from '../../audit/evidence.js';
import { csvChunks } from '../csv.js';
import { NotFound, type CustomerService } from '../../billing/customers.js';
import { PlanRequestConflict, type PlanRequests } from '../../billing/plan-requests.js';
import type { QuotaManager } from '../../billing/quota.js';
import type { TokenService } from '../../billing/tokens.js';
import { dayRange, planRequestView, tokenView } from '../../billing/views.js';
import { screenValue, type ScreeningDeps } from './screen.js';
import type { AlertStore } from '../../alerts/store.js';
import type { SubjectStore } from '../../subjects/store.js';
import {
  AccountInfo,
  AccountSettingsInput,
  AccountUpdate,
  ApiToken,
  AuditCsvInput,
  AuditRequestDetail,
  AuditRequestInput,
  AuditTrailInput,
  AuditTrailPage,
  CreatedApiToken,
  CsvText,
  DateRangeInput,
  MatchesDay,
  OfferedPlan,
  Payment,
  PlanChangeRequest,
  PlanRequestCreateInput,
  PlanRequestIdInput,
  TokenCreateInput,
  TokenIdInput,
  UsageDay,
} from '../schemas/billing.js';

export interface AccountDeps {
  tokens: TokenService;
  quota: QuotaManager;
  customers: CustomerService;
  planRequests: PlanRequests;
  audit: Pick<AuditStore, 'queries'>;
  /** Re-screens a value audited before evidence was kept, to show its listing's current metadata. */
  screening: ScreeningDeps;
  /** The four-eyes setting of alert decisions. */
  alerts: Pick<AlertStore, 'fourEyes' | 'setFourEyes'>;
  /** The name threshold of the customer's subjects. */
  subjects: Pick<SubjectStore, 'nameThreshold' | 'setNameThreshold'>;
  /** Re-screens a customer's book after its name threshold changed: the job's id (absent or null: no job). */
  onThresholdChange?: (customerId: number) => Promise<number | null>;
}

const TAGS = ['account'];
const DAY = 86_400_000;

/** The customer's caller of an `account` endpoint (the gate lets only a customer's token through). */
export function customerCaller(caller: Caller): Extract<Caller, { kind: 'customer' }> {
  if (caller.kind !== 'customer') throw unauthorized('Not authenticated', { 'WWW-Authenticate': 'Bearer' });
  return caller;
}

export function customerOf(caller: Caller): number {
  return customerCaller(caller).customerId;
}

/** Store errors as answers: a missing plan or request is 404, a request in the wrong state 409. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotFound) throw notFound(err.message);
    if (err instanceof PlanRequestConflict) throw conflict(err.message);
    throw err;
  }
}

/** The audit cursor as an opaque URL-safe string, and back (a malformed one is a 422). */
function encodeCursor(c: AuditCursor): string {
  return Buffer.from(JSON.stringify([c.time, c.request_id, c.list, c.matched_value])).toString('base64url');
}

function decodeCursor(text: string): AuditCursor {
  try {
    const [time, request_id, list, matched_value] = JSON.parse(
      Buffer.from(text, 'base64url').toString('utf8'),
    ) as unknown[];
    if (Number.isSafeInteger(time) && [request_id, list, matched_value].every((s) => typeof s === 'string')) {
      return {
        time: time as number,
        request_id: request_id as string,
        list: list as string,
        matched_value: matched_value as string,
      };
    }
  } catch {
    // Reported below like any other malformed cursor.
  }
  throw valueError(['query', 'cursor'], 'not a cursor of this API (pass next_cursor as given)', text);
}

/**
 * The listing behind a match audited before evidence was kept, as the list has it now: the screened value is screened
 * again on that one list (not metered: the customer paid for it when it was audited) and the hit
 * on the matched value is kept. A batch row is tried as every kind.
 */
async function currentListing(s: ScreeningDeps, row: AuditTrailItem) {
  const one = s.kinds.ofEndpoint(row.endpoint);
  const kinds = one ? [one] : row.endpoint === 'screen.batch' ? s.kinds.all : [];
  const def = s.catalog.definition(row.list);
  if (!def?.enabled || def.deleted_at) return null;
  const lists = [row.list];
  for (const kind of kinds) {
    try {
      const envelope = await screenValue(s, kind.rule, row.screened_value, {
        lists,
        basis: s.catalog.basis(lists),
        asOf: undefined,
        reviews: null,
      });
      const hit = envelope.matches.find((m) => m.list === row.list && m.value === row.matched_value);
      if (hit) return hit;
    } catch {
      // Not a value of this kind.
    }
  }
  return null;
}

/**
 * The customer's dashboard API under `/account`: their tokens, quota, usage, audit trail,
 * payments and plan requests. Authenticated with one of their tokens of scope `dashboard`,
 * never metered.
 */
export function accountEndpoints(deps: AccountDeps): AnyEndpoint[] {
  const { tokens, quota, customers, audit, planRequests, alerts, subjects } = deps;
  const accountInfo = async (caller: Caller) => {
    const id = customerOf(caller);
    const tokenId = caller.kind === 'customer' ? caller.tokenId : 0;
    const [c, q, t, fourEyes, nameThreshold] = await Promise.all([
      customers.getCustomer(id),
      quota.status(id),
      tokens.get(tokenId),
      alerts.fourEyes(id),
      subjects.nameThreshold(id),
    ]);
    if (!c || !q || !t) throw notFound('Customer not found');
    return {
      customer_id: c.id,
      name: c.name,
      plan: c.plan_name,
      quota: q,
      token: { id: t.id, name: t.name, prefix: t.prefix, scopes: t.scopes },
      four_eyes: fourEyes,
      name_threshold: nameThreshold,
    };
  };
  return [
    endpoint({
      id: 'account.get',
      method: 'GET',
      path: '/account',
      tags: TAGS,
      summary: 'The calling customer, this month’s quota and the token used',
      access: 'account',
      input: z.object({}).strict(),
      output: AccountInfo,
      handler: (_input, ctx) => accountInfo(ctx.caller),
    }),
    endpoint({
      id: 'account.update',
      method: 'PATCH',
      path: '/account',
      tags: TAGS,
      summary: 'Change the customer’s settings (the four-eyes rule, the name threshold of subjects)',
      description:
        'Any dashboard token of the customer may change them. Four-eyes turned off, a decision takes effect at once, a pending proposal included. ' +
        'A new `name_threshold` (0.5-1) re-screens the whole book as a job (`rescreen_job`, GET /account/subjects/rescreens/{id}).',
      access: 'account',
      input: AccountSettingsInput,
      output: AccountUpdate,
      handler: async (input, ctx) => {
        const { customerId: id, tokenId } = customerCaller(ctx.caller);
        if (input.four_eyes !== undefined) await alerts.setFourEyes(id, input.four_eyes, { tokenId });
        let rescreen: number | null = null;
        if (input.name_threshold !== undefined && (await subjects.setNameThreshold(id, input.name_threshold)))
          rescreen = deps.onThresholdChange ? await deps.onThresholdChange(id) : null;
        return { ...(await accountInfo(ctx.caller)), rescreen_job: rescreen };
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
      description:
        'With `scopes` `["screen"]` the token can screen but cannot read the audit trail or manage the account.',
      access: 'account',
      input: TokenCreateInput,
      output: CreatedApiToken,
      handler: async (input, ctx) => {
        const { token, record } = await tokens.create(customerOf(ctx.caller), input.name ?? null, input.scopes);
        return { ...tokenView(record), token };
      },
    }),
    endpoint({
      id: 'account.tokens.revoke',
      method: 'DELETE',
      path: '/account/tokens/{token_id}',
      tags: TAGS,
      summary: 'Revoke one of the customer’s API tokens',
      description:
        'Refused at once by the node that revoked it, and by every other node within TOKEN_CACHE_SECONDS (5 s by default).',
      access: 'account',
      errors: [404],
      input: TokenIdInput,
      output: ApiToken,
      handler: async (input, ctx) => {
        const record = await tokens.revoke(input.token_id, customerOf(ctx.caller));
        if (!record) throw notFound('Token not found');
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
      description:
        'Page with `cursor` (the previous page’s `next_cursor`): pages stay stable while new matches come in.',
      access: 'account',
      input: AuditTrailInput,
      output: AuditTrailPage,
      handler: async (input, ctx) => {
        const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
        const filter = {
          ...dayRange(input, ctx.now()),
          list: input.list,
          endpoint: input.endpoint,
          value: input.value,
          valueContains: input.value_contains,
        };
        const page = await audit.queries.auditTrail(customerOf(ctx.caller), filter, {
          limit: input.limit,
          offset: input.offset,
          cursor,
        });
        return {
          total: page.total,
          limit: input.limit,
          offset: input.offset,
          items: page.items,
          next_cursor: page.next && encodeCursor(page.next),
        };
      },
    }),
    endpoint({
      id: 'account.auditCsv',
      method: 'GET',
      path: '/account/audit/export',
      tags: TAGS,
      summary: 'The audit trail as a CSV download',
      description: `The same filters as /account/audit. Columns: ${AUDIT_EXPORT_COLUMNS.join(', ')}. Newest first.`,
      access: 'account',
      input: AuditCsvInput,
      output: CsvText,
      handler: async (input, ctx) => {
        const filter = {
          ...dayRange(input, ctx.now()),
          list: input.list,
          endpoint: input.endpoint,
          value: input.value,
          valueContains: input.value_contains,
        };
        const rows = await audit.queries.auditExport(customerOf(ctx.caller), filter, input.limit);
        return new RawResponse('text/csv; charset=utf-8', csvChunks(AUDIT_EXPORT_COLUMNS, rows), {
          'Content-Disposition': 'attachment; filename="audit.csv"',
        });
      },
    }),
    endpoint({
      id: 'account.auditRequest',
      method: 'GET',
      path: '/account/audit/requests/{request_id}',
      tags: TAGS,
      summary: 'One audited request: each match with its evidence as answered',
      description:
        'Each match as the answer gave it (`evidence`), kept with the audit row: it stays whatever later list versions, history compaction or restarts do. Rows audited before evidence was kept have none; their metadata is the listing’s as the list has it now, or as it was last listed when the value has left the list.',
      access: 'account',
      errors: [404],
      input: AuditRequestInput,
      output: AuditRequestDetail,
      handler: async (input, ctx) => {
        const customer = customerOf(ctx.caller);
        const range = input.day
          ? { from: Date.parse(`${input.day}T00:00:00Z`), to: Date.parse(`${input.day}T00:00:00Z`) + DAY }
          : dayRange({}, ctx.now());
        const rows = await audit.queries.request(customer, input.request_id, range);
        if (rows.length === 0) throw notFound('No audited request with this id in that period');
        // Only rows stored before evidence was kept look their listing up.
        const current = await Promise.all(
          rows.map((r) => (r.evidence === null ? currentListing(deps.screening, r) : null)),
        );
        const missing = rows
          .filter((r, i) => r.evidence === null && current[i] === null)
          .map((r) => ({ list: r.list, value: r.matched_value }));
        const past = await audit.queries.lastListings(missing);
        return {
          request_id: input.request_id,
          time: rows[0].time,
          endpoint: rows[0].endpoint,
          matches: rows.map((r, i) => {
            const listing = r.evidence
              ? evidenceListing(r.evidence)
              : (current[i] ?? past.get(`${r.list}\u0000${r.matched_value}`));
            return {
              screened_value: r.screened_value,
              matched_value: r.matched_value,
              list: r.list,
              list_name: deps.screening.catalog.labels.get(r.list)?.list_name ?? r.list,
              list_type: r.list_type,
              match: r.match,
              list_version: r.list_version,
              as_of: r.as_of,
              metadata: listing?.metadata ?? null,
              source_url: listing?.source_url ?? null,
              evidence: r.evidence,
            };
          }),
        };
      },
    }),
    endpoint({
      id: 'account.payments',
      method: 'GET',
      path: '/account/payments',
      tags: TAGS,
      summary: 'x402 payments of requests made with the customer’s tokens, newest first',
      description: 'Requests paid per request after the monthly quota ran out (a token and a payment header).',
      access: 'account',
      input: DateRangeInput.extend({ limit: z.number().int().min(1).max(1000).default(100) }).strict(),
      output: z.array(Payment),
      handler: (input, ctx) => audit.queries.payments(customerOf(ctx.caller), dayRange(input, ctx.now()), input.limit),
    }),
    endpoint({
      id: 'account.plans',
      method: 'GET',
      path: '/account/plans',
      tags: TAGS,
      summary: 'The plans the operator offers',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(OfferedPlan),
      handler: async () =>
        (await customers.listPlans()).map((p) => ({ id: p.id, name: p.name, monthly_quota: p.monthly_quota })),
    }),
    endpoint({
      id: 'account.planRequests.list',
      method: 'GET',
      path: '/account/plan-requests',
      tags: TAGS,
      summary: 'The customer’s plan change requests and their outcome, newest first',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(PlanChangeRequest),
      handler: async (_input, ctx) =>
        (await planRequests.list({ customerId: customerOf(ctx.caller), limit: 100 })).map(planRequestView),
    }),
    endpoint({
      id: 'account.planRequests.create',
      method: 'POST',
      path: '/account/plan-requests',
      tags: TAGS,
      summary: 'Ask the operator for another plan',
      description:
        'The operator approves (the plan applies at once, to the current month) or declines it. One request at a time: 409 while another waits.',
      access: 'account',
      errors: [404, 409],
      input: PlanRequestCreateInput,
      output: PlanChangeRequest,
      handler: (input, ctx) =>
        mapped(async () =>
          planRequestView(await planRequests.create(customerOf(ctx.caller), input.plan_id, input.note ?? null)),
        ),
    }),
    endpoint({
      id: 'account.planRequests.cancel',
      method: 'DELETE',
      path: '/account/plan-requests/{request_id}',
      tags: TAGS,
      summary: 'Withdraw a pending plan change request',
      access: 'account',
      errors: [404, 409],
      input: PlanRequestIdInput,
      output: PlanChangeRequest,
      handler: (input, ctx) =>
        mapped(async () => planRequestView(await planRequests.cancel(customerOf(ctx.caller), input.request_id))),
    }),
  ];
}
