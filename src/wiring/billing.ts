import { CustomerService, parseQuotaChanges, QUOTA_CHANNEL } from '../billing/customers.js';
import { createGate } from '../billing/gate.js';
import { OperatorSessions } from '../billing/operator-sessions.js';
import { PlanRequests } from '../billing/plan-requests.js';
import { QuotaManager } from '../billing/quota.js';
import { TokenService } from '../billing/tokens.js';
import { createPayments } from '../billing/x402/index.js';
import { alertingAuditSink, auditOnly, type AlertingSink } from '../alerts/sink.js';
import { AlertQueries } from '../alerts/queries.js';
import { AlertStore } from '../alerts/store.js';
import { REVIEW_CHANNEL, ReviewView } from '../alerts/review-view.js';
import type { Gate } from '../core/gate.js';
import { newOperatorKey } from '../operator/service-file.js';
import type { Notifier } from '../store/notify.js';
import type { WiringContext } from './context.js';
import type { Stores } from './stores.js';

export interface Billing {
  tokens: TokenService;
  quota: QuotaManager;
  customers: CustomerService;
  planRequests: PlanRequests;
  operatorSessions: OperatorSessions;
  gate: Gate;
  alerts: AlertStore;
  alertQueries: AlertQueries;
  /** The audit sink of metered matches, which also opens or updates the customer's alerts. */
  alertingMatches: AlertingSink;
  /** Customers' decided alerts, named in their screening answers (`metadata.review`). */
  reviews: ReviewView;
  /** The local operator key this node advertises when it leads (src/operator/service-file.ts). */
  operatorKey: string;
}

/** Tokens, quota (what a crash left settled first), customers, operator sessions, x402 payments and the gate. */
export async function startBilling(
  { config, log, now, node }: WiringContext,
  { db, audit }: Stores,
  notifier: Notifier,
): Promise<Billing> {
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
  const alerts = new AlertStore(db, { decisions: audit.alertDecisions, log: log.child({ component: 'alerts' }) });
  const alertingMatches = config.ALERTS
    ? alertingAuditSink(audit.matches, alerts, log.child({ component: 'alerts' }))
    : auditOnly(audit.matches);
  const reviews = new ReviewView(db, log.child({ component: 'alert-reviews' }));
  // The trigger of migration 077 announces every change of an alert's status: PGlite tells its own
  // listeners, a PostgreSQL server every node's notification connection.
  const changed = (payload: string) => reviews.changed(payload);
  if (db.listen) await db.listen(REVIEW_CHANNEL, changed);
  else notifier.listen(REVIEW_CHANNEL, changed);
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
  return {
    tokens,
    quota,
    customers,
    planRequests,
    operatorSessions,
    gate,
    alerts,
    alertQueries: new AlertQueries(db),
    alertingMatches,
    reviews,
    operatorKey,
  };
}
