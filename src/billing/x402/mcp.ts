import type { SettledPayment } from '../../core/payments.js';

/**
 * The model-tool transport carries payments in `_meta` rather than headers (SPEC "Model-tool
 * endpoint payments"). These turn them into the header form the pipeline reads and back.
 */

/** `_meta["x402/payment"]` (a payment payload object, or already its base64 form) as an `X-PAYMENT` value. */
export function paymentHeaderFromMcpMeta(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (value !== null && typeof value === 'object') return Buffer.from(JSON.stringify(value)).toString('base64');
  return undefined;
}

/** The receipt for `_meta["x402/payment-response"]`: the decoded receipt header of the payment's generation. */
export function mcpPaymentResponse(settled: SettledPayment): unknown {
  const header = Object.values(settled.headers)[0];
  return header === undefined ? undefined : JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}
