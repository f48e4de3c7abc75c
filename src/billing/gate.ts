import type { Logger } from 'pino';
import type { AnyEndpoint, RequestMeta } from '../core/endpoint.js';
import type { Config } from '../config.js';
import type { Charge, Gate } from '../core/gate.js';
import type { Payments } from '../core/payments.js';
import { unauthorized } from '../core/errors.js';
import type { AuditMatchRow, RowSink, SettlementRow, UsageRow } from '../audit/rows.js';
import type { ChargeSinks } from './charge-rows.js';
import { ANONYMOUS, freeCharge } from './free-charge.js';
import { adminAuthenticator, type OperatorSessionVerifier } from './gate-admin.js';
import { identify, invalidTokenError, missingScopeError, type TokenVerifier } from './gate-credentials.js';
import type { Reservation } from './quota.js';
import { quotaCharge } from './quota-charge.js';
import type { TokenIdentity } from './tokens.js';
import { x402Charge } from './x402-charge.js';

export interface GateDeps {
  tokens: TokenVerifier;
  quota: { reserve(customerId: number, credits: number): Reservation | null | Promise<Reservation | null> };
  payments: Payments;
  audit: RowSink<AuditMatchRow>;
  usage: RowSink<UsageRow>;
  /** Where settled x402 payments are recorded (the `x402_settlements` table). */
  settlements: RowSink<SettlementRow>;
  config: Pick<Config, 'ADMIN_KEY' | 'AUDIT_STRICT'>;
  /** Operator sessions (the dashboard's sign-in with ADMIN_KEY), accepted like the key on `admin` endpoints. */
  operatorSessions?: OperatorSessionVerifier;
  /** The local operator key this node advertises in DATA_DIR (src/operator/service-file.ts): accepted like ADMIN_KEY. */
  localOperatorKey?: string;
  now?: () => number;
  log?: Logger;
}

/**
 * Authentication and charging for every transport (SPEC.md "Authentication", DESIGN.md
 * decision 3). For a metered endpoint:
 * - `Authorization: Bearer` present: an invalid or revoked token is 401 (even beside a payment
 *   header); a valid token whose quota covers the credits is charged to the quota and any payment
 *   header is ignored; an exhausted quota falls through to x402 when a payment header is present,
 *   else a 402 challenge with the pay-per-request and upgrade options.
 * - no Authorization: a payment header is verified now and settled on commit; nothing at all
 *   is a 402 challenge.
 * The charges themselves: src/billing/quota-charge.ts and x402-charge.ts.
 */
export function createGate(deps: GateDeps): Gate {
  const { tokens, quota, payments } = deps;
  const admin = adminAuthenticator([deps.config.ADMIN_KEY, deps.localOperatorKey], deps.operatorSessions);
  const sinks: ChargeSinks = {
    audit: deps.audit,
    usage: deps.usage,
    settlements: deps.settlements,
    payments,
    strict: deps.config.AUDIT_STRICT,
    now: deps.now ?? Date.now,
    log: deps.log,
  };

  function authorize(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta): Charge | Promise<Charge> {
    switch (endpoint.access) {
      case 'public':
        return ANONYMOUS;
      case 'admin':
        return admin(meta);
      case 'account': {
        const id = identify(tokens, meta);
        return id instanceof Promise ? id.then(account) : account(id);
      }
      case 'metered': {
        const credits = endpoint.credits?.(input) ?? 1;
        const id = identify(tokens, meta);
        // Nothing to charge (a batch of invalid items only): no quota, no payment, no challenge.
        if (credits === 0) return id instanceof Promise ? id.then(uncharged) : uncharged(id);
        return id instanceof Promise
          ? id.then((i) => metered(endpoint, meta, credits, i))
          : metered(endpoint, meta, credits, id);
      }
    }
  }

  function metered(
    endpoint: AnyEndpoint,
    meta: RequestMeta,
    credits: number,
    id: TokenIdentity | null | undefined,
  ): Charge | Promise<Charge> {
    if (id === null) throw invalidTokenError();
    if (id) {
      // A token without the scope is refused, even beside a payment header: it is not a 402.
      if (!id.screen) throw missingScopeError('screen');
      const pending = quota.reserve(id.customerId, credits);
      if (pending instanceof Promise) return pending.then((r) => quotaOrPayment(endpoint, meta, credits, id, r));
      return quotaOrPayment(endpoint, meta, credits, id, pending);
    }
    if (payments.hasPayment(meta)) return x402Charge(sinks, endpoint, meta, credits, null);
    throw payments.challenge(endpoint, meta, { error: 'X-PAYMENT header is required', credits });
  }

  function quotaOrPayment(
    endpoint: AnyEndpoint,
    meta: RequestMeta,
    credits: number,
    id: TokenIdentity,
    r: Reservation | null,
  ): Charge | Promise<Charge> {
    if (r) return quotaCharge(sinks, endpoint, meta, id, r);
    if (payments.hasPayment(meta)) return x402Charge(sinks, endpoint, meta, credits, id);
    throw payments.challenge(endpoint, meta, { error: 'Monthly quota exhausted', credits, quotaExhausted: true });
  }

  return {
    authorize(endpoint, input, meta) {
      try {
        return authorize(endpoint, input, meta);
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

function account(id: TokenIdentity | null | undefined): Charge {
  if (id === undefined) throw unauthorized('Not authenticated', { 'WWW-Authenticate': 'Bearer' });
  if (id === null) throw invalidTokenError();
  if (!id.dashboard) throw missingScopeError('dashboard');
  return freeCharge({ kind: 'customer', customerId: id.customerId, tokenId: id.tokenId });
}

function uncharged(id: TokenIdentity | null | undefined): Charge {
  if (id === null) throw invalidTokenError();
  return id ? freeCharge({ kind: 'customer', customerId: id.customerId, tokenId: id.tokenId }) : ANONYMOUS;
}
