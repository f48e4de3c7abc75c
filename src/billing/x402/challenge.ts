import type { PaymentRequired, PaymentRequirements, PaymentRequirementsV1 } from '@x402/core/types';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { AnyEndpoint } from '../../core/endpoint.js';
import type { ChallengeOptions } from '../../core/payments.js';
import { HttpError, paymentRequired } from '../../core/errors.js';
import { discoveryOf } from './discovery.js';
import { MAX_TIMEOUT_SECONDS, type X402Settings } from './settings.js';

/** How the service names itself in v2's `resource` (bazaar catalogs show it). */
export interface ServiceInfo {
  serviceName: string;
  /** Absolute URL; default: `/favicon.ico` on the origin of the requested resource. */
  iconUrl?: string;
}

/** The v1 challenge body (SPEC "v1 challenge body fields"). */
interface ChallengeBodyV1 {
  x402Version: 1;
  error: string;
  accepts: PaymentRequirementsV1[];
  options: ChallengeOption[];
}

type ChallengeOption =
  | {
      type: 'pay_per_request';
      description: string;
      x402Versions: [1, 2];
      scheme: 'exact';
      network: string;
      caip2Network: string;
      asset: string;
      /** Base units of the asset (6 decimals). */
      amount: string;
      amountUsd: string;
      paymentHeaders: { v1: 'X-PAYMENT'; v2: 'PAYMENT-SIGNATURE' };
    }
  | { type: 'upgrade_plan'; description: string; url: string };

export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED';

/** The price of a request of `credits` credits, in base units. */
export function priceOf(s: X402Settings, credits: number): bigint {
  if (!Number.isSafeInteger(credits) || credits < 1)
    throw new RangeError(`credits must be a positive integer, got ${credits}`);
  return s.price * BigInt(credits);
}

export function requirementV1(
  s: X402Settings,
  endpoint: AnyEndpoint,
  url: string,
  amount: bigint,
): PaymentRequirementsV1 {
  return {
    scheme: 'exact',
    network: s.v1Name as PaymentRequirementsV1['network'],
    maxAmountRequired: amount.toString(),
    resource: url,
    description: endpoint.summary,
    mimeType: 'application/json',
    outputSchema: discoveryOf(endpoint).v1OutputSchema,
    payTo: s.payTo ?? '',
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: s.asset,
    extra: { name: s.assetName, version: s.assetVersion },
  };
}

export function requirementV2(s: X402Settings, amount: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: s.caip2,
    amount: amount.toString(),
    payTo: s.payTo ?? '',
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: s.asset,
    extra: { name: s.assetName, version: s.assetVersion },
  };
}

function paymentRequiredV2(
  s: X402Settings,
  service: ServiceInfo,
  endpoint: AnyEndpoint,
  url: string,
  error: string,
  amount: bigint,
): PaymentRequired {
  return {
    x402Version: 2,
    error,
    resource: {
      url,
      description: endpoint.summary,
      mimeType: 'application/json',
      serviceName: service.serviceName,
      tags: endpoint.tags,
      iconUrl: service.iconUrl ?? iconFor(url),
    },
    accepts: s.disabledReason ? [] : [requirementV2(s, amount)],
    extensions: discoveryOf(endpoint).extensions,
  };
}

/**
 * The 402 of both generations at once: v1's JSON body and v2's base64 `PAYMENT-REQUIRED` header,
 * with the same `error`. With payments off the shape stays, `accepts` is empty and `error` says why.
 */
export function buildChallenge(
  s: X402Settings,
  service: ServiceInfo,
  endpoint: AnyEndpoint,
  url: string,
  opts: ChallengeOptions,
): HttpError {
  const amount = priceOf(s, opts.credits);
  const error = s.disabledReason && opts.error !== s.disabledReason ? `${opts.error}; ${s.disabledReason}` : opts.error;
  const upgrade: ChallengeOption = {
    type: 'upgrade_plan',
    description: 'Upgrade the plan for a larger monthly quota of API requests',
    url: s.upgradeUrl,
  };
  const options: ChallengeOption[] = [];
  if (!s.disabledReason) {
    options.push({
      type: 'pay_per_request',
      description:
        'Pay this request with an x402 payment: an EIP-3009 transferWithAuthorization of the amount to payTo',
      x402Versions: [1, 2],
      scheme: 'exact',
      network: s.v1Name,
      caip2Network: s.caip2,
      asset: s.asset,
      amount: amount.toString(),
      amountUsd: usd(amount),
      paymentHeaders: { v1: 'X-PAYMENT', v2: 'PAYMENT-SIGNATURE' },
    });
  }
  // At quota exhaustion the customer's natural next step is the bigger plan, so it comes first.
  if (opts.quotaExhausted) options.unshift(upgrade);
  else options.push(upgrade);

  const body: ChallengeBodyV1 = {
    x402Version: 1,
    error,
    accepts: s.disabledReason ? [] : [requirementV1(s, endpoint, url, amount)],
    options,
  };
  const header = encodePaymentRequiredHeader(paymentRequiredV2(s, service, endpoint, url, error, amount));
  return paymentRequired(error, { [PAYMENT_REQUIRED_HEADER]: header, 'Cache-Control': 'no-store' }, body);
}

function iconFor(url: string): string | undefined {
  try {
    return new URL('/favicon.ico', url).toString();
  } catch {
    return undefined;
  }
}

/** Base units of a 6-decimal USD-pegged asset as a decimal string ("10000" → "0.01"). */
function usd(amount: bigint): string {
  const whole = amount / 1_000_000n;
  const frac = (amount % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}
