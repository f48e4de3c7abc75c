import { HTTPFacilitatorClient } from '@x402/core/http';
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type PaymentRequirementsV1,
} from '@x402/core/types';
import type { Hex } from 'viem';
import type { AnyEndpoint } from '../../core/endpoint.js';
import { requirementV1, requirementV2 } from './challenge.js';
import { PaymentRefused, type DecodedPayment } from './decode.js';
import { SettlementFailed } from './onchain.js';
import type { X402Settings } from './settings.js';

/**
 * A remote x402 facilitator (`POST /verify`, `POST /settle`, `GET /supported`) through x402's own
 * HTTP client, which speaks both generations (the body carries the payload's `x402Version`).
 */
export interface RemoteFacilitator {
  /** The facilitator's verification, which simulates the transfer: used when the service has no RPC. */
  verify(endpoint: AnyEndpoint, url: string, p: DecodedPayment): Promise<void>;
  settle(endpoint: AnyEndpoint, url: string, p: DecodedPayment): Promise<Hex>;
}

export function remoteFacilitator(s: X402Settings, url: string, timeoutMs: number): RemoteFacilitator {
  const client = new HTTPFacilitatorClient({ url, timeoutMs });
  return {
    async verify(endpoint, resourceUrl, p) {
      const [payload, requirements] = request(s, endpoint, resourceUrl, p);
      let result;
      try {
        result = await client.verify(payload, requirements);
      } catch (err) {
        if (err instanceof VerifyError)
          throw new PaymentRefused(`the payment facilitator refused the payment (${err.invalidReason})`);
        throw new PaymentRefused(`the payment could not be verified now (facilitator unreachable); retry later`);
      }
      if (!result.isValid)
        throw new PaymentRefused(`the payment facilitator refused the payment (${result.invalidReason ?? 'invalid'})`);
    },
    async settle(endpoint, resourceUrl, p) {
      const [payload, requirements] = request(s, endpoint, resourceUrl, p);
      let result;
      try {
        result = await client.settle(payload, requirements);
      } catch (err) {
        // SettleError carries the facilitator's answer; a timeout or transport error leaves it unknown.
        if (err instanceof SettleError) {
          throw new SettlementFailed(
            `facilitator settlement failed (${err.errorReason})`,
            Boolean(err.transaction),
            err.transaction || undefined,
          );
        }
        throw new SettlementFailed(`facilitator unreachable (${(err as Error).message})`, true);
      }
      if (!result.success || !/^0x[0-9a-fA-F]{64}$/.test(result.transaction)) {
        throw new SettlementFailed(
          `facilitator settlement failed (${result.errorReason ?? 'no transaction'})`,
          Boolean(result.transaction),
          result.transaction || undefined,
        );
      }
      return result.transaction as Hex;
    },
  };
}

/**
 * The pair the facilitator checks. x402's exact-EVM facilitator wants the authorized value to equal
 * the required amount, while this service accepts any amount at or above the price: the requirement
 * sent along is therefore the authorized value (what the transfer moves anyway).
 */
function request(
  s: X402Settings,
  endpoint: AnyEndpoint,
  url: string,
  p: DecodedPayment,
): [PaymentPayload, PaymentRequirements] {
  const value = p.authorization.value;
  if (p.version === 1) {
    const req: PaymentRequirementsV1 = requirementV1(s, endpoint, url, value);
    // The facilitator client is typed for v2 but posts whatever generation it is given.
    return [p.raw as unknown as PaymentPayload, req as unknown as PaymentRequirements];
  }
  return [p.raw, requirementV2(s, value)];
}
