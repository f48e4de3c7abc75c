import type { Customer, Plan } from './customers.js';
import type { PlanRequest } from './plan-requests.js';
import type { QuotaStatus } from './quota.js';
import type { TokenRecord } from './tokens.js';

/** Control-plane records as the management API (and the CLI's --json) show them. */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function tokenView(t: TokenRecord) {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    created_at: t.created_at.toISOString(),
    last_used_at: iso(t.last_used_at),
    revoked_at: iso(t.revoked_at),
    scopes: t.scopes,
  };
}

/** A plan change request as its customer sees it. */
export function planRequestView(r: PlanRequest) {
  return {
    id: r.id,
    plan_id: r.plan_id,
    plan: r.plan,
    monthly_quota: r.monthly_quota,
    status: r.status,
    note: r.note,
    decision_note: r.decision_note,
    created_at: r.created_at.toISOString(),
    decided_at: iso(r.decided_at),
  };
}

/** … and as the operator sees it. */
export function adminPlanRequestView(r: PlanRequest) {
  return {
    ...planRequestView(r),
    customer_id: r.customer_id,
    customer_name: r.customer_name,
    current_plan: r.current_plan,
  };
}

export function planView(p: Plan) {
  return { id: p.id, name: p.name, monthly_quota: p.monthly_quota, created_at: p.created_at.toISOString() };
}

export function customerView(c: Customer) {
  return {
    id: c.id,
    name: c.name,
    plan_id: c.plan_id,
    plan: c.plan_name,
    monthly_quota: c.monthly_quota,
    quota_override: c.quota_override,
    created_at: c.created_at.toISOString(),
  };
}

export function customerDetailView(c: Customer, quota: QuotaStatus) {
  return { ...customerView(c), quota };
}

const DAY = 86_400_000;

/** `from`/`to` days (UTC, both inclusive) → a half-open range in ms; defaults to the last 30 days. */
export function dayRange(input: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const to = (input.to ? Date.parse(`${input.to}T00:00:00Z`) : Math.floor(now / DAY) * DAY) + DAY;
  const from = input.from ? Date.parse(`${input.from}T00:00:00Z`) : to - 30 * DAY;
  return { from, to };
}
