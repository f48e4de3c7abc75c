import type { Db, Queryable } from '../store/db.js';

export interface Plan {
  id: number;
  name: string;
  monthly_quota: number;
  created_at: Date;
}

export interface Customer {
  id: number;
  name: string;
  plan_id: number | null;
  plan_name: string | null;
  /** The customer's own quota, overriding the plan's; null means the plan's. */
  quota_override: number | null;
  /** The quota in force. */
  monthly_quota: number;
  created_at: Date;
}

export class NotFound extends Error {}

/** A customer whose quota changed, and the generation its leases must now carry. */
export interface QuotaChange {
  customerId: number;
  generation: number;
}

/** NOTIFY channel of quota changes; the payload is `id:generation,...`, or `*` for too many to name. */
export const QUOTA_CHANNEL = 'quota_changed';

/** Customers one NOTIFY payload names at most (a payload holds under 8000 bytes). */
const NAMED_MAX = 300;

/**
 * Runs `update`, an `UPDATE customers SET quota_generation = quota_generation + 1, ... RETURNING id,
 * quota_generation` of customers whose quota changes, and tells every node: PostgreSQL sends the
 * NOTIFY when the transaction commits.
 */
export async function changeQuotas(q: Queryable, update: string, params: unknown[]): Promise<QuotaChange[]> {
  const { rows } = await q.query<QuotaChange>(
    `WITH u AS (${update}),
          n AS (SELECT pg_notify('${QUOTA_CHANNEL}',
                  CASE WHEN count(*) > ${NAMED_MAX} THEN '*' ELSE string_agg(id || ':' || quota_generation, ',') END)
                  FROM u HAVING count(*) > 0)
     SELECT u.id AS "customerId", u.quota_generation AS generation FROM u, n`,
    params,
  );
  return rows;
}

/** Parses a QUOTA_CHANNEL payload; null means every customer. */
export function parseQuotaChanges(payload: string): QuotaChange[] | null {
  if (payload === '*') return null;
  return payload
    .split(',')
    .map((part) => part.split(':').map(Number))
    .filter(([id, generation]) => Number.isInteger(id) && Number.isInteger(generation))
    .map(([customerId, generation]) => ({ customerId, generation }));
}

const CUSTOMER_SELECT = `
  SELECT c.id, c.name, c.plan_id, p.name AS plan_name, c.monthly_quota AS quota_override,
         COALESCE(c.monthly_quota, p.monthly_quota) AS monthly_quota, c.created_at
    FROM customers c LEFT JOIN plans p ON p.id = c.plan_id`;

/** Customers and plans of the control plane. */
export class CustomerService {
  constructor(
    private readonly db: Db,
    /** Quota of a customer created with neither a plan nor a quota (DEFAULT_MONTHLY_QUOTA). */
    private readonly defaultQuota: number,
    /**
     * Told of every quota change this node makes, after its commit (null: every customer), so that
     * this node's leases are dropped before the change is answered; other nodes hear the NOTIFY.
     */
    readonly quotasChanged: (changes: QuotaChange[] | null) => void = () => undefined,
  ) {}

  async createPlan(name: string, monthlyQuota: number): Promise<Plan> {
    const { rows } = await this.db.query<Plan>(
      'INSERT INTO plans (name, monthly_quota) VALUES ($1, $2) RETURNING id, name, monthly_quota, created_at',
      [name, monthlyQuota],
    );
    return rows[0];
  }

  async updatePlan(id: number, monthlyQuota: number): Promise<Plan> {
    const { plan, changes } = await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<Plan>(
        'UPDATE plans SET monthly_quota = $2 WHERE id = $1 RETURNING id, name, monthly_quota, created_at',
        [id, monthlyQuota],
      );
      if (!rows[0]) throw new NotFound(`plan ${id} not found`);
      const changes = await changeQuotas(
        tx,
        `UPDATE customers SET quota_generation = quota_generation + 1
          WHERE plan_id = $1 AND monthly_quota IS NULL RETURNING id, quota_generation`,
        [id],
      );
      return { plan: rows[0], changes };
    });
    this.quotasChanged(changes.length > NAMED_MAX ? null : changes);
    return plan;
  }

  async listPlans(): Promise<Plan[]> {
    return (await this.db.query<Plan>('SELECT id, name, monthly_quota, created_at FROM plans ORDER BY id')).rows;
  }

  async findPlan(idOrName: number | string): Promise<Plan | null> {
    const { rows } = await this.db.query<Plan>(
      `SELECT id, name, monthly_quota, created_at FROM plans WHERE ${typeof idOrName === 'number' ? 'id' : 'name'} = $1`,
      [idOrName],
    );
    return rows[0] ?? null;
  }

  /** Creates a customer on a plan, with its own quota, or (neither given) with the default quota. */
  async createCustomer(input: {
    name: string;
    planId?: number | null;
    monthlyQuota?: number | null;
  }): Promise<Customer> {
    const planId = input.planId ?? null;
    const quota = input.monthlyQuota ?? (planId === null ? this.defaultQuota : null);
    if (planId !== null && !(await this.findPlan(planId))) throw new NotFound(`plan ${planId} not found`);
    const { rows } = await this.db.query<{ id: number }>(
      'INSERT INTO customers (name, plan_id, monthly_quota) VALUES ($1, $2, $3) RETURNING id',
      [input.name, planId, quota],
    );
    return (await this.getCustomer(rows[0].id)) as Customer;
  }

  /** Changes the plan and/or the quota override (`null` clears the override when a plan is set). */
  async updateCustomer(
    id: number,
    change: { planId?: number | null; monthlyQuota?: number | null; name?: string },
  ): Promise<Customer> {
    const current = await this.getCustomer(id);
    if (!current) throw new NotFound(`customer ${id} not found`);
    const planId = change.planId === undefined ? current.plan_id : change.planId;
    if (planId !== null && planId !== current.plan_id && !(await this.findPlan(planId)))
      throw new NotFound(`plan ${planId} not found`);
    let quota = change.monthlyQuota === undefined ? current.quota_override : change.monthlyQuota;
    if (planId === null && quota === null) quota = current.monthly_quota;
    const changes = await changeQuotas(
      this.db,
      `UPDATE customers SET quota_generation = quota_generation + 1, name = $2, plan_id = $3, monthly_quota = $4
        WHERE id = $1 RETURNING id, quota_generation`,
      [id, change.name ?? current.name, planId, quota],
    );
    this.quotasChanged(changes);
    return (await this.getCustomer(id)) as Customer;
  }

  async getCustomer(id: number): Promise<Customer | null> {
    const { rows } = await this.db.query<Customer>(`${CUSTOMER_SELECT} WHERE c.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Names of customers by id (ids without a customer are left out). */
  async names(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.query<{ id: number; name: string }>(
      'SELECT id, name FROM customers WHERE id = ANY($1::integer[])',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async listCustomers(opts: { limit?: number; offset?: number } = {}): Promise<Customer[]> {
    const { rows } = await this.db.query<Customer>(`${CUSTOMER_SELECT} ORDER BY c.id LIMIT $1 OFFSET $2`, [
      opts.limit ?? 1000,
      opts.offset ?? 0,
    ]);
    return rows;
  }
}
