import { customerCaller } from './account.js';
import { endpoint, RawResponse, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { conflict, forbidden, notFound, valueError } from '../../core/errors.js';
import { dayRange } from '../../billing/views.js';
import type { AlertDecisionQueries } from '../../audit/decisions.js';
import { AlertCursorError } from '../../alerts/cursor.js';
import { alertCsv, alertJsonArray, ALERT_CSV_COLUMNS } from '../alerts-export.js';
import type { AlertQueries } from '../../alerts/queries.js';
import {
  AlertSelfApproval,
  AlertDelisted,
  AlertVersionConflict,
  type AlertDetail as Detail,
  type AlertStore,
} from '../../alerts/store.js';
import type { ReviewView } from '../../alerts/review-view.js';
import { z } from 'zod';
import {
  AlertCommentInput,
  AlertCounts,
  AlertDecisionInput,
  AlertDecisionTrail,
  AlertDecisionTrailInput,
  AlertDecisionsInput,
  AlertDecisionsResult,
  AlertDetail,
  AlertExportInput,
  AlertExportText,
  AlertIdInput,
  AlertListInput,
  AlertPage,
} from '../schemas/alerts.js';

export interface AlertsDeps {
  alerts: AlertStore;
  queries: AlertQueries;
  /** Told of each decision before it is answered: the customer's next screening names it. */
  reviews?: ReviewView;
  /** The decisions' copy in the audit trail (ClickHouse). */
  decisions: AlertDecisionQueries;
}

const TAGS = ['alerts'];

/** The customer and the analyst's token: each decision and comment is attributed to one token. */
const analystOf = (caller: Caller): { customerId: number; tokenId: number } => customerCaller(caller);

function found(v: Detail | null): Detail {
  if (v === null) throw notFound('Alert not found');
  return v;
}

async function versioned<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AlertVersionConflict || err instanceof AlertDelisted) throw conflict(err.message);
    if (err instanceof AlertSelfApproval) throw forbidden(err.message);
    throw err;
  }
}

/** Review of the alerts that metered screenings open (docs/alerts.md). */
export function alertEndpoints(deps: AlertsDeps): AnyEndpoint[] {
  const { alerts, queries, decisions } = deps;
  const decided = (customerId: number, a: Detail) =>
    deps.reviews?.apply({
      customer_id: customerId,
      id: a.id,
      screened_value: a.screened_value,
      list: a.list,
      listed_key: a.listed_party,
      status: a.status,
      decided_at: a.decided_at,
    });
  return [
    endpoint({
      id: 'account.alerts.trail',
      method: 'GET',
      path: '/account/audit/decisions',
      tags: TAGS,
      summary: 'Who decided what on which alert, when, and on which evidence (audit trail)',
      description:
        'Decisions, four-eyes proposals and approvals, and the system’s re-openings, as the audit trail keeps them, oldest first.',
      access: 'account',
      input: AlertDecisionTrailInput,
      output: AlertDecisionTrail,
      // The trail's texts (event, status, changes) are typed by the schema they were written from.
      handler: async (input, ctx) =>
        AlertDecisionTrail.parse(
          await decisions.list(analystOf(ctx.caller).customerId, {
            ...dayRange(input, ctx.now()),
            alertId: input.alert_id,
            limit: input.limit,
          }),
        ),
    }),
    endpoint({
      id: 'account.alerts.list',
      method: 'GET',
      path: '/account/alerts',
      tags: TAGS,
      summary: 'The customer’s alerts, by time or score (keyset pages)',
      access: 'account',
      input: AlertListInput,
      output: AlertPage,
      handler: async (input, ctx) => {
        try {
          return await queries.list(analystOf(ctx.caller).customerId, input);
        } catch (err) {
          if (err instanceof AlertCursorError) throw valueError(['query', 'cursor'], err.message, input.cursor);
          throw err;
        }
      },
    }),
    endpoint({
      id: 'account.alerts.export',
      method: 'GET',
      path: '/account/alerts/export',
      tags: TAGS,
      summary: 'The alerts with their evidence and history as a CSV or JSON download',
      description:
        `The filters of /account/alerts; alerts in id order, at most \`limit\` (up to 100,000): continue with \`after_id\`. ` +
        `CSV: one row per alert, columns ${ALERT_CSV_COLUMNS.join(', ')} (history: one event per line). ` +
        'JSON: an array of AlertDetail.',
      access: 'account',
      input: AlertExportInput,
      output: AlertExportText,
      handler: (input, ctx) => {
        const { format, limit, after_id, ...filter } = input;
        const pages = queries.export(analystOf(ctx.caller).customerId, filter, limit, after_id);
        return format === 'csv'
          ? new RawResponse('text/csv; charset=utf-8', alertCsv(pages), {
              'Content-Disposition': 'attachment; filename="alerts.csv"',
            })
          : new RawResponse('application/json; charset=utf-8', alertJsonArray(pages), {
              'Content-Disposition': 'attachment; filename="alerts.json"',
            });
      },
    }),
    endpoint({
      id: 'admin.alerts.counts',
      method: 'GET',
      path: '/admin/alerts/counts',
      tags: TAGS,
      summary: 'Alert counts per customer and status (operator)',
      access: 'admin',
      input: z.object({}).strict(),
      output: AlertCounts,
      handler: () => queries.counts(),
    }),
    endpoint({
      id: 'account.alerts.decideMany',
      method: 'POST',
      path: '/account/alerts/decisions',
      tags: TAGS,
      summary: 'Decide up to 1,000 alerts at once, all or none',
      description:
        'An unknown alert is a 404, a stale version a 409, a four-eyes approval by the proposing token a 403; then no decision of the request is recorded.',
      access: 'account',
      errors: [403, 404, 409],
      input: AlertDecisionsInput,
      output: AlertDecisionsResult,
      handler: async (input, ctx) => {
        const { customerId, tokenId } = analystOf(ctx.caller);
        const res = await versioned(() => alerts.decideMany(customerId, input.decisions, { tokenId }));
        if ('missing' in res) throw notFound(`Alert ${res.missing} not found`);
        for (const a of res) decided(customerId, a);
        return { alerts: res };
      },
    }),
    endpoint({
      id: 'account.alerts.get',
      method: 'GET',
      path: '/account/alerts/{alert_id}',
      tags: TAGS,
      summary: 'An alert with its latest evidence, occurrences and history',
      access: 'account',
      errors: [404],
      input: AlertIdInput,
      output: AlertDetail,
      handler: async (input, ctx) => found(await alerts.get(analystOf(ctx.caller).customerId, input.alert_id)),
    }),
    endpoint({
      id: 'account.alerts.decide',
      method: 'POST',
      path: '/account/alerts/{alert_id}/decision',
      tags: TAGS,
      summary: 'Decide an alert: its new status, made on the version you reviewed',
      description:
        'A `version` that is no longer the alert’s is a 409 (someone decided since): reload the alert and decide again. Under the customer’s four-eyes rule a `confirmed` or `false_positive` decision is a proposal (`pending`) until another token posts the same status on the new version; the proposing token gets a 403.',
      access: 'account',
      errors: [403, 404, 409],
      input: AlertDecisionInput,
      output: AlertDetail,
      handler: async (input, ctx) => {
        const { customerId, tokenId } = analystOf(ctx.caller);
        const decision = { status: input.status, comment: input.comment, version: input.version };
        const a = found(await versioned(() => alerts.decide(customerId, input.alert_id, decision, { tokenId })));
        decided(customerId, a);
        return a;
      },
    }),
    endpoint({
      id: 'account.alerts.comment',
      method: 'POST',
      path: '/account/alerts/{alert_id}/comments',
      tags: TAGS,
      summary: 'Add a comment to an alert’s history',
      access: 'account',
      errors: [404],
      input: AlertCommentInput,
      output: AlertDetail,
      handler: async (input, ctx) => {
        const { customerId, tokenId } = analystOf(ctx.caller);
        return found(await alerts.comment(customerId, input.alert_id, input.text, { tokenId }));
      },
    }),
  ];
}
