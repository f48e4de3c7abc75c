import type { Caller } from '../core/endpoint.js';
import type { Charge, CommitResult } from '../core/gate.js';

/** The result of a commit that adds no header (shared: a commit allocates nothing for it). */
export const NO_HEADERS: CommitResult = { headers: {} };

/** A charge that costs nothing: public, account and admin endpoints, and metered ones of 0 credits. */
export function freeCharge(caller: Caller): Charge {
  return { caller, settlesBeforeAnswer: false, commit: () => NO_HEADERS, release: () => undefined };
}

export const ANONYMOUS: Charge = freeCharge({ kind: 'anonymous' });
