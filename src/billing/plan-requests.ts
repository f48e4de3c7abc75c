import type { Db } from '../store/db.js';
import { changeQuotas, NotFound, type CustomerService, type QuotaChange } from './customers.js';

export type PlanRequestStatus = 'pending' | 'approved' | 'declined' | 'cancelled';

export interface PlanRequest {
  id: number;
  customer_id: number;
  customer_name: string;
  /** The customer's plan when the request was listed (null: an own quota without plan). */
  current_plan: string | null;
  plan_id: number;
  plan: string;
  monthly_quota: number;
  status: PlanRequestStatus;
  note: string | null;
  decision_note: string | null;
  created_at: Date;
  decided_at: Date | null;
}

/** A request that cannot change state (already decided, or another one waits). */
export class PlanRequestConflict extends Error {}

const SELECT = `
  SELECT r.id, r.customer_id, c.name AS customer_name, cp.name AS current_plan, r.plan_id, p.name AS plan,
         p.monthly_quota, r.status, r.note, r.decision_note, r.created_at, r.decided_at
    FROM plan_requests r
    JOIN customers c ON c.id = r.customer_id
    JOIN plans p ON p.id = r.plan_id
    LEFT JOIN plans cp ON cp.id = c.plan_id`;

/**
 * Customers' requests for another plan (the dashboard's billing page) and the operator's
 * decisions. Approving moves the customer to the plan, its own quota cleared, in the same
 * transaction that records the decision.
 */
export class PlanRequests {
  constructor(
    private readonly db: Db,
    private readonly customers: CustomerService,
  ) {}

  async get(id: number): Promise<PlanRequest | null> {
    const { rows } = await this.db.query<PlanRequest>(`${SELECT} WHERE r.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Newest first; a customer's own, or every customer's (optionally one status). */
  async list(filter: { customerId?: number; status?: PlanRequestStatus; limit: number }): Promise<PlanRequest[]> {
    const { rows } = await this.db.query<PlanRequest>(
      `${SELECT} WHERE ($1::integer IS NULL OR r.customer_id = $1) AND ($2::text IS NULL OR r.status = $2) ORDER BY r.id DESC LIMIT $3`,
      [filter.customerId ?? null, filter.status ?? null, filter.limit],
    );
    return rows;
  }

  async create(customerId: number, planId: number, note: string | null): Promise<PlanRequest> {
    const customer = await this.customers.getCustomer(customerId);
    if (!customer) throw new NotFound(`customer ${customerId} not found`);
    if (!(await this.customers.findPlan(planId))) throw new NotFound(`plan ${planId} not found`);
    if (customer.plan_id === planId) throw new PlanRequestConflict('you are already on this plan');
    try {
      const { rows } = await this.db.query<{ id: number }>(
        'INSERT INTO plan_requests (customer_id, plan_id, note) VALUES ($1, $2, $3) RETURNING id',
        [customerId, planId, note],
      );
      return (await this.get(rows[0].id))!;
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new PlanRequestConflict('another plan request is waiting for a decision');
      throw err;
    }
  }

  /** The customer withdraws a pending request. */
  cancel(customerId: number, id: number): Promise<PlanRequest> {
    return this.decide(id, 'cancelled', null, customerId);
  }

  /** The operator's decision on a pending request; approval moves the customer to the plan. */
  async decide(
    id: number,
    status: 'approved' | 'declined' | 'cancelled',
    note: string | null,
    customerId?: number,
  ): Promise<PlanRequest> {
    const changes = await this.db.transaction(async (tx): Promise<QuotaChange[]> => {
      const { rows } = await tx.query<{ customer_id: number; plan_id: number; status: PlanRequestStatus }>(
        'SELECT customer_id, plan_id, status FROM plan_requests WHERE id = $1 AND ($2::integer IS NULL OR customer_id = $2) FOR UPDATE',
        [id, customerId ?? null],
      );
      const r = rows[0];
      if (!r) throw new NotFound(`plan request ${id} not found`);
      if (r.status !== 'pending') throw new PlanRequestConflict(`the request is already ${r.status}`);
      await tx.query('UPDATE plan_requests SET status = $2, decision_note = $3, decided_at = now() WHERE id = $1', [
        id,
        status,
        note,
      ]);
      if (status !== 'approved') return [];
      return changeQuotas(
        tx,
        `UPDATE customers SET quota_generation = quota_generation + 1, plan_id = $2, monthly_quota = NULL
          WHERE id = $1 RETURNING id, quota_generation`,
        [r.customer_id, r.plan_id],
      );
    });
    this.customers.quotasChanged(changes);
    return (await this.get(id))!;
  }
}
