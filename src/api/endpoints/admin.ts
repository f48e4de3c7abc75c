import { z } from 'zod';
import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import { conflict, notFound } from '../../core/errors.js';
import { NotFound, type CustomerService } from '../../billing/customers.js';
import type { QuotaManager } from '../../billing/quota.js';
import type { TokenService } from '../../billing/tokens.js';
import { customerDetailView, customerView, planView, tokenView } from '../../billing/views.js';
import {
  ApiToken,
  CreatedApiToken,
  Customer,
  CustomerCreateInput,
  CustomerDetail,
  CustomerIdInput,
  CustomerUpdateInput,
  PageInput,
  Plan,
  PlanCreateInput,
  PlanUpdateInput,
  TokenCreateInput,
  TokenIdInput,
} from '../schemas/billing.js';

export interface AdminDeps {
  tokens: TokenService;
  quota: QuotaManager;
  customers: CustomerService;
}

const TAGS = ['admin'];

/** Turns the store's NotFound and unique violations into HTTP answers. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotFound) throw notFound(err.message);
    if ((err as { code?: string }).code === '23505') throw conflict('Already exists');
    throw err;
  }
}

/** The operator's API under `/admin` (bearer ADMIN_KEY): customers, plans, tokens. */
export function adminEndpoints(deps: AdminDeps): AnyEndpoint[] {
  const { tokens, quota, customers } = deps;
  const detail = async (id: number) => {
    const [c, q] = await Promise.all([customers.getCustomer(id), quota.status(id)]);
    if (!c || !q) throw notFound(`customer ${id} not found`);
    return customerDetailView(c, q);
  };
  return [
    endpoint({
      id: 'admin.customers.list',
      method: 'GET',
      path: '/admin/customers',
      tags: TAGS,
      summary: 'List customers with this month’s quota and use',
      access: 'admin',
      input: PageInput,
      output: z.array(CustomerDetail),
      handler: async (input) => {
        const list = await customers.listCustomers(input);
        const quotas = await quota.statuses(list.map((c) => c.id));
        return list.flatMap((c) => {
          const q = quotas.get(c.id);
          return q ? [customerDetailView(c, q)] : [];
        });
      },
    }),
    endpoint({
      id: 'admin.customers.create',
      method: 'POST',
      path: '/admin/customers',
      tags: TAGS,
      summary: 'Create a customer',
      access: 'admin',
      errors: [404],
      input: CustomerCreateInput,
      output: Customer,
      handler: (input) =>
        mapped(async () =>
          customerView(
            await customers.createCustomer({
              name: input.name,
              planId: input.plan_id,
              monthlyQuota: input.monthly_quota,
            }),
          ),
        ),
    }),
    endpoint({
      id: 'admin.customers.get',
      method: 'GET',
      path: '/admin/customers/{customer_id}',
      tags: TAGS,
      summary: 'One customer and this month’s quota',
      access: 'admin',
      errors: [404],
      input: CustomerIdInput,
      output: CustomerDetail,
      handler: (input) => detail(input.customer_id),
    }),
    endpoint({
      id: 'admin.customers.update',
      method: 'POST',
      path: '/admin/customers/{customer_id}',
      tags: TAGS,
      summary: 'Change a customer’s name, plan or own quota',
      description:
        'A new quota applies to the current month on every node at once: the credits they hold on lease are revoked.',
      access: 'admin',
      errors: [404],
      input: CustomerUpdateInput,
      output: CustomerDetail,
      handler: (input) =>
        mapped(async () => {
          await customers.updateCustomer(input.customer_id, {
            name: input.name,
            planId: input.plan_id,
            monthlyQuota: input.monthly_quota,
          });
          return detail(input.customer_id);
        }),
    }),
    endpoint({
      id: 'admin.plans.list',
      method: 'GET',
      path: '/admin/plans',
      tags: TAGS,
      summary: 'List plans',
      access: 'admin',
      input: z.object({}).strict(),
      output: z.array(Plan),
      handler: async () => (await customers.listPlans()).map(planView),
    }),
    endpoint({
      id: 'admin.plans.create',
      method: 'POST',
      path: '/admin/plans',
      tags: TAGS,
      summary: 'Create a plan',
      access: 'admin',
      errors: [409],
      input: PlanCreateInput,
      output: Plan,
      handler: (input) => mapped(async () => planView(await customers.createPlan(input.name, input.monthly_quota))),
    }),
    endpoint({
      id: 'admin.plans.update',
      method: 'POST',
      path: '/admin/plans/{plan_id}',
      tags: TAGS,
      summary: 'Change a plan’s monthly quota',
      access: 'admin',
      errors: [404],
      input: PlanUpdateInput,
      output: Plan,
      handler: (input) => mapped(async () => planView(await customers.updatePlan(input.plan_id, input.monthly_quota))),
    }),
    endpoint({
      id: 'admin.tokens.list',
      method: 'GET',
      path: '/admin/customers/{customer_id}/tokens',
      tags: TAGS,
      summary: 'A customer’s API tokens',
      access: 'admin',
      errors: [404],
      input: CustomerIdInput,
      output: z.array(ApiToken),
      handler: async (input) => {
        if (!(await customers.getCustomer(input.customer_id)))
          throw notFound(`customer ${input.customer_id} not found`);
        return (await tokens.list(input.customer_id)).map(tokenView);
      },
    }),
    endpoint({
      id: 'admin.tokens.create',
      method: 'POST',
      path: '/admin/customers/{customer_id}/tokens',
      tags: TAGS,
      summary: 'Create an API token for a customer (shown once)',
      access: 'admin',
      errors: [404],
      input: CustomerIdInput.extend(TokenCreateInput.shape).strict(),
      output: CreatedApiToken,
      handler: async (input) => {
        if (!(await customers.getCustomer(input.customer_id)))
          throw notFound(`customer ${input.customer_id} not found`);
        const { token, record } = await tokens.create(input.customer_id, input.name ?? null, input.scopes);
        return { ...tokenView(record), token };
      },
    }),
    endpoint({
      id: 'admin.tokens.revoke',
      method: 'DELETE',
      path: '/admin/tokens/{token_id}',
      tags: TAGS,
      summary: 'Revoke an API token',
      access: 'admin',
      errors: [404],
      input: TokenIdInput,
      output: ApiToken,
      handler: async (input) => {
        const record = await tokens.revoke(input.token_id);
        if (!record) throw notFound(`token ${input.token_id} not found`);
        return tokenView(record);
      },
    }),
  ];
}
