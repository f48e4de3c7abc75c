import type { AnyEndpoint, RequestMeta } from '../core/endpoint.js';
import type { Charge } from '../core/gate.js';
import { matchRows, quotaUsageRow, storeQuotaRows, type ChargeSinks } from './charge-rows.js';
import { NO_HEADERS } from './free-charge.js';
import type { Reservation } from './quota.js';
import type { TokenIdentity } from './tokens.js';

/**
 * A request charged to its customer's quota: the credits reserved are consumed on commit (with
 * the usage and audit rows recorded) and given back on release, so a failed request costs
 * nothing. In strict mode a streamed answer records each part before it is sent (`record`).
 */
export function quotaCharge(
  sinks: ChargeSinks,
  endpoint: AnyEndpoint,
  meta: RequestMeta,
  id: TokenIdentity,
  r: Reservation,
): Charge {
  let done = false;
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
      const time = sinks.now();
      if (sinks.strict) {
        // The response waits until its rows are stored; if they cannot be, it fails and costs nothing.
        return storeQuotaRows(
          sinks,
          quotaUsageRow(endpoint, meta, id.customerId, time, status, credits),
          matchRows(endpoint, meta, time, id.customerId, '', audit),
        ).then(
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
        sinks.audit.push(matchRows(endpoint, meta, time, id.customerId, '', audit));
        sinks.usage.push([quotaUsageRow(endpoint, meta, id.customerId, time, status, credits)]);
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
  if (sinks.strict)
    charge.record = async ({ audit, credits }) => {
      if (done) throw new Error('the charge is already settled');
      // A part's rows are told apart from the request's other parts by their time (an audit log
      // replay matches stored rows by request id and time).
      const time = (lastTime = Math.max(sinks.now(), lastTime + 1));
      parts++;
      recorded += credits;
      await storeQuotaRows(
        sinks,
        quotaUsageRow(endpoint, meta, id.customerId, time, 200, credits),
        matchRows(endpoint, meta, time, id.customerId, '', audit),
      );
    };
  return charge;
}
