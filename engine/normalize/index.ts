/**
 * Normalizers, one module per kind, and the canonical key the exact indexes use for each entity
 * type.
 */
import type { EntityType } from '../model.js';
import { normalizeCountry } from './country.js';
import { cryptoKey } from './crypto.js';
import { normalizeEmail } from './email.js';
import { normalizeGovernmentId } from './government-id.js';
import { normalizeName } from './name.js';
import { normalizeWebsite } from './website.js';

export { normalizeCrypto, cryptoKey, assetFormats } from './crypto.js';
export { normalizeEmail } from './email.js';
export { normalizeWebsite, asciiHost, domainAncestors } from './website.js';
export { normalizeGovernmentId } from './government-id.js';
export { normalizeCountry, regionsOf, allCountryRefs } from './country.js';
export { normalizeName, nameTokens } from './name.js';

/**
 * The exact-index key of a value of the given entity type; null when the value cannot be
 * normalized (not an e-mail address, no host, no letters or digits, unknown country).
 */
export function canonicalKey(type: EntityType, value: string): string | null {
  switch (type) {
    case 'crypto_address':
      return cryptoKey(value) || null;
    case 'email':
      return normalizeEmail(value)?.key ?? null;
    case 'email_domain':
      // Disposable-domain lists sometimes write the domain as `@domain`.
      return normalizeWebsite(value.trim().replace(/^@/, ''));
    case 'website':
      return normalizeWebsite(value);
    case 'government_id':
      return normalizeGovernmentId(value) || null;
    case 'name':
      return normalizeName(value) || null;
    case 'country':
      return normalizeCountry(value)?.code ?? null;
    case 'party':
      return value.trim() || null;
  }
}
