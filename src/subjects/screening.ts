import type { AuditMatchRow } from '../audit/rows.js';
import type { StoredSubject } from './store.js';

/**
 * What screens subjects in bulk: src/api/subject-screener.ts builds the answers as the screening
 * endpoints do; imports and re-screens here only need this much of it (wired in src/wiring/subjects.ts).
 */

export interface SubjectScreening {
  /** The customer's name threshold (customers.name_threshold). */
  threshold: number;
  /** A `lists` filter (slugs); else the lists the customer screens by default. */
  lists?: string[];
  requestId: string;
  endpoint: string;
}

export interface BookScreener {
  screen(customerId: number, subjects: readonly StoredSubject[], opts: SubjectScreening): Promise<AuditMatchRow[]>;
}
