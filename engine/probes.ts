/**
 * How each kind of screened value is probed in the exact indexes: the one table of screening
 * rules. The engine's screening (`Engine.screenExact`, and the exact part of a government-ID
 * screening) and the matching of one record (match-one.ts: webhook monitoring) both read it, so
 * they cannot drift apart; test/engine/probes.test.ts holds them equal for every entity type.
 */
import { ENTITY_TYPES, type EntityType, type MatchKind } from './model.js';
import { canonicalKey, cryptoKey, domainAncestors, normalizeCountry, normalizeEmail, normalizeGovernmentId, normalizeWebsite, regionsOf } from './normalize/index.js';

export type ScreenKind = 'crypto' | 'email' | 'website' | 'id' | 'country';

/** Receives the probes of a screening: an entity type's exact index, the key, how a hit matches. */
export interface ProbeSink {
  probe(type: EntityType, key: string, match: MatchKind): void;
}

/**
 * Gives `sink` the exact-index probes of a screening of `value`, in order; none when the value
 * cannot be normalized. A crypto address is keyed by `cryptoKey` (the key alone: the chain
 * detection of `normalizeCrypto` costs 5-15 µs of base58 checksums for the same key).
 */
export function visitProbes(kind: ScreenKind, value: string, sink: ProbeSink): void {
  switch (kind) {
    case 'crypto': {
      const key = cryptoKey(value);
      if (key) sink.probe('crypto_address', key, 'exact');
      return;
    }
    case 'email': {
      const e = normalizeEmail(value);
      if (!e) return;
      sink.probe('email', e.key, 'exact');
      sink.probe('email_domain', e.domain, 'domain');
      for (const d of domainAncestors(e.domain)) sink.probe('email_domain', d, 'domain');
      return;
    }
    case 'website': {
      const host = normalizeWebsite(value);
      if (!host) return;
      sink.probe('website', host, 'exact');
      for (const d of domainAncestors(host)) sink.probe('website', d, 'subdomain');
      return;
    }
    case 'id': {
      const key = normalizeGovernmentId(value);
      if (key) sink.probe('government_id', key, 'exact');
      return;
    }
    case 'country': {
      const c = normalizeCountry(value);
      if (!c) return;
      sink.probe('country', c.code, 'exact');
      for (const r of regionsOf(c.code)) sink.probe('country', r.code, 'region');
      if (c.parent) sink.probe('country', c.parent, 'region');
      return;
    }
  }
}

/** Entity types a free-text search looks up exactly (names are searched by similarity). */
const SEARCHED_TYPES = ENTITY_TYPES.filter((t) => t !== 'name');

/**
 * The exact-index probes of a free-text search: the query as a value of each entity type, keyed
 * as the indexes key that type (`canonicalKey`), every hit `exact`.
 */
export function visitSearchProbes(query: string, sink: ProbeSink): void {
  for (const type of SEARCHED_TYPES) {
    const key = canonicalKey(type, query);
    if (key !== null) sink.probe(type, key, 'exact');
  }
}
