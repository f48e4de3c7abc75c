import { openAuditStore, type AuditStore } from '../audit/store.js';
import type { Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { openDb } from '../store/open.js';
import type { WiringContext } from './context.js';

export interface Stores {
  db: Db;
  audit: AuditStore;
}

/** The control-plane database (migrated) and the audit store. */
export async function openStores(
  { config, log }: WiringContext,
  beforeRollupFill: (() => Promise<void>) | undefined,
): Promise<Stores> {
  const db = await openDb(config);
  await migrate(db);
  const audit = await openAuditStore(config, { log, beforeRollupFill });
  return { db, audit };
}
