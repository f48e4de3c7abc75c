import type { Logger } from 'pino';
import type { AnyEndpoint } from '../../core/endpoint.js';
import type { Config } from '../../config.js';
import { HttpError, uriTooLong } from '../../core/errors.js';
import type { Payments, VerifiedPayment } from '../../core/payments.js';
import { buildChallenge, type ServiceInfo } from './challenge.js';
import { paymentHeader, PaymentRefused } from './decode.js';
import { remoteFacilitator } from './facilitator.js';
import { MemoryNonceStore, SqlNonceStore, type NonceStore, type SqlDb } from './nonces.js';
import { onChain, publicClientOf, SettlementFailed, walletSettler } from './onchain.js';
import { AuthorizationReservations } from './reservations.js';
import { settledPayment, settleFlight, settlementFailureReason, type Flight, type SettleRoute } from './settle.js';
import { x402Settings, type X402Settings } from './settings.js';
import { verifiedPayment, verifyAndReserve, type VerifyRoute } from './verify.js';

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

/** Longest resource URL a challenge carries (its PAYMENT-REQUIRED header is base64 of JSON holding it). */
const MAX_RESOURCE_URL = 4096;

const urlTooLong = () =>
  uriTooLong(`URI Too Long: a payable request's URL may have at most ${MAX_RESOURCE_URL} characters`);

/** The verify and settle routes the configuration names, sharing one view of reserved authorizations. */
function paymentRoutes(deps: PaymentsDeps, s: X402Settings): VerifyRoute & SettleRoute {
  const now = deps.now ?? Date.now;
  const nowSeconds = () => Math.floor(now() / 1000);
  const nonces = deps.nonces ?? (deps.db ? new SqlNonceStore(deps.db, nowSeconds) : new MemoryNonceStore(nowSeconds));
  const client = s.rpcUrl ? publicClientOf(s, s.rpcUrl, deps.chainPollingMs ?? 1000) : undefined;
  return {
    s,
    log: deps.log,
    nowSeconds,
    reservations: new AuthorizationReservations(nonces, nowSeconds, deps.log),
    chain: client ? onChain(s, client) : undefined,
    wallet:
      client && s.settlerKey && s.rpcUrl
        ? walletSettler(s, client, s.rpcUrl, s.settlerKey, deps.receiptTimeoutMs ?? 60_000)
        : undefined,
    facilitator: s.facilitatorUrl
      ? remoteFacilitator(s, s.facilitatorUrl, deps.facilitatorTimeoutMs ?? 30_000)
      : undefined,
  };
}

/**
 * x402 pay-per-request (both generations): challenges, local verification with a reservation of
 * the authorization (verify.ts), and settlement after the response is ready (settle.ts). A
 * refusal at either step is a fresh 402 challenge saying why.
 */
export function createPayments(deps: PaymentsDeps): Payments {
  const s = x402Settings(deps.config);
  const service = deps.service ?? { serviceName: 'Sanctions and Risk Screening' };
  const routes = paymentRoutes(deps, s);
  const flights = new WeakMap<VerifiedPayment, Flight>();

  const refuse = (endpoint: AnyEndpoint, url: string, credits: number, error: string): HttpError =>
    url.length > MAX_RESOURCE_URL ? urlTooLong() : buildChallenge(s, service, endpoint, url, { error, credits });

  return {
    challenge(endpoint, meta, opts) {
      // The challenge names the resource in a header, which clients refuse beyond a few KiB.
      if (meta.url.length > MAX_RESOURCE_URL) throw urlTooLong();
      return buildChallenge(s, service, endpoint, meta.url, opts);
    },

    hasPayment(meta) {
      return paymentHeader(meta) !== undefined;
    },

    async verify(endpoint, meta, credits) {
      if (s.disabledReason) throw refuse(endpoint, meta.url, credits, s.disabledReason);
      const header = paymentHeader(meta);
      if (!header) throw refuse(endpoint, meta.url, credits, 'payment required');
      try {
        const { decoded, key } = await verifyAndReserve(routes, header, endpoint, meta.url, credits);
        const payment = verifiedPayment(s, decoded);
        flights.set(payment, { endpoint, url: meta.url, credits, decoded, key, state: 'reserved' });
        return payment;
      } catch (err) {
        if (!(err instanceof PaymentRefused)) throw err;
        deps.log.info({ requestId: meta.requestId, reason: err.message }, 'x402 payment refused');
        throw refuse(endpoint, meta.url, credits, err.message);
      }
    },

    async settle(endpoint, meta, payment) {
      const flight = flights.get(payment);
      if (!flight || flight.state !== 'reserved') {
        const reason =
          flight?.state === 'settled'
            ? 'authorization already used, sign a fresh one'
            : 'payment is not verified for settlement';
        throw refuse(endpoint, meta.url, flight?.credits ?? 1, reason);
      }
      try {
        const transaction = await settleFlight(routes, flight, meta.requestId, payment);
        return settledPayment(s, payment, flight.decoded.version, transaction);
      } catch (err) {
        if (!(err instanceof SettlementFailed)) throw err;
        throw refuse(endpoint, meta.url, flight.credits, settlementFailureReason(err));
      }
    },

    release(payment) {
      const flight = flights.get(payment);
      if (!flight || flight.state !== 'reserved') return;
      flight.state = 'released';
      void routes.reservations.free(flight.key);
    },
  };
}
