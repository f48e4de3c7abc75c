import type { Logger } from 'pino';
import type { Network } from '@x402/core/types';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { AnyEndpoint } from '../../core/endpoint.js';
import type { SettledPayment, VerifiedPayment } from '../../core/payments.js';
import type { DecodedPayment } from './decode.js';
import type { RemoteFacilitator } from './facilitator.js';
import { SettlementFailed, type WalletSettler } from './onchain.js';
import type { AuthorizationReservations } from './reservations.js';
import type { X402Settings } from './settings.js';

export const V1_RECEIPT_HEADER = 'X-PAYMENT-RESPONSE';
export const V2_RECEIPT_HEADER = 'PAYMENT-RESPONSE';

/** Where transfers go: the service's own wallet (preferred when both are set) or a remote facilitator. */
export interface SettleRoute {
  s: X402Settings;
  log: Logger;
  reservations: AuthorizationReservations;
  wallet?: WalletSettler;
  facilitator?: RemoteFacilitator;
}

/** A verified payment on its way to settlement: what it pays for and the state of its authorization. */
export interface Flight {
  endpoint: AnyEndpoint;
  url: string;
  credits: number;
  decoded: DecodedPayment;
  key: string;
  state: 'reserved' | 'settling' | 'settled' | 'released';
}

async function transfer(r: SettleRoute, flight: Flight): Promise<string> {
  const { decoded } = flight;
  try {
    if (r.wallet) return await r.wallet.settle(decoded.authorization, decoded.signature);
    if (r.facilitator) return await r.facilitator.settle(flight.endpoint, flight.url, decoded);
  } catch (err) {
    throw err instanceof SettlementFailed ? err : new SettlementFailed((err as Error).message, true);
  }
  throw new SettlementFailed('no settlement route is configured', false);
}

/**
 * Settles a reserved flight; returns the transaction. A failure throws SettlementFailed: when
 * nothing reached the chain the authorization is usable again, otherwise it stays reserved until
 * it expires, so that a transfer landing late cannot be paired with a second one.
 */
export async function settleFlight(
  r: SettleRoute,
  flight: Flight,
  requestId: string,
  payment: VerifiedPayment,
): Promise<string> {
  flight.state = 'settling';
  let transaction: string;
  try {
    transaction = await transfer(r, flight);
  } catch (err) {
    const failure = err as SettlementFailed;
    flight.state = 'released';
    if (!failure.mayHaveLanded) await r.reservations.free(flight.key);
    r.log.warn(
      { requestId, payer: payment.payer, reason: failure.message, transaction: failure.transaction },
      'x402 settlement failed',
    );
    throw failure;
  }
  flight.state = 'settled';
  await r.reservations.markSettled(flight.key, Number(flight.decoded.authorization.validBefore), transaction);
  r.log.info(
    { requestId, payer: payment.payer, amount: payment.amount.toString(), transaction },
    'x402 payment settled',
  );
  return transaction;
}

/** The reason a 402 gives for a failed settlement: whether the authorization can be used again. */
export function settlementFailureReason(failure: SettlementFailed): string {
  const outcome = failure.mayHaveLanded
    ? 'the response was withheld and this authorization cannot be used again, sign a fresh one'
    : 'the response was withheld and nothing was charged';
  return `payment settlement failed: ${failure.message}; ${outcome}`;
}

/** The settled payment with its receipt header, in the generation the client paid with. */
export function settledPayment(
  s: X402Settings,
  payment: VerifiedPayment,
  version: DecodedPayment['version'],
  transaction: string,
): SettledPayment {
  const receipt = { success: true, transaction, payer: payment.payer };
  const headers: Record<string, string> =
    version === 1
      ? { [V1_RECEIPT_HEADER]: encodePaymentResponseHeader({ ...receipt, network: s.v1Name as Network }) }
      : { [V2_RECEIPT_HEADER]: encodePaymentResponseHeader({ ...receipt, network: s.caip2 }) };
  return { transaction, network: s.caip2, payer: payment.payer, amount: payment.amount, headers };
}
