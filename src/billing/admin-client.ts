import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { openDb } from '../store/open.js';
import { migrate } from '../store/migrate.js';
import { pgliteHolder } from '../store/pglite.js';
import { CustomerService, NotFound } from './customers.js';
import { QuotaManager } from './quota.js';
import { TokenService, type TokenScope } from './tokens.js';
import { customerDetailView, customerView, planView, tokenView } from './views.js';

type CustomerView = ReturnType<typeof customerView>;
type CustomerDetailView = ReturnType<typeof customerDetailView>;
type PlanView = ReturnType<typeof planView>;
type TokenView = ReturnType<typeof tokenView>;

/**
 * What the operator CLI does, either straight on the control-plane database or through a running
 * server's admin API (same JSON either way).
 */
export interface AdminClient {
  /** What the client works on, as the CLI tells the operator. */
  readonly via: string;
  createCustomer(input: { name: string; plan_id?: number; monthly_quota?: number }): Promise<CustomerView>;
  listCustomers(): Promise<CustomerView[]>;
  getCustomer(id: number): Promise<CustomerDetailView>;
  updateCustomer(
    id: number,
    change: { name?: string; plan_id?: number | null; monthly_quota?: number | null },
  ): Promise<CustomerDetailView>;
  createPlan(name: string, monthlyQuota: number): Promise<PlanView>;
  listPlans(): Promise<PlanView[]>;
  findPlan(idOrName: string): Promise<PlanView>;
  updatePlan(id: number, monthlyQuota: number): Promise<PlanView>;
  createToken(customerId: number, name?: string, scopes?: TokenScope[]): Promise<TokenView & { token: string }>;
  listTokens(customerId: number): Promise<TokenView[]>;
  revokeToken(tokenId: number): Promise<TokenView>;
  close(): Promise<void>;
}

/**
 * `server` (a base URL) → the admin API with ADMIN_KEY. Else `DATABASE_URL` → that database.
 * Else the embedded PGlite in DATA_DIR — unless the running server holds it, in which case the
 * CLI talks to that server on 127.0.0.1:PORT (needs ADMIN_KEY).
 */
export async function openAdminClient(cfg: Config, opts: { server?: string } = {}): Promise<AdminClient> {
  if (opts.server) return httpClient(opts.server, cfg.ADMIN_KEY);
  if (!cfg.DATABASE_URL) {
    const holder = pgliteHolder(join(cfg.DATA_DIR, 'pglite'));
    if (holder !== null) {
      if (!cfg.ADMIN_KEY) {
        throw new Error(
          `the server (pid ${holder}) holds the embedded database in ${cfg.DATA_DIR}: set ADMIN_KEY to go through its admin API, stop it, or use DATABASE_URL`,
        );
      }
      return httpClient(`http://127.0.0.1:${cfg.PORT}`, cfg.ADMIN_KEY);
    }
  }
  return directClient(cfg);
}

async function directClient(cfg: Config): Promise<AdminClient> {
  const db = await openDb(cfg);
  await migrate(db);
  const customers = new CustomerService(db, cfg.DEFAULT_MONTHLY_QUOTA);
  const tokens = new TokenService(db, { cacheSeconds: cfg.TOKEN_CACHE_SECONDS });
  const quota = new QuotaManager(db, { leaseSize: cfg.QUOTA_LEASE_SIZE });
  const detail = async (id: number) => {
    const [c, q] = await Promise.all([customers.getCustomer(id), quota.status(id)]);
    if (!c || !q) throw new NotFound(`customer ${id} not found`);
    return customerDetailView(c, q);
  };
  const needCustomer = async (id: number) => {
    if (!(await customers.getCustomer(id))) throw new NotFound(`customer ${id} not found`);
  };
  return {
    via:
      db.kind === 'pglite'
        ? `the embedded database in ${resolve(cfg.DATA_DIR, 'pglite')}`
        : 'the PostgreSQL database of DATABASE_URL',
    createCustomer: async (i) =>
      customerView(await customers.createCustomer({ name: i.name, planId: i.plan_id, monthlyQuota: i.monthly_quota })),
    listCustomers: async () => (await customers.listCustomers({ limit: 1_000_000 })).map(customerView),
    getCustomer: detail,
    updateCustomer: async (id, c) => {
      await customers.updateCustomer(id, { name: c.name, planId: c.plan_id, monthlyQuota: c.monthly_quota });
      return detail(id);
    },
    createPlan: async (name, q) => planView(await customers.createPlan(name, q)),
    listPlans: async () => (await customers.listPlans()).map(planView),
    findPlan: async (key) => {
      const p = await customers.findPlan(/^\d+$/.test(key) ? Number(key) : key);
      if (!p) throw new NotFound(`plan ${key} not found`);
      return planView(p);
    },
    updatePlan: async (id, q) => planView(await customers.updatePlan(id, q)),
    createToken: async (customerId, name, scopes) => {
      await needCustomer(customerId);
      const { token, record } = await tokens.create(customerId, name ?? null, scopes);
      return { ...tokenView(record), token };
    },
    listTokens: async (customerId) => {
      await needCustomer(customerId);
      return (await tokens.list(customerId)).map(tokenView);
    },
    revokeToken: async (tokenId) => {
      const r = await tokens.revoke(tokenId);
      if (!r) throw new NotFound(`token ${tokenId} not found`);
      return tokenView(r);
    },
    close: () => db.close(),
  };
}

function httpClient(base: string, adminKey: string | undefined): AdminClient {
  if (!adminKey) throw new Error('ADMIN_KEY is required to use the admin API');
  const root = `${base.replace(/\/+$/, '')}/api/v1/admin`;
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${root}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: reported as text below */
    }
    if (!res.ok) {
      const detail = (parsed as { detail?: unknown })?.detail ?? text;
      throw new Error(
        `${method} ${path}: ${res.status} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`,
      );
    }
    return parsed as T;
  }
  return {
    via: `the admin API of the server at ${base}`,
    createCustomer: (i) => call('POST', '/customers', i),
    listCustomers: async () => {
      const all: CustomerView[] = [];
      for (let offset = 0; ; offset += 1000) {
        const page = await call<CustomerView[]>('GET', `/customers?limit=1000&offset=${offset}`);
        all.push(...page);
        if (page.length < 1000) return all;
      }
    },
    getCustomer: (id) => call('GET', `/customers/${id}`),
    updateCustomer: (id, c) => call('POST', `/customers/${id}`, c),
    createPlan: (name, monthly_quota) => call('POST', '/plans', { name, monthly_quota }),
    listPlans: () => call('GET', '/plans'),
    findPlan: async (key) => {
      const p = (await call<PlanView[]>('GET', '/plans')).find((x) => String(x.id) === key || x.name === key);
      if (!p) throw new NotFound(`plan ${key} not found`);
      return p;
    },
    updatePlan: (id, monthly_quota) => call('POST', `/plans/${id}`, { monthly_quota }),
    createToken: (customerId, name, scopes) =>
      call('POST', `/customers/${customerId}/tokens`, { ...(name ? { name } : {}), ...(scopes ? { scopes } : {}) }),
    listTokens: (customerId) => call('GET', `/customers/${customerId}/tokens`),
    revokeToken: (tokenId) => call('DELETE', `/tokens/${tokenId}`),
    close: async () => undefined,
  };
}
