import { z } from 'zod';
import { endpoint, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { badRequest, conflict, forbidden, notFound } from '../../core/errors.js';
import { NotFound } from '../../billing/customers.js';
import { OPERATOR_SESSION_SECONDS, type OperatorSessions } from '../../billing/operator-sessions.js';
import { PlanRequestConflict, type PlanRequests } from '../../billing/plan-requests.js';
import { adminPlanRequestView } from '../../billing/views.js';
import type { ListCatalog } from '../../lists/catalog.js';
import type { ListStatus } from '../../../loaders/manager.js';
import { AdminPlanChangeRequest, PlanDecisionInput, PlanRequestsInput } from '../schemas/billing.js';
import { ListStatusEntry, OperatorSession, OperatorSignOut, ServiceHealth } from '../schemas/operator.js';

export interface OperatorDeps {
  sessions: OperatorSessions;
  planRequests: PlanRequests;
  catalog: ListCatalog;
  lists: {
    status(): Record<string, ListStatus>;
  };
  health: {
    ready(): boolean;
    leader(): boolean;
    /** This node's identity (src/store/node-identity.ts). */
    node: string;
    /** The traffic of the last minute, from the metrics (src/server/metrics.ts). */
    window(): Omit<z.infer<typeof ServiceHealth>, 'ready' | 'leader' | 'node' | 'uptime_seconds'>;
  };
}

const TAGS = ['admin'];

/** The presented bearer token (the operator session being ended). */
function bearerToken(header: string | undefined): string | null {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1] ?? null;
}

function viaKey(caller: Caller): boolean {
  return caller.kind === 'admin' && caller.via === 'key';
}

/**
 * The operator's endpoints beside customers and plans: the browser session that stands in for
 * ADMIN_KEY, plan change requests, list status, and this node's health.
 */
export function operatorEndpoints(deps: OperatorDeps): AnyEndpoint[] {
  const { sessions, planRequests, catalog } = deps;
  const decide = (approve: boolean) =>
    endpoint({
      id: `admin.planRequests.${approve ? 'approve' : 'decline'}`,
      method: 'POST',
      path: `/admin/plan-requests/{request_id}/${approve ? 'approve' : 'decline'}`,
      tags: TAGS,
      summary: approve
        ? 'Approve a plan change request: the customer moves to the plan at once'
        : 'Decline a plan change request',
      description: approve
        ? 'The plan’s quota applies to the current month; an own quota of the customer is cleared.'
        : 'The customer sees the request as declined, with the note.',
      access: 'admin',
      errors: [404, 409],
      input: PlanDecisionInput,
      output: AdminPlanChangeRequest,
      handler: async (input) => {
        try {
          return adminPlanRequestView(
            await planRequests.decide(input.request_id, approve ? 'approved' : 'declined', input.note ?? null),
          );
        } catch (err) {
          if (err instanceof NotFound) throw notFound(err.message);
          if (err instanceof PlanRequestConflict) throw conflict(err.message);
          throw err;
        }
      },
    });
  return [
    endpoint({
      id: 'admin.session.create',
      method: 'POST',
      path: '/admin/session',
      tags: TAGS,
      summary: 'Exchange ADMIN_KEY for an operator session token (one hour)',
      description: `Call it with ADMIN_KEY as the bearer token. The session token is accepted on every /admin endpoint for ${OPERATOR_SESSION_SECONDS / 60} minutes, until DELETE /admin/session; the dashboard keeps only it, never the key.`,
      access: 'admin',
      errors: [403],
      input: z.object({}).strict(),
      output: OperatorSession,
      handler: async (_input, ctx) => {
        if (!viaKey(ctx.caller)) throw forbidden('An operator session cannot open another: sign in with ADMIN_KEY');
        const s = await sessions.create();
        return { token: s.token, expires_at: s.expires_at.toISOString(), expires_in: OPERATOR_SESSION_SECONDS };
      },
    }),
    endpoint({
      id: 'admin.session.delete',
      method: 'DELETE',
      path: '/admin/session',
      tags: TAGS,
      summary: 'Sign out: revoke the operator session token this request carries',
      description: 'Refused at once on every node.',
      access: 'admin',
      errors: [400],
      input: z.object({}).strict(),
      output: OperatorSignOut,
      handler: async (_input, ctx) => {
        const token = bearerToken(ctx.meta.headers.authorization);
        if (viaKey(ctx.caller) || !token)
          throw badRequest('Call it with the operator session token to end that session');
        await sessions.revoke(token);
        return { revoked: true as const };
      },
    }),
    endpoint({
      id: 'admin.planRequests.list',
      method: 'GET',
      path: '/admin/plan-requests',
      tags: TAGS,
      summary: 'Customers’ plan change requests, newest first',
      access: 'admin',
      input: PlanRequestsInput,
      output: z.array(AdminPlanChangeRequest),
      handler: async (input) =>
        (await planRequests.list({ status: input.status, limit: input.limit })).map(adminPlanRequestView),
    }),
    decide(true),
    decide(false),
    endpoint({
      id: 'admin.lists.status',
      method: 'GET',
      path: '/admin/lists/status',
      tags: TAGS,
      summary: 'Every list’s version, last check, last error and entity count on this node',
      description: 'The registry’s lists and the operator’s own. Refresh one with POST /admin/lists/{slug}/refresh.',
      access: 'admin',
      input: z.object({}).strict(),
      output: z.array(ListStatusEntry),
      handler: () => {
        const status = deps.lists.status();
        return catalog.publicDefinitions().map((d) => {
          const s = status[d.slug];
          return {
            slug: d.slug,
            display_name: d.display_name,
            list_type: d.list_type,
            kind: d.kind,
            cadence: d.cadence,
            enabled: d.enabled,
            in_default_set: d.enabled && d.in_default_set,
            loaded: s?.loaded ?? false,
            version: s?.version ?? null,
            last_checked: s?.last_checked ?? null,
            last_updated: s?.last_updated ?? null,
            last_error: s?.last_error ?? null,
            total: s?.total ?? 0,
          };
        });
      },
    }),
    endpoint({
      id: 'admin.health',
      method: 'GET',
      path: '/admin/health',
      tags: TAGS,
      summary: 'This node: readiness, and request rate, errors and latency per route over the last minute',
      description: 'From the same counters as /metrics.',
      access: 'admin',
      input: z.object({}).strict(),
      output: ServiceHealth,
      handler: () => ({
        ready: deps.health.ready(),
        leader: deps.health.leader(),
        node: deps.health.node,
        uptime_seconds: Math.round(process.uptime()),
        ...deps.health.window(),
      }),
    }),
  ];
}
