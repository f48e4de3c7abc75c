import type { AnyEndpoint, AuditMatch, Caller, RequestMeta } from './endpoint.js';

/**
 * The authenticate-and-charge step of the request pipeline, shared by every transport:
 * validate (→ 422) → gate.authorize (→ 401/402) → handler → charge.commit (usage + audit, then
 * x402 settlement) → send. An invalid request never reaches the gate; a failed handler calls
 * `charge.release()` and costs nothing.
 *
 * Both steps answer synchronously when nothing has to be waited for (a cached token, leased
 * quota, audit rows buffered): the hot path then runs without a promise. Failures always come as
 * rejected promises, never as synchronous throws.
 */
export interface Gate {
  authorize(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta): Charge | Promise<Charge>;
}

export interface CommitResult {
  /** Headers to add to the successful response (e.g. the x402 receipt). */
  headers: Record<string, string>;
}

export interface Charge {
  caller: Caller;
  /**
   * True when the charge is settled before the answer goes out (x402: its receipt is a header of
   * the answer), so a streamed answer cannot be charged for part of what it promised.
   */
  settlesBeforeAnswer: boolean;
  /**
   * The handler succeeded: record usage and audit rows, then settle a payment. Rejects with an
   * HttpError (a fresh 402) when settlement fails, in which case the response must be withheld.
   * `credits`: fewer than reserved when a streamed answer was cut off (quota only).
   */
  commit(result: { status: number; audit: AuditMatch[]; credits?: number }): CommitResult | Promise<CommitResult>;
  /**
   * AUDIT_STRICT, quota only: stores the rows of a part of a streamed answer before that part is
   * sent (one usage row per part, its credits, and its audit rows); rejects when they cannot be
   * stored, and the part must not be sent. Once a part was recorded, `commit` consumes the credits
   * recorded and stores no more rows, and `release` does the same.
   */
  record?(part: { audit: AuditMatch[]; credits: number }): Promise<void>;
  /** The handler failed: nothing is charged, a payment authorization stays unsettled. */
  release(reason: { status: number }): void;
}
