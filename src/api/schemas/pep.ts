import { z } from 'zod';
import { normalizeCountry } from '../../../engine/normalize/index.js';

/** SPEC.md's `/screen/pep` parameters (the response, PepScreenResponse, is the provider's answer: src/pep/schema.ts). */

/** True when a `YYYY`, `YYYY-MM` or `YYYY-MM-DD` string names a real calendar date. */
function isCalendarDate(s: string): boolean {
  const [y, m, d] = s.split('-').map(Number);
  if (m === undefined) return true;
  if (m < 1 || m > 12) return false;
  if (d === undefined) return true;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d >= 1 && d <= days;
}

export const PepInput = z
  .object({
    name: z.string().min(2).max(200).meta({ description: 'Full name.', examples: ['Jake Auchincloss'] }),
    birth_date: z
      .string()
      .regex(/^\d{4}(-\d{2}(-\d{2})?)?$/)
      .refine(isCalendarDate, 'not a calendar date')
      .meta({ description: '`YYYY-MM-DD`, or partial: `YYYY-MM` or the year `YYYY`. Sharpens matching.', examples: ['1988'] })
      .optional(),
    country: z
      .string()
      .refine((s) => normalizeCountry(s) !== null, 'not a known country name or ISO code')
      .meta({ description: 'Country name or ISO 3166 code (alpha-2, alpha-3 or numeric).', examples: ['US'] })
      .optional(),
    limit: z.number().int().min(1).max(10).default(5).meta({ description: 'Maximum candidates returned.' }),
    as_of: z
      .string()
      .optional()
      // Declared (undescribed, to keep the x402 discovery block small) so that it is refused clearly.
      .refine((v) => v === undefined, 'as_of is not supported here: PEP screening asks a live dataset, which keeps no history'),
  })
  .strict();
