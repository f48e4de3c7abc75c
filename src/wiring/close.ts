import type { MetricsWindow } from '../server/metrics.js';
import type { Billing } from './billing.js';
import type { FrontEnd } from './front-end.js';
import type { Lists } from './lists.js';
import type { Providers } from './providers.js';
import type { Advertisement } from './roles.js';
import type { Stores } from './stores.js';
import type { SubjectImports } from './subject-imports.js';
import type { Subjects } from './subjects.js';
import type { Webhooks } from './webhooks.js';

export interface Running {
  stores: Stores;
  lists: Lists;
  billing: Billing;
  providers: Providers;
  webhooks: Webhooks;
  frontEnd: FrontEnd;
  subjectImports: SubjectImports;
  subjects: Subjects;
  advertisement: Advertisement;
  recentTraffic: MetricsWindow;
  /** Resolves when the role change under way (if any) has ended. */
  roleChange(): Promise<void>;
}

/**
 * The graceful stop, in the order docs/shutdown.md describes: stop accepting and finish what was
 * received, then stop what produces work (role changes, list jobs and ingestion, ENS re-checks,
 * webhook deliveries), write back the caches that hold credits, flush the audit store, close the
 * stores and the engine last.
 */
export async function closeService(r: Running, drainMs: number): Promise<void> {
  await r.advertisement.update(false);
  await r.frontEnd.http.drain(drainMs);
  r.recentTraffic.stop();
  await r.lists.leadership.close();
  await r.roleChange();
  await r.lists.operations.stop();
  r.lists.jobs.stop();
  await r.lists.manager().stop();
  await r.lists.notifier.close();
  await r.webhooks.ensMonitor.stop();
  await r.webhooks.delivery.stop();
  await r.subjectImports.importer.stop();
  await r.subjects.rescreens.stop();
  r.providers.ipintel.close();
  r.frontEnd.idempotency.close();
  await r.billing.quota.close();
  await r.billing.tokens.close();
  await r.stores.audit.close();
  await r.billing.alertingMatches.idle();
  await r.stores.db.close();
  await r.lists.engine.close();
}
