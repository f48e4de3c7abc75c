import { NameLists } from '../api/endpoints/names.js';
import { SubjectScreener } from '../subjects/screen.js';
import { SubjectStore } from '../subjects/store.js';
import type { WiringContext } from './context.js';
import type { Providers } from './providers.js';
import type { Stores } from './stores.js';

/** Customers' books of subjects (issue #39): where they are kept and how a subject is screened. */
export interface Subjects {
  store: SubjectStore;
  screener: SubjectScreener;
  /** Re-screens a customer's book after its name threshold changed: the job's id. */
  onThresholdChange?: (customerId: number) => Promise<number>;
}

export function startSubjects({ config }: WiringContext, { db }: Stores, { screening }: Providers): Subjects {
  return {
    store: new SubjectStore(db, { maxPerCustomer: config.SUBJECTS_PER_CUSTOMER }),
    screener: new SubjectScreener(screening, new NameLists(screening)),
  };
}
