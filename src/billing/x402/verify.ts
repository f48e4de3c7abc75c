import type { AnyEndpoint } from '../../core/endpoint.js';
import type { VerifiedPayment } from '../../core/payments.js';
import { priceOf, requirementV2 } from './challenge.js';
import { decodePayment, type DecodedPayment } from './decode.js';
import { discoveryOf } from './discovery.js';
import type { RemoteFacilitator } from './facilitator.js';
import type { OnChain } from './onchain.js';
import { nonceKey, type AuthorizationReservations } from './reservations.js';
import type { X402Settings } from './settings.js';
import { verifyLocally } from './verify-local.js';

/** What verification checks against: the settings, the clock, the reservations, and a route to simulate on. */
export interface VerifyRoute {
  s: X402Settings;
  nowSeconds: () => number;
  reservations: AuthorizationReservations;
  /** The chain to simulate the transfer on (preferred), else the remote facilitator's verify. */
  chain?: OnChain;
  facilitator?: RemoteFacilitator;
}

/** A payment verified for one request, its authorization reserved under `key` until settled or freed. */
export interface ReservedPayment {
  decoded: DecodedPayment;
  key: string;
}

/**
 * Decodes the payment header, checks it locally (signature, amount, payTo, asset, network,
 * window), reserves its authorization, and simulates the transfer; throws PaymentRefused with
 * the reason. A refused simulation frees the reservation again.
 */
export async function verifyAndReserve(
  v: VerifyRoute,
  header: string,
  endpoint: AnyEndpoint,
  url: string,
  credits: number,
): Promise<ReservedPayment> {
  const decoded = decodePayment(header);
  const amount = priceOf(v.s, credits);
  await verifyLocally(
    v.s,
    decoded,
    { url, amount, requirement: requirementV2(v.s, amount), extensions: discoveryOf(endpoint).extensions },
    v.nowSeconds(),
  );
  const key = nonceKey(v.s, decoded);
  await v.reservations.reserve(key, Number(decoded.authorization.validBefore));
  try {
    if (v.chain) await v.chain.simulate(decoded.authorization, decoded.signature);
    else if (v.facilitator) await v.facilitator.verify(endpoint, url, decoded);
  } catch (err) {
    await v.reservations.free(key);
    throw err;
  }
  return { decoded, key };
}

/** The verified payment as the request pipeline sees it. */
export function verifiedPayment(s: X402Settings, decoded: DecodedPayment): VerifiedPayment {
  return {
    version: decoded.version,
    payer: decoded.authorization.from,
    amount: decoded.authorization.value,
    network: s.caip2,
    nonce: decoded.authorization.nonce,
  };
}
