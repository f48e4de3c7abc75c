import { createHash } from 'node:crypto';
import { valueError, type ValidationFailed } from './errors.js';

/**
 * Idempotency-Key as the pipeline sees it: the header, what makes two requests the same, and the
 * store of outcomes (implemented over PostgreSQL in billing/idempotency.ts; docs/idempotency.md).
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** A stored answer, replayed as it was sent. */
export interface StoredOutcome {
  headers: Record<string, string>;
  /** The answer's body as sent: JSON, or NDJSON for a batch. */
  body: string;
}

export type Claim =
  /** This request runs; `complete` or `abandon` it. */
  { kind: 'claimed' } | { kind: 'replay'; outcome: StoredOutcome };

export interface Idempotency {
  /** Claims `key` for a request of `scope` (throws 409 while it runs elsewhere, 422 for a different request). */
  claim(scope: string, key: string, fingerprint: string, paymentDigest: string | null): Promise<Claim>;
  /** The stored answer of a request paid with exactly this payment header and key. */
  byPayment(paymentDigest: string, key: string, fingerprint: string): Promise<StoredOutcome | null>;
  complete(scope: string, key: string, outcome: StoredOutcome): Promise<void>;
  abandon(scope: string, key: string): Promise<void>;
}

/** The key of a request, or undefined without the header; a malformed key is a 422. */
export function idempotencyKey(headers: Record<string, string | undefined>): string | undefined {
  const key = headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (!KEY_RE.test(key)) {
    throw idempotencyKeyError(key, 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  return key;
}

/** The 422 of a key that cannot be used (malformed, or sent before with a different request). */
export function idempotencyKeyError(key: string, error: string): ValidationFailed {
  return valueError(['header', 'Idempotency-Key'], error, key);
}

/** What makes two requests "the same request": the endpoint and its validated input. */
export function fingerprint(endpointId: string, input: unknown): string {
  return createHash('sha256')
    .update(endpointId)
    .update('\n')
    .update(JSON.stringify(input) ?? '')
    .digest('hex');
}

export function paymentDigest(header: string): string {
  return createHash('sha256').update(header).digest('hex');
}
