import type { AnyEndpoint, Caller, RequestMeta } from '../core/endpoint.js';
import type { Charge } from '../core/gate.js';
import type { VerifiedPayment } from '../core/payments.js';
import { serviceUnavailable } from '../core/errors.js';
import type { SettlementRow, UsageRow } from '../audit/rows.js';
import { matchRows, type ChargeSinks } from './charge-rows.js';
import { NO_HEADERS } from './free-charge.js';
import type { TokenIdentity } from './tokens.js';

/**
 * A request paid with x402: the payment header is verified now and settled on commit, only while
 * the answer can still be delivered; `id` is the token beside it when its quota was exhausted.
 */
export async function x402Charge(
  sinks: ChargeSinks,
  endpoint: AnyEndpoint,
  meta: RequestMeta,
  credits: number,
  id: TokenIdentity | null,
): Promise<Charge> {
  const { payments } = sinks;
  const payment: VerifiedPayment = await payments.verify(endpoint, meta, credits);
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
        payments.release(payment);
        throw serviceUnavailable('the answer could not be delivered; the payment was not settled');
      }
      if (sinks.strict) {
        // The audit rows are stored before any money moves: if they cannot be, the request
        // fails unpaid.
        try {
          await sinks.audit.write(matchRows(endpoint, meta, sinks.now(), customerId, payment.payer, audit));
        } catch (err) {
          payments.release(payment);
          throw err;
        }
      }
      const settled = await payments.settle(endpoint, meta, payment);
      const time = sinks.now();
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
      if (sinks.strict) {
        // Paid: the answer goes out whatever happens to these rows (kept for retry when the
        // insert fails).
        await Promise.all([sinks.usage.write([usage]), sinks.settlements.write([settlement])]).catch((err: unknown) =>
          sinks.log?.error({ err, reqId: meta.requestId }, 'usage/settlement rows of a paid request not stored yet'),
        );
      } else {
        // Paid: a row the writer refuses (it validates at push) must not turn the answer into an error.
        try {
          sinks.audit.push(matchRows(endpoint, meta, time, customerId, settled.payer, audit));
          sinks.usage.push([usage]);
          sinks.settlements.push([settlement]);
        } catch (err) {
          sinks.log?.error({ err, reqId: meta.requestId }, 'audit rows of a paid request refused');
        }
      }
      return { headers: settled.headers };
    },
    release() {
      if (done) return;
      done = true;
      payments.release(payment);
    },
  };
}
