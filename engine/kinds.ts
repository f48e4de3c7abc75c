/**
 * The table of screening kinds, engine side: for each kind its name, its validator and
 * normalizer, the exact-index probes a value of it makes, and the entity types whose listed
 * values are of it. Screening (`Engine`), monitoring (match-one.ts) and the loaders' clean-up
 * read it; src/core/kinds.ts adds what the API publishes of each kind (route, batch and
 * monitoring names, labels). A kind not in this table is a `KindRule` of its own, handed to the
 * same functions.
 */
import { TYPE_INDEX as T, type EntityType, type MatchKind } from './model.js';
import { domainAncestors, regionsOf } from './normalize/index.js';
import type { CountryRef } from './normalize/country.js';
import {
  prepareCountry,
  prepareCrypto,
  prepareEmail,
  prepareId,
  prepareWebsite,
  type PreparedValue,
  type ValueValidator,
} from './normalize/validate.js';

/** Where a kind's probes go: an entity type's exact index (its TYPE_INDEX), the key, how a hit matches. */
export interface ProbeSink {
  add(type: number, key: string, match: MatchKind): void;
}

export interface KindRule extends ValueValidator {
  /** The kind's name in the engine and in batch items (`crypto`, `id`, ...). */
  readonly name: string;
  /**
   * The exact-index probes of a prepared value, in order. `caselessCrypto`: the loaded lists hold
   * base58 addresses known only in lower case (a source lost their case).
   */
  probe(probes: ProbeSink, prepared: PreparedValue, caselessCrypto: boolean): void;
  /** Near government IDs match too, by similarity (the shards' fuzzy index, match-one.ts). */
  readonly fuzzyIds: boolean;
  /** Entity types whose listed values are of this kind: the loaders check them with its validator. */
  readonly listed: readonly EntityType[];
}

/** A base58 address (Bitcoin legacy, Tron, Litecoin, Monero, ...): its case is part of it. */
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{25,110}$/;

const CRYPTO: KindRule = {
  name: 'crypto',
  prepare: prepareCrypto,
  // Keyed by the address's key alone: the chain detection of `normalizeCrypto` costs base58
  // checksums for the same key.
  probe(probes, p, caselessCrypto) {
    const key = p as string;
    probes.add(T.crypto_address, key, 'exact');
    if (caselessCrypto && BASE58.test(key)) {
      const lower = key.toLowerCase();
      if (lower !== key) probes.add(T.crypto_address, lower, 'exact');
    }
  },
  fuzzyIds: false,
  listed: ['crypto_address'],
};

const EMAIL: KindRule = {
  name: 'email',
  prepare: prepareEmail,
  probe(probes, p) {
    const e = p as { key: string; domain: string };
    probes.add(T.email, e.key, 'exact');
    probes.add(T.email_domain, e.domain, 'domain');
    for (const d of domainAncestors(e.domain)) probes.add(T.email_domain, d, 'domain');
  },
  fuzzyIds: false,
  listed: ['email'],
};

const WEBSITE: KindRule = {
  name: 'website',
  prepare: prepareWebsite,
  probe(probes, p) {
    const host = p as string;
    probes.add(T.website, host, 'exact');
    for (const d of domainAncestors(host)) probes.add(T.website, d, 'subdomain');
  },
  fuzzyIds: false,
  // A listed e-mail domain is a domain as a website's is.
  listed: ['website', 'email_domain'],
};

const GOVERNMENT_ID: KindRule = {
  name: 'id',
  prepare: prepareId,
  probe(probes, p) {
    probes.add(T.government_id, p as string, 'exact');
  },
  fuzzyIds: true,
  listed: ['government_id'],
};

const COUNTRY: KindRule = {
  name: 'country',
  prepare: prepareCountry,
  probe(probes, p) {
    const c = p as CountryRef;
    probes.add(T.country, c.code, 'exact');
    for (const r of regionsOf(c.code)) probes.add(T.country, r.code, 'region');
    if (c.parent) probes.add(T.country, c.parent, 'region');
  },
  fuzzyIds: false,
  listed: ['country'],
};

/** The kinds the service screens, in the order the API lists them. */
export const SCREEN_KINDS = { crypto: CRYPTO, email: EMAIL, website: WEBSITE, id: GOVERNMENT_ID, country: COUNTRY };
export type KindName = keyof typeof SCREEN_KINDS;

/** A kind as the engine takes it: one of the table's by name, or a rule of its own. */
export type ScreenKind = KindName | KindRule;

export function kindRule(kind: ScreenKind): KindRule {
  return typeof kind === 'string' ? SCREEN_KINDS[kind] : kind;
}
