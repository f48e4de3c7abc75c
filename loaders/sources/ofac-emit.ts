import type { EntityRecord, Metadata } from '../../engine/model.js';
import { networkOf } from './crypto-assets.js';
import { ofacDetailsUrl, type OfacFeature } from './ofac-features.js';

/** What both OFAC parsers (legacy CSV and SDN.XML) know of one listed party. */
export interface OfacParty {
  entNum: string;
  name: string;
  sdnType: string;
  programs: string[];
  /** Countries of the party's addresses (name records carry them, for search results). */
  countries: string[];
}

function base(list: string, party: OfacParty): Pick<EntityRecord, 'list' | 'source_url' | 'listed_at' | 'removed_at'> {
  return { list, source_url: ofacDetailsUrl(party.entNum), listed_at: null, removed_at: null };
}

function partyMetadata(party: OfacParty): Metadata {
  return { name: party.name, sdn_name: party.name, programs: party.programs, sdn_type: party.sdnType, ent_num: party.entNum };
}

export function ofacNameRecord(list: string, party: OfacParty, value: string, aliasType: string, aliasQuality: string | null): EntityRecord {
  const metadata: Metadata = { ...partyMetadata(party), alias_type: aliasType, countries: party.countries };
  if (aliasQuality) metadata.alias_quality = aliasQuality;
  return { ...base(list, party), entity_type: 'name', value, metadata };
}

/**
 * Entity records of the features of one party, without repeats: an address or document listed
 * twice for the same party (e.g. once more as `alt.`) is one entry; the same address under two
 * assets (ETH and ETC) is two.
 */
export function* ofacFeatureRecords(list: string, party: OfacParty, features: Iterable<OfacFeature>): Generator<EntityRecord> {
  const seen = new Set<string>();
  for (const f of features) {
    if (f.kind === 'alias') {
      const key = `name\u0000${f.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      yield ofacNameRecord(list, party, f.value, f.aliasType, 'weak');
      continue;
    }
    const key = `${f.kind}\u0000${f.kind === 'document' ? f.documentType : f.kind === 'crypto' ? f.symbol : ''}\u0000${f.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    switch (f.kind) {
      case 'crypto':
        yield {
          ...base(list, party),
          entity_type: 'crypto_address',
          value: f.value,
          metadata: { symbol: f.symbol, network: networkOf(f.symbol, f.value), ...partyMetadata(party) },
        };
        break;
      case 'email':
        yield { ...base(list, party), entity_type: 'email', value: f.value, metadata: partyMetadata(party) };
        break;
      case 'website':
        yield { ...base(list, party), entity_type: 'website', value: f.value, metadata: partyMetadata(party) };
        break;
      case 'document':
        yield {
          ...base(list, party),
          entity_type: 'government_id',
          value: f.value,
          metadata: { document_type: f.documentType, country: f.country, ...(f.details ? { details: f.details } : {}), ...partyMetadata(party) },
        };
        break;
    }
  }
}
