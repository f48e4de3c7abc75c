import type { EnsMonitor } from '../webhooks/ens.js';
import type { WebhookDelivery } from '../webhooks/delivery.js';
import { createEnsMonitor, createWebhookDelivery, ensNameResolver, WebhookStore } from '../webhooks/index.js';
import type { WiringContext } from './context.js';
import type { Lists } from './lists.js';
import type { Stores } from './stores.js';

export interface Webhooks {
  store: WebhookStore;
  /** Re-checks monitored ENS names; runs on the leader only. */
  ensMonitor: EnsMonitor;
  delivery: WebhookDelivery;
}

/** Monitoring webhooks: their store, the ENS monitor (started when leading) and the delivery worker (started). */
export function startWebhooks(
  { config, log, now, kinds, metrics }: WiringContext,
  { db }: Stores,
  lists: Lists,
): Webhooks {
  const { engine, catalog } = lists;
  const webhookLog = log.child({ component: 'webhooks' });
  const policy = { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const names = ensNameResolver(lists.ens);
  const store = new WebhookStore(db, { policy, names, now, kinds });
  const ensMonitor = createEnsMonitor({
    db,
    log: webhookLog,
    names,
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
    policy,
    registry: metrics.registry,
    now,
    leaseMs: config.WEBHOOK_LEASE_MS,
  });
  delivery.start();
  if (lists.leadership.isLeader()) ensMonitor.start();
  return { store, ensMonitor, delivery };
}
