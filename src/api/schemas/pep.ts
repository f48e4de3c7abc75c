import { z } from 'zod';
import { normalizeCountry } from '../../../engine/normalize/index.js';

/** SPEC.md's `/screen/pep` parameters, PepScreenResponse and PepMatch. */

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
  })
  .strict();

export type PepInputT = z.output<typeof PepInput>;

export const PepMatch = z
  .object({
    id: z.string().meta({ description: 'Entity id in the PEP dataset.' }),
    caption: z.string().meta({ description: 'Display name of the entity.' }),
    score: z.number().min(0).max(1),
    match: z.boolean().meta({ description: 'The score reaches the 0.7 decision threshold.' }),
    topics: z.array(z.string()).default([]).meta({ description: 'e.g. `role.pep` (politically exposed person), `role.rca` (relative or close associate).' }),
    countries: z.array(z.string()).default([]).meta({ description: 'ISO 3166-1 alpha-2 codes, lower case as published.' }),
    birth_dates: z.array(z.string()).default([]),
    positions: z.array(z.string()).default([]),
    datasets: z.array(z.string()).default([]),
    source_url: z.string().meta({ description: 'The entity page.' }),
  })
  .strict()
  .meta({ id: 'PepMatch' });

export const PepScreenResponse = z
  .object({
    value: z.string().meta({ description: 'The name screened.' }),
    pep: z.boolean().meta({ description: 'True when any candidate reaches the 0.7 decision threshold.' }),
    dataset: z.string().default('peps'),
    matches: z.array(PepMatch),
  })
  .strict()
  .meta({ id: 'PepScreenResponse' });

export type PepMatchT = z.output<typeof PepMatch>;
export type PepScreenResponseT = z.output<typeof PepScreenResponse>;
