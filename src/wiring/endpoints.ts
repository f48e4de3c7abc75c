import { accountEndpoints } from '../api/endpoints/account.js';
import { adminEndpoints } from '../api/endpoints/admin.js';
import { analyticsEndpoints } from '../api/endpoints/analytics.js';
import { batchEndpoint } from '../api/endpoints/batch.js';
import { changesEndpoint } from '../api/endpoints/changes.js';
import { ipIntelEndpoints } from '../api/endpoints/ipintel.js';
import { accountListEndpoints, adminListEndpoints, type ListsDeps } from '../api/endpoints/lists.js';
import { monitoringEndpoints } from '../api/endpoints/monitoring.js';
import { alertEndpoints } from '../api/endpoints/alerts.js';
import { nameEndpoints } from '../api/endpoints/names.js';
import { operatorEndpoints } from '../api/endpoints/operator.js';
import { pepEndpoints } from '../api/endpoints/pep.js';
import { publicEndpoints } from '../api/endpoints/public.js';
import { screeningEndpoints } from '../api/endpoints/screen.js';
import { subjectEndpoints } from '../api/endpoints/subjects.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import { RateLimiter } from '../core/rate-limit.js';
import type { MetricsWindow } from '../server/metrics.js';
import type { Billing } from './billing.js';
import type { WiringContext } from './context.js';
import type { Lists } from './lists.js';
import type { Providers } from './providers.js';
import type { Stores } from './stores.js';
import type { SubjectImports } from './subject-imports.js';
import type { Subjects } from './subjects.js';
import type { Webhooks } from './webhooks.js';

export interface Endpoints {
  all: AnyEndpoint[];
  /** Served by their own routes besides (streamed batch answers, multipart uploads). */
  batch: AnyEndpoint;
  adminLists: AnyEndpoint[];
  accountLists: AnyEndpoint[];
  listsDeps: ListsDeps;
}

/** Every endpoint, in the order the OpenAPI document lists them. */
export function buildEndpoints(
  { config, now, kinds, node }: WiringContext,
  parts: {
    stores: Stores;
    lists: Lists;
    billing: Billing;
    providers: Providers;
    webhooks: Webhooks;
    subjects: Subjects;
    subjectImports: SubjectImports;
  },
  recentTraffic: MetricsWindow,
): Endpoints {
  const { audit } = parts.stores;
  const { engine, catalog, operations, jobs, leadership } = parts.lists;
  const { tokens, quota, customers, planRequests, operatorSessions } = parts.billing;
  const { screening, pep, ipintel } = parts.providers;
  const lists = parts.lists.manager;
  const names = nameEndpoints(screening);
  const batch = batchEndpoint(screening, names.lists);
  const listsDeps: ListsDeps = {
    engine,
    catalog,
    status: () => lists().status(),
    operations,
    jobs,
    manager: lists,
    changes: (q) => audit.queries.changes(q),
  };
  const adminLists = adminListEndpoints(listsDeps);
  const accountLists = accountListEndpoints(listsDeps);
  const all: AnyEndpoint[] = [
    ...screeningEndpoints(screening),
    ...names.endpoints,
    batch,
    ...pepEndpoints({ pep, reviews: parts.billing.reviews }),
    ...ipIntelEndpoints({ ipintel }),
    ...publicEndpoints({
      engine,
      catalog,
      status: () => lists().status(),
      primaryRefresh: () => lists().primaryRefresh(),
      searchLimiter: new RateLimiter(config.SEARCH_BURST, config.SEARCH_RATE_PER_SECOND, now),
      regexEnabled: config.SEARCH_REGEX_ENABLED,
      regexBudgetMs: config.SEARCH_REGEX_BUDGET_MS,
    }),
    changesEndpoint({
      catalog,
      changes: listsDeps.changes,
      limiter: new RateLimiter(config.SEARCH_BURST, config.SEARCH_RATE_PER_SECOND, now),
    }),
    ...accountEndpoints({
      tokens,
      quota,
      customers,
      planRequests,
      audit,
      screening,
      alerts: parts.billing.alerts,
      subjects: parts.subjects.store,
      onThresholdChange: parts.subjects.onThresholdChange,
    }),
    ...subjectEndpoints({
      store: parts.subjects.store,
      screener: parts.subjects.screener,
      matches: parts.billing.alertingMatches,
      rescreens: parts.subjects.rescreens,
    }),
    ...analyticsEndpoints({ analytics: audit.analytics, catalog, customers }),
    ...accountLists,
    ...parts.subjectImports.endpoints,
    ...monitoringEndpoints({ store: parts.webhooks.store, kinds }),
    ...alertEndpoints({
      alerts: parts.billing.alerts,
      queries: parts.billing.alertQueries,
      reviews: parts.billing.reviews,
      decisions: audit.decisionQueries,
    }),
    ...adminEndpoints({ tokens, quota, customers }),
    ...adminLists,
    ...operatorEndpoints({
      sessions: operatorSessions,
      planRequests,
      catalog,
      lists: { status: () => lists().status() },
      health: {
        ready: () => lists().ready(),
        leader: () => leadership.isLeader(),
        node,
        window: () => recentTraffic.summary(),
      },
    }),
  ];
  return { all, batch, adminLists, accountLists, listsDeps };
}
