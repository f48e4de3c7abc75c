import { z } from 'zod';
import { birthDateParam, countryParam } from '../../core/person.js';

/** SPEC.md's `/screen/pep` parameters (the response, PepScreenResponse, is the provider's answer: src/pep/schema.ts). */

export const PepInput = z
  .object({
    name: z
      .string()
      .min(2)
      .max(200)
      .meta({ description: 'Full name.', examples: ['Jake Auchincloss'] }),
    birth_date: birthDateParam.optional(),
    country: countryParam.optional(),
    limit: z.number().int().min(1).max(10).default(5).meta({ description: 'Maximum candidates returned.' }),
    as_of: z
      .string()
      .optional()
      // Declared (undescribed, to keep the x402 discovery block small) so that it is refused clearly.
      .refine(
        (v) => v === undefined,
        'as_of is not supported here: PEP screening asks a live dataset, which keeps no history',
      ),
  })
  .strict();
