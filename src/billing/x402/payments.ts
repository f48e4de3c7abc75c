import type { Logger } from 'pino';
import type { Network } from '@x402/core/types';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { AnyEndpoint, RequestMeta } from '../../core/endpoint.js';
import type { Config } from '../../config.js';
import { HttpError, uriTooLong } from '../../core/errors.js';
import type { ChallengeOptions, Payments, SettledPayment, VerifiedPayment } from '../../core/payments.js';
import { buildChallenge, priceOf, requirementV2, type ServiceInfo } from './challenge.js';
import { decodePayment, paymentHeader, PaymentRefused, type DecodedPayment } from './decode.js';
import { discoveryOf } from './discovery.js';
import { remoteFacilitator, type RemoteFacilitator } from './facilitator.js';
import { MemoryNonceStore, SqlNonceStore, type NonceStore, type SqlDb } from './nonces.js';
import {
  onChain,
  publicClientOf,
  SettlementFailed,
  walletSettler,
  type OnChain,
  type WalletSettler,
} from './onchain.js';
import { AuthorizationReservations, nonceKey } from './reservations.js';
import { x402Settings } from './settings.js';
import { verifyLocally } from './verify-local.js';

export const V1_RECEIPT_HEADER = 'X-PAYMENT-RESPONSE';
export const V2_RECEIPT_HEADER = 'PAYMENT-RESPONSE';

export interface PaymentsDeps {
  config: Config;
  /** Store of used authorizations; default: a SqlNonceStore over `db` when given, else this process's memory. */
  nonces?: NonceStore;
  /** The control-plane database holding `x402_nonces` (migration 010), shared by every node. */
  db?: SqlDb;
  log: Logger;
  /** Clock in ms since epoch. */
  now?: () => number;
  service?: ServiceInfo;
  /** How often to poll the chain for a settlement receipt. */
  chainPollingMs?: number;
  receiptTimeoutMs?: number;
  facilitatorTimeoutMs?: number;
}

interface Flight {
  endpoint: AnyEndpoint;
  url: string;
  credits: number;
  decoded: DecodedPayment;
  key: string;
  state: 'reserved' | 'settling' | 'settled' | 'released';
}

/** Longest resource URL a challenge carries (its PAYMENT-REQUIRED header is base64 of JSON holding it). */
const MAX_RESOURCE_URL = 4096;

/**
 * x402 pay-per-request (both generations): challenges, local verification with a reservation of
 * the authorization, and settlement after the response is ready — by the service's own wallet
 * (`X402_SETTLER_PRIVATE_KEY`, preferred when both are set) or a remote facilitator.
 */
export function createPayments(deps: PaymentsDeps): Payments {
  const s = x402Settings(deps.config);
  const now = deps.now ?? Date.now;
  const nowSeconds = () => Math.floor(now() / 1000);
  const nonces = deps.nonces ?? (deps.db ? new SqlNonceStore(deps.db, nowSeconds) : new MemoryNonceStore(nowSeconds));
  const service = deps.service ?? { serviceName: 'Sanctions and Risk Screening' };
  const log = deps.log;
  const client = s.rpcUrl ? publicClientOf(s, s.rpcUrl, deps.chainPollingMs ?? 1000) : undefined;
  const chain: OnChain | undefined = client ? onChain(s, client) : undefined;
  const wallet: WalletSettler | undefined =
    client && s.settlerKey && s.rpcUrl
      ? walletSettler(s, client, s.rpcUrl, s.settlerKey, deps.receiptTimeoutMs ?? 60_000)
      : undefined;
  const facilitator: RemoteFacilitator | undefined = s.facilitatorUrl
    ? remoteFacilitator(s, s.facilitatorUrl, deps.facilitatorTimeoutMs ?? 30_000)
    : undefined;

  const reservations = new AuthorizationReservations(nonces, nowSeconds, log);
  const flights = new WeakMap<VerifiedPayment, Flight>();

  const challenge = (endpoint: AnyEndpoint, meta: RequestMeta, opts: ChallengeOptions): HttpError => {
    // The challenge names the resource in a header, which clients refuse beyond a few KiB.
    if (meta.url.length > MAX_RESOURCE_URL)
      throw uriTooLong(`URI Too Long: a payable request's URL may have at most ${MAX_RESOURCE_URL} characters`);
    return buildChallenge(s, service, endpoint, meta.url, opts);
  };
  const refuse = (endpoint: AnyEndpoint, url: string, credits: number, error: string): HttpError =>
    url.length > MAX_RESOURCE_URL
      ? uriTooLong(`URI Too Long: a payable request's URL may have at most ${MAX_RESOURCE_URL} characters`)
      : buildChallenge(s, service, endpoint, url, { error, credits });

  return {
    challenge,

    hasPayment(meta) {
      return paymentHeader(meta) !== undefined;
    },

    async verify(endpoint, meta, credits) {
      if (s.disabledReason) throw refuse(endpoint, meta.url, credits, s.disabledReason);
      const header = paymentHeader(meta);
      if (!header) throw refuse(endpoint, meta.url, credits, 'payment required');
      let decoded: DecodedPayment;
      let key: string;
      try {
        decoded = decodePayment(header);
        const amount = priceOf(s, credits);
        await verifyLocally(
          s,
          decoded,
          {
            url: meta.url,
            amount,
            requirement: requirementV2(s, amount),
            extensions: discoveryOf(endpoint).extensions,
          },
          nowSeconds(),
        );
        key = nonceKey(s, decoded);
        await reservations.reserve(key, Number(decoded.authorization.validBefore));
        try {
          if (chain) await chain.simulate(decoded.authorization, decoded.signature);
          else if (facilitator) await facilitator.verify(endpoint, meta.url, decoded);
        } catch (err) {
          await reservations.free(key);
          throw err;
        }
      } catch (err) {
        if (err instanceof PaymentRefused) {
          log.info({ requestId: meta.requestId, reason: err.message }, 'x402 payment refused');
          throw refuse(endpoint, meta.url, credits, err.message);
        }
        throw err;
      }
      const payment: VerifiedPayment = {
        version: decoded.version,
        payer: decoded.authorization.from,
        amount: decoded.authorization.value,
        network: s.caip2,
        nonce: decoded.authorization.nonce,
      };
      flights.set(payment, { endpoint, url: meta.url, credits, decoded, key, state: 'reserved' });
      return payment;
    },

    async settle(endpoint, meta, payment): Promise<SettledPayment> {
      const flight = flights.get(payment);
      if (!flight || flight.state !== 'reserved') {
        const reason =
          flight?.state === 'settled'
            ? 'authorization already used, sign a fresh one'
            : 'payment is not verified for settlement';
        throw refuse(endpoint, meta.url, flight?.credits ?? 1, reason);
      }
      flight.state = 'settling';
      const { decoded } = flight;
      let transaction: string;
      try {
        if (wallet) transaction = await wallet.settle(decoded.authorization, decoded.signature);
        else if (facilitator) transaction = await facilitator.settle(flight.endpoint, flight.url, decoded);
        else throw new SettlementFailed('no settlement route is configured', false);
      } catch (err) {
        const failure = err instanceof SettlementFailed ? err : new SettlementFailed((err as Error).message, true);
        // Nothing reached the chain: the authorization stays usable. Otherwise it stays reserved
        // until it expires, so that a transfer landing late cannot be paired with a second one.
        flight.state = 'released';
        if (!failure.mayHaveLanded) await reservations.free(flight.key);
        log.warn(
          {
            requestId: meta.requestId,
            payer: payment.payer,
            reason: failure.message,
            transaction: failure.transaction,
          },
          'x402 settlement failed',
        );
        const outcome = failure.mayHaveLanded
          ? 'the response was withheld and this authorization cannot be used again, sign a fresh one'
          : 'the response was withheld and nothing was charged';
        throw refuse(endpoint, meta.url, flight.credits, `payment settlement failed: ${failure.message}; ${outcome}`);
      }
      flight.state = 'settled';
      await reservations.markSettled(flight.key, Number(decoded.authorization.validBefore), transaction);
      log.info(
        { requestId: meta.requestId, payer: payment.payer, amount: payment.amount.toString(), transaction },
        'x402 payment settled',
      );
      const receipt = { success: true, transaction, payer: payment.payer };
      const headers: Record<string, string> =
        decoded.version === 1
          ? { [V1_RECEIPT_HEADER]: encodePaymentResponseHeader({ ...receipt, network: s.v1Name as Network }) }
          : { [V2_RECEIPT_HEADER]: encodePaymentResponseHeader({ ...receipt, network: s.caip2 }) };
      return { transaction, network: s.caip2, payer: payment.payer, amount: payment.amount, headers };
    },

    release(payment) {
      const flight = flights.get(payment);
      if (!flight || flight.state !== 'reserved') return;
      flight.state = 'released';
      void reservations.free(flight.key);
    },
  };
}
