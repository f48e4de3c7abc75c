import type { AnyEndpoint, RequestMeta } from './endpoint.js';
import type { HttpError } from './errors.js';

/**
 * The x402 side of the gate (src/billing/x402 implements it). The gate decides precedence (token
 * with quota first); this interface builds challenges, verifies a payment header locally and
 * settles it after the response is ready.
 */
export interface ChallengeOptions {
  /** Human-readable reason, the challenge's `error`. */
  error: string;
  /** Credits the request costs: the price is credits × the unit price. */
  credits: number;
  /** Extra ways to proceed shown in v1 `options` (e.g. upgrade the plan at quota exhaustion). */
  quotaExhausted?: boolean;
}

export interface VerifiedPayment {
  version: 1 | 2;
  payer: string;
  /** Amount authorized, base units. */
  amount: bigint;
  network: string;
  nonce: string;
}

export interface SettledPayment {
  transaction: string;
  network: string;
  payer: string;
  amount: bigint;
  /** Receipt header of the payment's generation (`X-PAYMENT-RESPONSE` or `PAYMENT-RESPONSE`). */
  headers: Record<string, string>;
}

export interface Payments {
  /** The 402 (body, `PAYMENT-REQUIRED` header) for this endpoint and request. */
  challenge(endpoint: AnyEndpoint, meta: RequestMeta, opts: ChallengeOptions): HttpError;
  /** True when the request carries `X-PAYMENT` or `PAYMENT-SIGNATURE` (or MCP `_meta`). */
  hasPayment(meta: RequestMeta): boolean;
  /** Verifies locally (signature, amount, payTo, asset, network, window, unused nonce, simulation); throws a 402 HttpError. */
  verify(endpoint: AnyEndpoint, meta: RequestMeta, credits: number): Promise<VerifiedPayment>;
  /** Settles after success; throws a fresh 402 HttpError when settlement fails. At most once per nonce. */
  settle(endpoint: AnyEndpoint, meta: RequestMeta, payment: VerifiedPayment): Promise<SettledPayment>;
  /** Frees a verified but unsettled authorization (the request failed). */
  release(payment: VerifiedPayment): void;
}
