import { z } from 'zod';

/** Error bodies: FastAPI's validation error, `{"detail": "..."}`, and the x402 v1 challenge. */

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .meta({ id: 'ValidationError' });

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationError) })
  .strict()
  .meta({ id: 'HTTPValidationError' });

export const ErrorDetail = z
  .object({ detail: z.string().meta({ description: 'What went wrong, in words.' }) })
  .strict()
  .meta({ id: 'ErrorDetail' });

const PaymentRequirementsV1 = z
  .object({
    scheme: z.literal('exact'),
    network: z.string().meta({ description: 'Plain network name, e.g. base or base-sepolia.' }),
    maxAmountRequired: z.string().meta({ description: 'Price in base units (6 decimals): 10000 = 0.01 USD.' }),
    resource: z.string().meta({ description: 'Full URL of the requested resource.' }),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int(),
    asset: z.string().meta({ description: 'Token contract address on the offered network.' }),
    outputSchema: z.unknown().optional(),
    extra: z.object({ name: z.string(), version: z.string() }).loose(),
  })
  .loose()
  .meta({ id: 'PaymentRequirementsV1' });

const PaymentOption = z
  .object({ type: z.enum(['pay_per_request', 'upgrade_plan']) })
  .loose()
  .meta({ id: 'PaymentOption' });

export const PaymentRequired = z
  .object({
    x402Version: z.literal(1),
    error: z.string(),
    accepts: z.array(PaymentRequirementsV1),
    options: z.array(PaymentOption),
  })
  .loose()
  .meta({
    id: 'PaymentRequired',
    description: 'x402 v1 challenge. The v2 challenge is the base64 JSON of the PAYMENT-REQUIRED response header.',
  });
