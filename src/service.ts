import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { publicBaseUrl, type Config } from './config.js';
import { createLogger } from './server/log.js';
import { Metrics, MetricsWindow } from './server/metrics.js';
import { createHttpApp, type HttpServer } from './server/app.js';
import { RateLimiter } from './core/rate-limit.js';
import { buildOpenApiDocument, buildTrpcRouter } from './api/trpc.js';
import type { AnyEndpoint } from './core/endpoint.js';
import type { PipelineDeps } from './core/pipeline.js';
import { Engine } from '../engine/engine.js';
import { LISTS } from '../loaders/registry.js';
import { ListManager } from '../loaders/manager.js';
import { ListCatalog } from './lists/catalog.js';
import { EnsResolver } from './ens/resolver.js';
import { screeningEndpoints, type ScreeningDeps } from './api/endpoints/screen.js';
import { batchEndpoint } from './api/endpoints/batch.js';
import { nameEndpoints } from './api/endpoints/names.js';
import { registerBatchRoute } from './server/batch-route.js';
import { publicEndpoints } from './api/endpoints/public.js';
import type { Db } from './store/db.js';
import { openDb } from './store/open.js';
import { migrate } from './store/migrate.js';
import { acquireLeadership, soleLeader, type Leadership } from './store/leader.js';
import { openAuditStore, type AuditStore } from './audit/store.js';
import { TokenService } from './billing/tokens.js';
import { IdempotencyStore } from './billing/idempotency.js';
import { QuotaManager } from './billing/quota.js';
import { CustomerService, parseQuotaChanges, QUOTA_CHANNEL } from './billing/customers.js';
import { OperatorSessions } from './billing/operator-sessions.js';
import { PlanRequests } from './billing/plan-requests.js';
import { createGate } from './billing/gate.js';
import { createPayments } from './billing/x402/index.js';
import { accountEndpoints } from './api/endpoints/account.js';
import { adminEndpoints } from './api/endpoints/admin.js';
import { analyticsEndpoints } from './api/endpoints/analytics.js';
import { operatorEndpoints } from './api/endpoints/operator.js';
import { createPepProvider } from './pep/index.js';
import { pepEndpoints } from './api/endpoints/pep.js';
import { createIpIntel, type IpIntel } from './ipintel/index.js';
import { ipIntelEndpoints } from './api/endpoints/ipintel.js';
import { createMcpServer, registerMcpRoute } from './mcp/index.js';
import {
  createEnsMonitor,
  createWebhookDelivery,
  createWebhookSink,
  ensNameResolver,
  WebhookStore,
} from './webhooks/index.js';
import { monitoringEndpoints } from './api/endpoints/monitoring.js';
import { alertEndpoints } from './api/endpoints/alerts.js';
import { AlertStore } from './alerts/store.js';
import { alertingAuditSink } from './alerts/sink.js';
import { changesEndpoint } from './api/endpoints/changes.js';
import { accountListEndpoints, adminListEndpoints, uploadHandler, type ListsDeps } from './api/endpoints/lists.js';
import { registerUploadRoute } from './server/upload-route.js';
import { ListJobs } from './lists/jobs.js';
import { removeCommitLeftovers, removeUploadLeftovers } from './lists/leftovers.js';
import { COMMITS_CHANNEL, ListOperations } from './lists/operations.js';
import { localNotifier, pgNotifier } from './store/notify.js';
import { nodeIdentity } from './store/node-identity.js';
import { advertise, localUrl, newOperatorKey } from './operator/service-file.js';
import { KINDS, type ScreeningKinds } from './core/kinds.js';

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
  const now = overrides.now ?? Date.now;
  const kinds = overrides.kinds ?? KINDS;
  mkdirSync(config.DATA_DIR, { recursive: true });
  const node = nodeIdentity(config.DATA_DIR, config.NODE_ID);
  const metrics = new Metrics();
  const recentTraffic = new MetricsWindow(() => metrics.allRoutes());
  recentTraffic.start();

  const db = await openDb(config);
  await migrate(db);
  const audit = await openAuditStore(config, { log, beforeRollupFill: overrides.beforeRollupFill });

  const engine = await Engine.create({ shards: config.ENGINE_SHARDS });
  const ens = new EnsResolver({
    rpcUrl: config.ETH_RPC_URL,
    universalResolver: config.ENS_UNIVERSAL_RESOLVER as `0x${string}` | undefined,
    ttlSeconds: config.ENS_CACHE_TTL_SECONDS,
    now,
  });
  const webhookLog = log.child({ component: 'webhooks' });
  const webhookPolicy = { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const ensNames = ensNameResolver(ens);
  const webhookStore = new WebhookStore(db, { policy: webhookPolicy, names: ensNames, now, kinds });
  const leadership = config.DATABASE_URL
    ? await acquireLeadership(config.DATABASE_URL, log.child({ component: 'leadership' }))
    : soleLeader();
  // Followers reload as soon as the leader commits (LISTEN/NOTIFY across nodes; a short poll of
  // the snapshot store besides).
  const notifier = config.DATABASE_URL
    ? pgNotifier(config.DATABASE_URL, log.child({ component: 'notify' }))
    : localNotifier();
  const announce = (slug: string) =>
    void notifier
      .notify(COMMITS_CHANNEL, slug)
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'commit not announced; followers poll'));
  let lists: ListManager;
  const catalog = new ListCatalog(LISTS, {
    generation: () => engine.generation(),
    served: () => engine.served(),
    definitions: () => lists.definitions(),
    history: (slug) => lists.history(slug),
  });
  const webhookSink = createWebhookSink({
    db,
    log: webhookLog,
    now,
    list: (slug) => catalog.definition(slug),
    kinds,
  });
  const listManager = (follower: boolean) =>
    new ListManager({
      config,
      engine,
      sinks: [audit.changes, webhookSink],
      follower,
      committed: follower ? undefined : announce,
      log: log.child({ component: 'lists', role: follower ? 'follower' : 'leader' }),
    });
  lists = listManager(!leadership.isLeader());
  notifier.listen(COMMITS_CHANNEL, () => {
    if (!leadership.isLeader())
      lists.reload().catch((err: unknown) => log.warn({ err }, 'reload after a commit failed'));
  });
  // Private lists stay out of the metrics, which anyone who reaches the node can read.
  metrics.listGauges(() =>
    Object.fromEntries(Object.entries(lists.status()).filter(([slug]) => !catalog.isPrivate(slug))),
  );
  const jobsLog = log.child({ component: 'list-jobs', node });
  if (leadership.isLeader()) await removeCommitLeftovers(config.DATA_DIR, jobsLog);
  await lists.start();
  const jobs = new ListJobs(db, { node, log: jobsLog, now });
  await jobs.abandonRunning();
  await removeUploadLeftovers(config.DATA_DIR, jobs, jobsLog);
  jobs.start();
  const operations = new ListOperations({
    jobs,
    manager: () => lists,
    isLeader: () => leadership.isLeader(),
    notifier,
    dataDir: config.DATA_DIR,
    log: jobsLog,
    limits: {
      listsPerCustomer: config.PRIVATE_LISTS_PER_CUSTOMER,
      rowsPerCustomer: config.PRIVATE_LIST_ROWS_PER_CUSTOMER,
    },
    // With an embedded database every job is queued by this process, which starts the leader (itself).
    pollMs: db.kind === 'pglite' ? null : undefined,
  });
  if (leadership.isLeader()) await operations.start();
  const operatorKey = newOperatorKey();

  // An embedded database has one process, this one: no other node revokes tokens, and each poll
  // costs PGlite milliseconds of this thread (docs/investigations/2026-11-26-idle-cpu-embedded-database.md).
  const tokens = new TokenService(db, {
    cacheSeconds: config.TOKEN_CACHE_SECONDS,
    now,
    log,
    pollRevocations: db.kind !== 'pglite',
  });
  tokens.start();
  // The usage rows of an embedded ClickHouse are this node's own: they settle what a crash left,
  // once the rows still on their way (a strict-mode log left by the crash) are inserted.
  const quota = new QuotaManager(db, {
    leaseSize: config.QUOTA_LEASE_SIZE,
    now,
    log,
    node,
    recordedUsage: config.CLICKHOUSE_URL
      ? undefined
      : async (month, ids) => {
          await audit.usage.flush();
          return audit.queries.quotaCredits(month, ids);
        },
    pollGenerations: db.kind !== 'pglite',
  });
  // Unsettled, the crash's share stays counted as leased until a later start settles it.
  await quota
    .recover()
    .catch((err: unknown) => log.error({ err }, 'the quota a crash left could not be settled; the next start retries'));
  quota.start();
  notifier.listen(QUOTA_CHANNEL, (payload) => quota.revoke(parseQuotaChanges(payload)));
  const customers = new CustomerService(db, config.DEFAULT_MONTHLY_QUOTA, (changes) => quota.revoke(changes));
  const planRequests = new PlanRequests(db, customers);
  const operatorSessions = new OperatorSessions(db, now);
  const payments = createPayments({ config, db, log: log.child({ component: 'x402' }), now });
  const alerts = new AlertStore(db);
  const alertingMatches = alertingAuditSink(audit.matches, alerts, log.child({ component: 'alerts' }));
  const gate = createGate({
    tokens,
    quota,
    payments,
    // The matches of metered requests open or update the customer's alerts (src/alerts/sink.ts).
    audit: alertingMatches,
    usage: audit.usage,
    settlements: audit.settlements,
    config,
    operatorSessions,
    localOperatorKey: operatorKey,
    now,
    log,
  });

  const screening: ScreeningDeps = { engine, catalog, ens, kinds };
  const pep = await createPepProvider({ config, log: log.child({ component: 'pep' }) });
  const ipintel: IpIntel = await createIpIntel({
    config,
    log: log.child({ component: 'ipintel' }),
    isSanctionedPlace: sanctionedPlace(engine, catalog),
  });

  const ensMonitor = createEnsMonitor({
    db,
    log: webhookLog,
    names: ensNames,
    now,
    intervalSeconds: config.ENS_CACHE_TTL_SECONDS,
    listings: (address) =>
      (engine.screenExact({ kind: 'crypto', value: address, lists: catalog.enabledSlugs as string[] }) ?? []).map(
        (h) => h.entity,
      ),
  });
  const delivery = createWebhookDelivery({
    db,
    log: webhookLog,
    policy: webhookPolicy,
    registry: metrics.registry,
    now,
  });
  delivery.start();
  if (leadership.isLeader()) ensMonitor.start();
  let port: number | null = null;
  let unadvertise: (() => Promise<void>) | null = null;
  /** The ingesting node tells local operator tools where it is (src/operator/service-file.ts). */
  const advertised = async (leader: boolean) => {
    if (leader && port !== null && !unadvertise)
      unadvertise = await advertise(config.DATA_DIR, { url: localUrl(config.HOST, port), operator_key: operatorKey });
    if (!leader && unadvertise) {
      await unadvertise();
      unadvertise = null;
    }
  };
  let roleChange: Promise<void> = Promise.resolve();
  leadership.onChange((leader) => {
    roleChange = roleChange
      .then(async () => {
        await operations.stop();
        await lists.stop();
        lists = listManager(!leader);
        if (leader) await removeCommitLeftovers(config.DATA_DIR, jobsLog);
        await lists.start();
        if (leader) {
          ensMonitor.start();
          await operations.start();
        } else await ensMonitor.stop();
        await advertised(leader);
      })
      .catch((err: unknown) => log.error({ err }, 'role change failed'));
  });

  const names = nameEndpoints(screening);
  const batch = batchEndpoint(screening, names.lists);
  const listsDeps: ListsDeps = {
    engine,
    catalog,
    status: () => lists.status(),
    operations,
    jobs,
    manager: () => lists,
    changes: (q) => audit.queries.changes(q),
  };
  const adminLists = adminListEndpoints(listsDeps);
  const accountLists = accountListEndpoints(listsDeps);
  const endpoints: AnyEndpoint[] = [
    ...screeningEndpoints(screening),
    ...names.endpoints,
    batch,
    ...pepEndpoints({ pep }),
    ...ipIntelEndpoints({ ipintel }),
    ...publicEndpoints({
      engine,
      catalog,
      status: () => lists.status(),
      primaryRefresh: () => lists.primaryRefresh(),
      searchLimiter: new RateLimiter(config.SEARCH_BURST, config.SEARCH_RATE_PER_SECOND, now),
      regexEnabled: config.SEARCH_REGEX_ENABLED,
      regexBudgetMs: config.SEARCH_REGEX_BUDGET_MS,
    }),
    changesEndpoint({
      catalog,
      changes: listsDeps.changes,
      limiter: new RateLimiter(config.SEARCH_BURST, config.SEARCH_RATE_PER_SECOND, now),
    }),
    ...accountEndpoints({ tokens, quota, customers, planRequests, audit, screening }),
    ...analyticsEndpoints({ analytics: audit.analytics, catalog, customers }),
    ...accountLists,
    ...monitoringEndpoints({ store: webhookStore, kinds }),
    ...alertEndpoints({ alerts }),
    ...adminEndpoints({ tokens, quota, customers }),
    ...adminLists,
    ...operatorEndpoints({
      sessions: operatorSessions,
      planRequests,
      catalog,
      lists: { status: () => lists.status() },
      health: {
        ready: () => lists.ready(),
        leader: () => leadership.isLeader(),
        node,
        window: () => recentTraffic.summary(),
      },
    }),
  ];

  const idempotency = new IdempotencyStore(db, log.child({ component: 'idempotency' }));
  idempotency.start();
  const pipeline: PipelineDeps = { gate, log, now, validateOutput: overrides.validateResponses ?? false, idempotency };
  const trpcRouter = buildTrpcRouter(endpoints, pipeline);
  const mcp = createMcpServer({ endpoints, kinds, pipeline, log: log.child({ component: 'mcp' }) });
  let document: unknown = null;
  const http: HttpServer = createHttpApp({
    endpoints,
    pipeline,
    log,
    metrics,
    trustedProxies: config.TRUSTED_PROXIES,
    trpcRouter,
    openApiDocument: () => (document ??= buildOpenApiDocument(trpcRouter, endpoints, publicBaseUrl(config))),
    ready: () => lists.ready(),
    extraRoutes: (app, helpers) => {
      registerBatchRoute(app, helpers, batch);
      registerMcpRoute(app, helpers, mcp);
      for (const [eps, access] of [
        [adminLists, 'admin'],
        [accountLists, 'account'],
      ] as const) {
        const ep = eps.find((e) => e.id.endsWith('.lists.upload'))!;
        registerUploadRoute(app, helpers, ep, config.LIST_UPLOAD_MAX_BYTES, uploadHandler(listsDeps, access));
      }
    },
  });

  let closed = false;
  return {
    config,
    log,
    engine,
    lists: () => lists,
    leadership,
    db,
    audit,
    tokens,
    customers,
    endpoints,
    kinds,
    pipeline,
    async listen() {
      port = await http.listen(config.HOST, config.PORT);
      await advertised(leadership.isLeader());
      // A rollup new to this database (or half-filled) is filled from the stored audit rows while
      // the service serves: on a large trail that takes minutes (docs/clickhouse.md).
      audit
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
      await advertised(false);
      await http.drain(config.SHUTDOWN_TIMEOUT_MS);
      recentTraffic.stop();
      await leadership.close();
      await roleChange;
      await operations.stop();
      jobs.stop();
      await lists.stop();
      await notifier.close();
      await ensMonitor.stop();
      await delivery.stop();
      ipintel.close();
      idempotency.close();
      await quota.close();
      await tokens.close();
      await audit.close();
      await alertingMatches.idle();
      await db.close();
      await engine.close();
    },
  };
}

/**
 * Whether a place lies under a country designation: the country itself is designated, or its
 * ISO 3166-2 region is (Crimea, Sevastopol, the so-called DNR and LNR). Null for an unknown country.
 */
function sanctionedPlace(
  engine: Engine,
  catalog: ListCatalog,
): (country: string, region: string | null) => boolean | null {
  const lists = catalog.enabledSlugs.filter((s) => catalog.get(s)?.kind === 'country_designations');
  const designated = (value: string) =>
    (engine.screenExact({ kind: 'country', value, lists }) ?? []).some((h) => h.match === 'exact');
  return (country, region) => {
    if (!country) return null;
    return designated(country) || (region !== null && designated(region));
  };
}
