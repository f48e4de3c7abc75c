import { z } from 'zod';
import { getAddress, type Address, type Hex } from 'viem';
import type { PaymentPayload, PaymentPayloadV1 } from '@x402/core/types';
import type { RequestMeta } from '../../core/endpoint.js';

/**
 * Reading the payment header: base64 of a JSON x402 payment payload carrying an EIP-3009
 * authorization. Anything malformed is a `PaymentRefused` (a 402 with the reason), never a 500.
 */

/** A payment that cannot be accepted; `message` becomes the fresh challenge's `error`. */
export class PaymentRefused extends Error {}

export const V1_PAYMENT_HEADER = 'x-payment';
export const V2_PAYMENT_HEADER = 'payment-signature';

/** A v2 header echoes the bazaar block with its schemas: a few KB. Anything far larger is abuse. */
const MAX_HEADER_CHARS = 64 * 1024;

export interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

interface Common {
  scheme: string;
  /** As the payload names it: v1's plain name or v2's CAIP-2 id. */
  network: string;
  authorization: Authorization;
  signature: Hex;
}

export type DecodedPayment =
  | (Common & { version: 1; raw: PaymentPayloadV1 })
  | (Common & {
      version: 2;
      raw: PaymentPayload;
      accepted: PaymentPayload['accepted'];
      resourceUrl: string | undefined;
      extensions: Record<string, unknown> | undefined;
    });

const uint256 = z
  .string()
  .regex(/^\d{1,78}$/, 'must be a decimal integer string')
  .transform((s) => BigInt(s))
  .refine((n) => n < 2n ** 256n, 'must fit in uint256');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte hex address');

const exactEvmPayload = z.object({
  authorization: z.object({
    from: address,
    to: address,
    value: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex nonce'),
  }),
  // Local verification recovers the signer; contract-wallet (ERC-1271/6492) signatures are longer.
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte ECDSA signature'),
});

const v1Schema = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: exactEvmPayload,
});

const v2Schema = z.object({
  x402Version: z.literal(2),
  accepted: z.object({
    scheme: z.string(),
    network: z.string(),
    asset: z.string(),
    amount: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: exactEvmPayload,
  resource: z.object({ url: z.string().optional() }).loose().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** The payment header present on the request, if any (v2's `PAYMENT-SIGNATURE` wins over v1's). */
export function paymentHeader(meta: RequestMeta): string | undefined {
  const v2 = meta.headers[V2_PAYMENT_HEADER];
  if (v2 !== undefined && v2.trim() !== '') return v2.trim();
  const v1 = meta.headers[V1_PAYMENT_HEADER];
  return v1 !== undefined && v1.trim() !== '' ? v1.trim() : undefined;
}

/**
 * Decodes the header. The generation is the payload's own `x402Version`, so an MCP client that
 * hands a v2 payload over as `X-PAYMENT` (its `_meta["x402/payment"]`) is understood too.
 */
export function decodePayment(header: string): DecodedPayment {
  if (header.length > MAX_HEADER_CHARS) throw new PaymentRefused('malformed payment header: too large');
  const b64 = header.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.replace(/=+$/, '').length % 4 === 1) {
    throw new PaymentRefused('malformed payment header: not base64');
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(b64, 'base64').toString('utf8'));
  } catch {
    throw new PaymentRefused('malformed payment header: not base64-encoded JSON');
  }
  const version = json && typeof json === 'object' ? (json as { x402Version?: unknown }).x402Version : undefined;
  if (version === 1) {
    const p = v1Schema.safeParse(json);
    if (!p.success) throw new PaymentRefused(`malformed x402 v1 payment: ${describe(p.error)}`);
    return {
      version: 1,
      raw: json as PaymentPayloadV1,
      scheme: p.data.scheme,
      network: p.data.network,
      authorization: authorizationOf(p.data.payload.authorization),
      signature: p.data.payload.signature as Hex,
    };
  }
  if (version === 2) {
    const p = v2Schema.safeParse(json);
    if (!p.success) throw new PaymentRefused(`malformed x402 v2 payment: ${describe(p.error)}`);
    return {
      version: 2,
      raw: json as PaymentPayload,
      scheme: p.data.accepted.scheme,
      network: p.data.accepted.network,
      accepted: (json as PaymentPayload).accepted,
      resourceUrl: p.data.resource?.url,
      extensions: p.data.extensions,
      authorization: authorizationOf(p.data.payload.authorization),
      signature: p.data.payload.signature as Hex,
    };
  }
  throw new PaymentRefused('malformed payment header: x402Version must be 1 or 2');
}

function authorizationOf(a: z.output<typeof exactEvmPayload>['authorization']): Authorization {
  return {
    from: getAddress(a.from),
    to: getAddress(a.to),
    value: a.value,
    validAfter: a.validAfter,
    validBefore: a.validBefore,
    nonce: a.nonce.toLowerCase() as Hex,
  };
}

function describe(error: z.ZodError): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || 'payload'} ${first.message}` : 'invalid';
}
