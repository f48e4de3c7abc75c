import { z } from 'zod';
import { normalizeCountry } from '../../engine/normalize/index.js';
import { PARTY_TYPES } from '../../engine/model.js';

/** Parameters describing a person or organisation, shared by `/screen/pep` and `/screen/name`. */

/** True when a `YYYY`, `YYYY-MM` or `YYYY-MM-DD` string names a real calendar date. */
function isCalendarDate(s: string): boolean {
  const [y, m, d] = s.split('-').map(Number);
  if (m === undefined) return true;
  if (m < 1 || m > 12) return false;
  if (d === undefined) return true;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d >= 1 && d <= days;
}

export const birthDateParam = z
  .string()
  .regex(/^\d{4}(-\d{2}(-\d{2})?)?$/)
  .refine(isCalendarDate, 'not a calendar date')
  .meta({ description: '`YYYY-MM-DD`, `YYYY-MM` or `YYYY`.', examples: ['1988'] });

export const countryParam = z
  .string()
  .refine((s) => normalizeCountry(s) !== null, 'not a known country name or ISO code')
  .meta({ description: 'Country name or ISO 3166 code (alpha-2, alpha-3 or numeric).', examples: ['US'] });

/** Longest name screened (`/screen/name`, batch name items). */
export const NAME_MAX = 200;

export const partyTypeParam = z.enum([...PARTY_TYPES, 'any']);
