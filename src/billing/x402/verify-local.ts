import { isAddressEqual, recoverTypedDataAddress } from 'viem';
import { authorizationTypes } from '@x402/evm';
import { deepEqual } from '@x402/core/utils';
import type { PaymentRequirements } from '@x402/core/types';
import { PaymentRefused, type DecodedPayment } from './decode.js';
import { MAX_TIMEOUT_SECONDS, type X402Settings } from './settings.js';

/** An authorization must outlive verification, the handler and the settlement transaction. */
const SETTLE_MARGIN_SECONDS = 6;
/** Clients sign `validBefore = now + 300` by their own clock; tolerate that much skew. */
const CLOCK_SKEW_SECONDS = 60;

export interface Expected {
  url: string;
  amount: bigint;
  /** v2's offered requirement, which `accepted` must echo. */
  requirement: PaymentRequirements;
  /** v2's offered `extensions`, which the payment must echo. */
  extensions: Record<string, unknown>;
}

/**
 * Every check that needs no chain: scheme, network, what v2 echoes, recipient, amount, validity
 * window and the EIP-712 signature over the configured token's domain. Throws PaymentRefused.
 */
export async function verifyLocally(
  s: X402Settings,
  p: DecodedPayment,
  expected: Expected,
  nowSeconds: number,
): Promise<void> {
  const payTo = s.payTo;
  if (!payTo) throw new PaymentRefused(s.disabledReason ?? 'pay-per-request is not configured on this server');
  if (p.scheme !== 'exact')
    throw new PaymentRefused(`unsupported payment scheme "${p.scheme}"; this server accepts "exact"`);
  const network = p.version === 1 ? s.v1Name : s.caip2;
  if (p.network !== network)
    throw new PaymentRefused(`payment is for network "${p.network}"; this server accepts "${network}"`);

  if (p.version === 2) {
    const a = p.accepted;
    const r = expected.requirement;
    if (!sameAddress(a.asset, r.asset))
      throw new PaymentRefused(`payment is for asset ${a.asset}; this server accepts ${r.asset}`);
    if (!sameAddress(a.payTo, r.payTo))
      throw new PaymentRefused(`payment accepted payTo ${a.payTo}; this server's payTo is ${r.payTo}`);
    if (a.amount !== r.amount)
      throw new PaymentRefused(`payment accepted amount ${a.amount}; the price of this request is ${r.amount}`);
    if (a.maxTimeoutSeconds !== r.maxTimeoutSeconds || !containsSubset(r.extra, a.extra)) {
      throw new PaymentRefused('payment accepted requirements do not match the challenge');
    }
    if (p.resourceUrl !== undefined && p.resourceUrl !== expected.url) {
      throw new PaymentRefused('payment was made for another resource; repeat the identical request');
    }
    if (!echoes(expected.extensions, p.extensions)) {
      throw new PaymentRefused('payment does not echo the extensions block of the challenge');
    }
  }

  const auth = p.authorization;
  if (!isAddressEqual(auth.to, payTo))
    throw new PaymentRefused(`authorization pays ${auth.to}, not this server's payTo ${payTo}`);
  if (auth.value < expected.amount) {
    throw new PaymentRefused(`authorization amount ${auth.value} is below the price ${expected.amount}`);
  }
  const now = BigInt(nowSeconds);
  if (auth.validAfter > now) throw new PaymentRefused('authorization is not yet valid (validAfter is in the future)');
  if (auth.validBefore <= now + BigInt(SETTLE_MARGIN_SECONDS)) {
    throw new PaymentRefused('authorization has expired (validBefore has passed or is too close to settle)');
  }
  if (auth.validBefore > now + BigInt(MAX_TIMEOUT_SECONDS + CLOCK_SKEW_SECONDS)) {
    throw new PaymentRefused(`authorization is valid for longer than the ${MAX_TIMEOUT_SECONDS} s payment timeout`);
  }

  let signer;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: s.assetName, version: s.assetVersion, chainId: s.chainId, verifyingContract: s.asset },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: auth,
      signature: p.signature,
    });
  } catch {
    signer = undefined;
  }
  if (!signer || !isAddressEqual(signer, auth.from)) {
    throw new PaymentRefused(
      `invalid signature: the authorization is not signed by ${auth.from} for ${s.assetName} v${s.assetVersion} on chain ${s.chainId}`,
    );
  }
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * v2 clients echo the offered extensions, possibly adding fields of their own (x402Client merges
 * client data in). Every offered extension must come back with its `info` intact and, when the
 * client sends the `schema` too, the same schema.
 */
function echoes(offered: Record<string, unknown>, echoed: Record<string, unknown> | undefined): boolean {
  if (!echoed) return false;
  return Object.entries(offered).every(([key, value]) => {
    const back = echoed[key];
    if (!isRecord(value) || !isRecord(back)) return deepEqual(value, back);
    if (!containsSubset(value.info, back.info)) return false;
    return back.schema === undefined || deepEqual(value.schema, back.schema);
  });
}

/** `actual` has every field of `expected` with the same value (objects recursively, arrays exactly). */
function containsSubset(expected: unknown, actual: unknown): boolean {
  if (!isRecord(expected)) return deepEqual(expected, actual);
  if (!isRecord(actual)) return false;
  return Object.entries(expected).every(([k, v]) => v === undefined || containsSubset(v, actual[k]));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
