import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLogger } from './server/log.js';
import { Metrics, MetricsWindow } from './server/metrics.js';
import type { AnyEndpoint } from './core/endpoint.js';
import type { PipelineDeps } from './core/pipeline.js';
import type { Engine } from '../engine/engine.js';
import type { ListManager } from '../loaders/manager.js';
import type { Db } from './store/db.js';
import type { Leadership } from './store/leader.js';
import type { AuditStore } from './audit/store.js';
import type { TokenService } from './billing/tokens.js';
import type { CustomerService } from './billing/customers.js';
import { nodeIdentity } from './store/node-identity.js';
import { KINDS, type ScreeningKinds } from './core/kinds.js';
import type { WiringContext } from './wiring/context.js';
import { openStores } from './wiring/stores.js';
import { startLists } from './wiring/lists.js';
import { startBilling } from './wiring/billing.js';
import { openProviders } from './wiring/providers.js';
import { startWebhooks } from './wiring/webhooks.js';
import { createAdvertisement, followLeadership } from './wiring/roles.js';
import { buildEndpoints } from './wiring/endpoints.js';
import { startSubjects, type Subjects } from './wiring/subjects.js';
import { createFrontEnd } from './wiring/front-end.js';
import { closeService } from './wiring/close.js';
import { startSubjectImports } from './wiring/subject-imports.js';

/**
 * Wires the service: engine and list manager, control-plane and audit stores, gate and payments,
 * every endpoint, the HTTP front end. `createService` loads the stored list snapshots before it
 * returns; fetching fresh versions continues in the background (see /readyz).
 */
export interface Service {
  config: Config;
  log: Logger;
  engine: Engine;
  /** The list manager of this node's current role (leader: ingests; follower: reloads the leader's snapshots). */
  lists(): ListManager;
  leadership: Leadership;
  db: Db;
  audit: AuditStore;
  tokens: TokenService;
  customers: CustomerService;
  /** Customers' books of subjects and their screener (issue #39). */
  subjects: Subjects;
  endpoints: readonly AnyEndpoint[];
  /** The kinds screened, batched and monitored. */
  kinds: ScreeningKinds;
  /** The request pipeline every transport runs (gate, handler, audit, settlement). */
  pipeline: PipelineDeps;
  /** Starts listening, then fills the audit rollups in the background; resolves with the bound port (PORT=0 picks a free one). */
  listen(): Promise<number>;
  /** Graceful stop: no new connections, finish in-flight requests, flush audit and usage, close stores. */
  close(): Promise<void>;
}

export interface ServiceOverrides {
  log?: Logger;
  now?: () => number;
  /** Check every response against its schema (tests turn this on). */
  validateResponses?: boolean;
  /** Awaited before the audit rollups' background fill begins (tests hold the fill with it). */
  beforeRollupFill?: () => Promise<void>;
  /** The kinds screened, batched and monitored (default: src/core/kinds.ts's table). */
  kinds?: ScreeningKinds;
}

export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const log = overrides.log ?? createLogger(config.LOG_LEVEL);
  mkdirSync(config.DATA_DIR, { recursive: true });
  const ctx: WiringContext = {
    config,
    log,
    now: overrides.now ?? Date.now,
    kinds: overrides.kinds ?? KINDS,
    node: nodeIdentity(config.DATA_DIR, config.NODE_ID),
    metrics: new Metrics(),
  };
  const recentTraffic = new MetricsWindow(() => ctx.metrics.allRoutes());
  recentTraffic.start();

  // Each step takes what the earlier ones made; closeService stops them in the order docs/shutdown.md gives.
  const stores = await openStores(ctx, overrides.beforeRollupFill);
  const lists = await startLists(ctx, stores);
  const billing = await startBilling(ctx, stores, lists.notifier);
  const providers = await openProviders(ctx, lists, billing.reviews);
  const webhooks = startWebhooks(ctx, stores, lists);
  const advertisement = createAdvertisement(config, billing.operatorKey);
  const roles = followLeadership(lists, webhooks, advertisement, log);
  const subjects = await startSubjects(ctx, stores, providers, billing);
  const subjectImports = await startSubjectImports(ctx, stores, billing, subjects);
  const endpoints = buildEndpoints(
    ctx,
    { stores, lists, billing, providers, webhooks, subjects, subjectImports },
    recentTraffic,
  );
  const frontEnd = createFrontEnd(
    ctx,
    { stores, lists, billing, endpoints, subjectImports },
    overrides.validateResponses ?? false,
  );
  const running = {
    stores,
    lists,
    billing,
    providers,
    webhooks,
    frontEnd,
    subjectImports,
    subjects,
    advertisement,
    recentTraffic,
    roleChange: roles.settled,
  };

  let closed = false;
  return {
    config,
    log,
    engine: lists.engine,
    lists: lists.manager,
    leadership: lists.leadership,
    db: stores.db,
    audit: stores.audit,
    tokens: billing.tokens,
    customers: billing.customers,
    subjects,
    endpoints: endpoints.all,
    kinds: ctx.kinds,
    pipeline: frontEnd.pipeline,
    async listen() {
      const port = await frontEnd.http.listen(config.HOST, config.PORT);
      advertisement.listening(port);
      await advertisement.update(lists.leadership.isLeader());
      // A rollup new to this database (or half-filled) is filled from the stored audit rows while
      // the service serves: on a large trail that takes minutes (docs/clickhouse.md).
      stores.audit
        .fillRollups()
        .catch((err: unknown) =>
          log.error(
            { err },
            'filling the audit rollups failed; top values are read from the rows until a start fills them',
          ),
        );
      return port;
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeService(running, config.SHUTDOWN_TIMEOUT_MS);
    },
  };
}
