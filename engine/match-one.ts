/**
 * Screening of one value against one entity record, without an index: does a screening of value V
 * of kind K match record R, and how. The rules are the engine's (engine.ts `screenExact` and the
 * shards' fuzzy IDs), built on the same normalizers and canonical keys, so a monitored value is
 * reported for exactly the listings a screening of it would return.
 *
 * `screenProbes` lists the exact-index probes a screening makes — (entity type, canonical key,
 * match kind) — so a caller holding many values can index them by those keys and confirm each
 * candidate with `matchOne`. Fuzzy government IDs have no key to probe: they need a scan.
 */
import type { ScreenKind } from './engine.js';
import type { EntityRecord, EntityType, MatchKind } from './model.js';
import { canonicalKey, domainAncestors, normalizeCountry, normalizeCrypto, normalizeEmail, normalizeGovernmentId, normalizeWebsite, regionsOf } from './normalize/index.js';
import { FUZZY_ID_THRESHOLD, idSimilarity } from './similarity.js';

export interface Probe {
  entity_type: EntityType;
  key: string;
  match: MatchKind;
}

export interface OneMatch {
  match: MatchKind;
  /** 1 for rule-based matches, the ID similarity for `fuzzy`. */
  similarity: number;
}

/** The exact-index probes of a screening of `value`, in the engine's order; empty when it cannot be normalized. */
export function screenProbes(kind: ScreenKind, value: string): Probe[] {
  switch (kind) {
    case 'crypto': {
      const key = normalizeCrypto(value).key;
      return key ? [{ entity_type: 'crypto_address', key, match: 'exact' }] : [];
    }
    case 'email': {
      const e = normalizeEmail(value);
      if (!e) return [];
      return [
        { entity_type: 'email', key: e.key, match: 'exact' },
        { entity_type: 'email_domain', key: e.domain, match: 'domain' },
        ...domainAncestors(e.domain).map((d): Probe => ({ entity_type: 'email_domain', key: d, match: 'domain' })),
      ];
    }
    case 'website': {
      const host = normalizeWebsite(value);
      if (!host) return [];
      return [
        { entity_type: 'website', key: host, match: 'exact' },
        ...domainAncestors(host).map((d): Probe => ({ entity_type: 'website', key: d, match: 'subdomain' })),
      ];
    }
    case 'id': {
      const key = normalizeGovernmentId(value);
      return key ? [{ entity_type: 'government_id', key, match: 'exact' }] : [];
    }
    case 'country': {
      const c = normalizeCountry(value);
      if (!c) return [];
      const out: Probe[] = [{ entity_type: 'country', key: c.code, match: 'exact' }];
      for (const r of regionsOf(c.code)) out.push({ entity_type: 'country', key: r.code, match: 'region' });
      if (c.parent) out.push({ entity_type: 'country', key: c.parent, match: 'region' });
      return out;
    }
  }
}

/** How a screening of `value` (of `kind`) matches `record`, or null when it does not. */
export function matchOne(kind: ScreenKind, value: string, record: Pick<EntityRecord, 'entity_type' | 'value'>): OneMatch | null {
  const key = canonicalKey(record.entity_type, record.value);
  if (key === null) return null;
  for (const p of screenProbes(kind, value)) {
    if (p.entity_type === record.entity_type && p.key === key) return { match: p.match, similarity: 1 };
  }
  if (kind === 'id' && record.entity_type === 'government_id') {
    const sim = idSimilarity(normalizeGovernmentId(value), key);
    if (sim >= FUZZY_ID_THRESHOLD) return { match: 'fuzzy', similarity: sim };
  }
  return null;
}
