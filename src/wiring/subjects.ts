import { NameLists } from '../api/endpoints/names.js';
import { SubjectScreener } from '../api/subject-screener.js';
import { Rescreens } from '../subjects/rescreen.js';
import { SubjectStore } from '../subjects/store.js';
import type { Billing } from './billing.js';
import type { WiringContext } from './context.js';
import type { Providers } from './providers.js';
import type { Stores } from './stores.js';

/** Customers' books of subjects (issue #39): where they are kept and how a subject is screened. */
export interface Subjects {
  store: SubjectStore;
  screener: SubjectScreener;
  /** Whole books screened again after a customer's name threshold changed. */
  rescreens: Rescreens;
  /** Re-screens a customer's book after its name threshold changed: the job's id (null: empty book). */
  onThresholdChange: (customerId: number) => Promise<number | null>;
}

/** The books, after failing the re-screens a previous run of this node left running. */
export async function startSubjects(
  { config, log, node }: WiringContext,
  { db }: Stores,
  { screening }: Providers,
  billing: Billing,
): Promise<Subjects> {
  const store = new SubjectStore(db, { maxPerCustomer: config.SUBJECTS_PER_CUSTOMER });
  const screener = new SubjectScreener(screening, new NameLists(screening));
  const rescreens = new Rescreens({
    db,
    subjects: store,
    screener,
    matches: billing.alertingMatches,
    log: log.child({ component: 'subject-rescreens' }),
    node,
    pageSize: config.BOOK_PAGE_SIZE,
  });
  await rescreens.abandonRunning();
  return { store, screener, rescreens, onThresholdChange: (customerId) => rescreens.start(customerId) };
}
