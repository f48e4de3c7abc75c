import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { AnyEndpoint, AuditMatch, Caller, RequestMeta } from '../core/endpoint.js';
import type { Config } from '../config.js';
import type { Charge, CommitResult, Gate } from '../core/gate.js';
import type { Payments, VerifiedPayment } from '../core/payments.js';
import { HttpError } from '../core/errors.js';
import type { AuditMatchRow, RowSink, SettlementRow, UsageRow } from '../audit/rows.js';
import type { Reservation } from './quota.js';
import { TOKEN_LENGTH } from './token-format.js';
import type { TokenIdentity } from './tokens.js';

export interface GateDeps {
  tokens: { verify(token: string): TokenIdentity | null | Promise<TokenIdentity | null> };
  quota: { reserve(customerId: number, credits: number): Reservation | null | Promise<Reservation | null> };
  payments: Payments;
  audit: RowSink<AuditMatchRow>;
  usage: RowSink<UsageRow>;
  /** Where settled x402 payments are recorded (the `x402_settlements` table). */
  settlements: RowSink<SettlementRow>;
  config: Pick<Config, 'ADMIN_KEY' | 'AUDIT_STRICT'>;
  /** Operator sessions (the dashboard's sign-in with ADMIN_KEY), accepted like the key on `admin` endpoints. */
  operatorSessions?: { verify(token: string): Promise<boolean> };
  /** The local operator key this node advertises in DATA_DIR (src/operator/service-file.ts): accepted like ADMIN_KEY. */
  localOperatorKey?: string;
  now?: () => number;
  log?: Logger;
}

const NO_HEADERS: CommitResult = { headers: {} };
const BEARER = 'Bearer ';

function invalidTokenError(): HttpError {
  return new HttpError(401, 'Invalid or revoked API token', { 'WWW-Authenticate': 'Bearer' });
}

/** A valid token without the scope an endpoint needs (documented on every such endpoint). */
function missingScopeError(scope: 'screen' | 'dashboard'): HttpError {
  const what =
    scope === 'screen' ? 'call the metered endpoints' : 'use the /account API (usage, audit trail, tokens, webhooks)';
  return new HttpError(403, `This token lacks the "${scope}" scope: it cannot ${what}`);
}

/**
 * `undefined`: no Authorization header; `null`: a header that is not a well-formed bearer
 * credential (treated like an invalid token); else the token.
 */
function bearer(header: string | undefined): string | null | undefined {
  if (header === undefined || header === '') return undefined;
  // The usual spelling without the regex. When the rest is not a token (whitespace in it), the
  // regex would also have found none or a shorter one, which fails the token check all the same.
  if (header.length === BEARER.length + TOKEN_LENGTH && header.startsWith(BEARER)) return header.slice(BEARER.length);
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1] : null;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
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
 * Quota credits are reserved here, consumed on commit, and given back on release, so a failed
 * request costs nothing.
 */
export function createGate(deps: GateDeps): Gate {
  const now = deps.now ?? Date.now;
  const adminKeys = [deps.config.ADMIN_KEY, deps.localOperatorKey].filter((k): k is string => !!k).map(digest);
  const strict = deps.config.AUDIT_STRICT;

  /** `undefined`: no Authorization header; `null`: a malformed, unknown or revoked token. */
  function identify(meta: RequestMeta): TokenIdentity | null | undefined | Promise<TokenIdentity | null> {
    const token = bearer(meta.headers.authorization);
    if (token === undefined || token === null) return token;
    return deps.tokens.verify(token);
  }

  function matchRows(
    endpoint: AnyEndpoint,
    meta: RequestMeta,
    time: number,
    customerId: number,
    payer: string,
    audit: AuditMatch[],
  ): AuditMatchRow[] {
    return audit.map((m) => ({
      time,
      customer_id: customerId,
      payer,
      request_id: meta.requestId,
      endpoint: endpoint.id,
      screened_value: m.screened_value,
      matched_value: m.matched_value,
      list: m.list,
      list_type: m.list_type,
      match: m.match,
      list_version: m.list_version,
      as_of: m.as_of,
    }));
  }

  function quotaCharge(endpoint: AnyEndpoint, meta: RequestMeta, id: TokenIdentity, r: Reservation): Charge {
    let done = false;
    const usageRow = (time: number, status: number, credits: number): UsageRow => ({
      time,
      customer_id: id.customerId,
      payer: '',
      request_id: meta.requestId,
      endpoint: endpoint.id,
      status,
      credits,
      method: 'quota',
      amount: '0',
      tx_hash: '',
      network: '',
    });
    /** Credits of the parts recorded so far, and the time of the last (each part's is later). */
    let recorded = 0;
    let parts = 0;
    let lastTime = 0;
    const charge: Charge = {
      caller: { kind: 'customer', customerId: id.customerId, tokenId: id.tokenId },
      settlesBeforeAnswer: false,
      commit({ status, audit, credits = r.credits }) {
        if (done) return NO_HEADERS;
        done = true;
        if (parts > 0) {
          r.commit(recorded);
          return NO_HEADERS;
        }
        const time = now();
        if (strict) {
          // The response waits until its rows are stored; if they cannot be, it fails and costs nothing.
          return Promise.all([
            deps.usage.write([usageRow(time, status, credits)]),
            deps.audit.write(matchRows(endpoint, meta, time, id.customerId, '', audit)),
          ]).then(
            () => {
              r.commit(credits);
              return NO_HEADERS;
            },
            (err: unknown) => {
              r.release();
              throw err;
            },
          );
        }
        try {
          // The audit rows first: their values come from the lists, while the usage row is all
          // our own numbers, so a refused row leaves nothing buffered for a request that fails.
          deps.audit.push(matchRows(endpoint, meta, time, id.customerId, '', audit));
          deps.usage.push([usageRow(time, status, credits)]);
        } catch (err) {
          // A row the writer refuses: the request fails and costs nothing.
          r.release();
          return Promise.reject(err);
        }
        r.commit(credits);
        return NO_HEADERS;
      },
      release() {
        if (done) return;
        done = true;
        if (parts > 0) r.commit(recorded);
        else r.release();
      },
    };
    if (strict)
      charge.record = async ({ audit, credits }) => {
        if (done) throw new Error('the charge is already settled');
        // A part's rows are told apart from the request's other parts by their time (an audit log
        // replay matches stored rows by request id and time).
        const time = (lastTime = Math.max(now(), lastTime + 1));
        parts++;
        recorded += credits;
        await Promise.all([
          deps.usage.write([usageRow(time, 200, credits)]),
          deps.audit.write(matchRows(endpoint, meta, time, id.customerId, '', audit)),
        ]);
      };
    return charge;
  }

  async function x402Charge(
    endpoint: AnyEndpoint,
    meta: RequestMeta,
    credits: number,
    id: TokenIdentity | null,
  ): Promise<Charge> {
    const payment: VerifiedPayment = await deps.payments.verify(endpoint, meta, credits);
    const caller: Caller = id
      ? { kind: 'customer', customerId: id.customerId, tokenId: id.tokenId }
      : { kind: 'payer', address: payment.payer };
    const customerId = id?.customerId ?? 0;
    let done = false;
    return {
      caller,
      settlesBeforeAnswer: true,
      async commit({ status, audit }) {
        if (done) return NO_HEADERS;
        done = true;
        if (meta.gone?.()) {
          // The answer can no longer be delivered: the authorization stays unsettled.
          deps.payments.release(payment);
          throw new HttpError(503, 'the answer could not be delivered; the payment was not settled');
        }
        if (strict) {
          // The audit rows are stored before any money moves: if they cannot be, the request
          // fails unpaid.
          try {
            await deps.audit.write(matchRows(endpoint, meta, now(), customerId, payment.payer, audit));
          } catch (err) {
            deps.payments.release(payment);
            throw err;
          }
        }
        const settled = await deps.payments.settle(endpoint, meta, payment);
        const time = now();
        const amount = settled.amount.toString();
        const usage: UsageRow = {
          time,
          customer_id: customerId,
          payer: settled.payer,
          request_id: meta.requestId,
          endpoint: endpoint.id,
          status,
          credits,
          method: 'x402',
          amount,
          tx_hash: settled.transaction,
          network: settled.network,
        };
        const settlement: SettlementRow = {
          time,
          request_id: meta.requestId,
          customer_id: customerId,
          payer: settled.payer,
          endpoint: endpoint.id,
          network: settled.network,
          x402_version: payment.version,
          amount,
          tx_hash: settled.transaction,
        };
        if (strict) {
          // Paid: the answer goes out whatever happens to these rows (kept for retry when the
          // insert fails).
          await Promise.all([deps.usage.write([usage]), deps.settlements.write([settlement])]).catch((err: unknown) =>
            deps.log?.error({ err, reqId: meta.requestId }, 'usage/settlement rows of a paid request not stored yet'),
          );
        } else {
          // Paid: a row the writer refuses (it validates at push) must not turn the answer into an error.
          try {
            deps.audit.push(matchRows(endpoint, meta, time, customerId, settled.payer, audit));
            deps.usage.push([usage]);
            deps.settlements.push([settlement]);
          } catch (err) {
            deps.log?.error({ err, reqId: meta.requestId }, 'audit rows of a paid request refused');
          }
        }
        return { headers: settled.headers };
      },
      release() {
        if (done) return;
        done = true;
        deps.payments.release(payment);
      },
    };
  }

  function free(caller: Caller): Charge {
    return { caller, settlesBeforeAnswer: false, commit: () => NO_HEADERS, release: () => undefined };
  }

  const anonymous = free({ kind: 'anonymous' });
  const adminByKey = free({ kind: 'admin', via: 'key' });
  const adminBySession = free({ kind: 'admin', via: 'session' });
  const invalidAdmin = () =>
    new HttpError(401, 'Invalid admin key or operator session', { 'WWW-Authenticate': 'Bearer' });

  function admin(meta: RequestMeta): Charge | Promise<Charge> {
    if (adminKeys.length === 0) throw new HttpError(503, 'admin API disabled');
    const key = bearer(meta.headers.authorization);
    if (!key) throw invalidAdmin();
    const given = digest(key);
    // Every key is compared, so the time taken does not tell which one came close.
    let ok = false;
    for (const k of adminKeys) if (timingSafeEqual(given, k)) ok = true;
    if (ok) return adminByKey;
    if (!deps.operatorSessions) throw invalidAdmin();
    return deps.operatorSessions.verify(key).then((live) => {
      if (!live) throw invalidAdmin();
      return adminBySession;
    });
  }

  function account(id: TokenIdentity | null | undefined): Charge {
    if (id === undefined) throw new HttpError(401, 'Not authenticated', { 'WWW-Authenticate': 'Bearer' });
    if (id === null) throw invalidTokenError();
    if (!id.dashboard) throw missingScopeError('dashboard');
    return free({ kind: 'customer', customerId: id.customerId, tokenId: id.tokenId });
  }

  function uncharged(id: TokenIdentity | null | undefined): Charge {
    if (id === null) throw invalidTokenError();
    return id ? free({ kind: 'customer', customerId: id.customerId, tokenId: id.tokenId }) : anonymous;
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
      const pending = deps.quota.reserve(id.customerId, credits);
      if (pending instanceof Promise) return pending.then((r) => quotaOrPayment(endpoint, meta, credits, id, r));
      return quotaOrPayment(endpoint, meta, credits, id, pending);
    }
    if (deps.payments.hasPayment(meta)) return x402Charge(endpoint, meta, credits, null);
    throw deps.payments.challenge(endpoint, meta, { error: 'X-PAYMENT header is required', credits });
  }

  function quotaOrPayment(
    endpoint: AnyEndpoint,
    meta: RequestMeta,
    credits: number,
    id: TokenIdentity,
    r: Reservation | null,
  ): Charge | Promise<Charge> {
    if (r) return quotaCharge(endpoint, meta, id, r);
    if (deps.payments.hasPayment(meta)) return x402Charge(endpoint, meta, credits, id);
    throw deps.payments.challenge(endpoint, meta, { error: 'Monthly quota exhausted', credits, quotaExhausted: true });
  }

  function authorize(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta): Charge | Promise<Charge> {
    switch (endpoint.access) {
      case 'public':
        return anonymous;
      case 'admin':
        return admin(meta);
      case 'account': {
        const id = identify(meta);
        return id instanceof Promise ? id.then(account) : account(id);
      }
      case 'metered': {
        const credits = endpoint.credits?.(input) ?? 1;
        const id = identify(meta);
        // Nothing to charge (a batch of invalid items only): no quota, no payment, no challenge.
        if (credits === 0) return id instanceof Promise ? id.then(uncharged) : uncharged(id);
        return id instanceof Promise
          ? id.then((i) => metered(endpoint, meta, credits, i))
          : metered(endpoint, meta, credits, id);
      }
    }
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
