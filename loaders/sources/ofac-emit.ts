import type { EntityRecord, Metadata, PartyType } from '../../engine/model.js';
import { networkOf } from './crypto-assets.js';
import { ofacDetailsUrl, type OfacFeature } from './ofac-features.js';
import { PartyBuilder } from './party.js';

/** What both OFAC parsers (legacy CSV and SDN.XML) know of one listed party. */
export interface OfacParty {
  entNum: string;
  name: string;
  sdnType: string;
  programs: string[];
  /** Countries of the party's addresses (name records carry them, for search results). */
  countries: string[];
  /** The party record being gathered. */
  party: PartyBuilder;
}

/** OFAC's SDN types (`individual`, `entity` or empty, `vessel`, `aircraft`) as party types. */
function partyType(sdnType: string): PartyType {
  switch (sdnType.toLowerCase()) {
    case 'individual':
      return 'person';
    case 'vessel':
      return 'vessel';
    case 'aircraft':
      return 'aircraft';
    default:
      return 'organization';
  }
}

export function ofacParty(
  entNum: string,
  name: string,
  sdnType: string,
  programs: string[],
  countries: string[],
): OfacParty {
  const party = new PartyBuilder(entNum, name, partyType(sdnType));
  for (const c of countries) party.country(c);
  return { entNum, name, sdnType, programs, countries, party };
}

function base(list: string, party: OfacParty): Pick<EntityRecord, 'list' | 'source_url' | 'listed_at' | 'removed_at'> {
  return { list, source_url: ofacDetailsUrl(party.entNum), listed_at: null, removed_at: null };
}

function partyMetadata(party: OfacParty): Metadata {
  return {
    name: party.name,
    sdn_name: party.name,
    programs: party.programs,
    sdn_type: party.sdnType,
    ent_num: party.entNum,
    party_id: party.entNum,
  };
}

/** A name record of the party (its alias goes into the party record too). */
export function ofacNameRecord(
  list: string,
  party: OfacParty,
  value: string,
  aliasType: string,
  aliasQuality: string | null,
): EntityRecord {
  const metadata: Metadata = { ...partyMetadata(party), alias_type: aliasType, countries: party.countries };
  if (aliasQuality) metadata.alias_quality = aliasQuality;
  if (value !== party.name) party.party.alias(value, aliasType, aliasQuality === 'weak');
  return { ...base(list, party), entity_type: 'name', value, metadata };
}

/** The party record, once every name and feature of the party has been read. */
export function ofacPartyRecord(list: string, party: OfacParty): EntityRecord {
  return party.party.record(list, ofacDetailsUrl(party.entNum), party.programs, {
    sdn_name: party.name,
    sdn_type: party.sdnType,
    ent_num: party.entNum,
  });
}

/**
 * Entity records of the features of one party, without repeats: an address or document listed
 * twice for the same party (e.g. once more as `alt.`) is one entry; the same address under two
 * assets (ETH and ETC) is two. Birth dates, nationalities and identifiers go to the party record
 * only.
 */
export function* ofacFeatureRecords(
  list: string,
  party: OfacParty,
  features: Iterable<OfacFeature>,
): Generator<EntityRecord> {
  const seen = new Set<string>();
  for (const f of features) {
    switch (f.kind) {
      case 'birth_date':
        party.party.birthDate(f.value);
        continue;
      case 'nationality':
        party.party.country(f.value);
        continue;
      case 'identifier':
        party.party.identifier(f.identifierType, f.value, null);
        continue;
      case 'alias': {
        const key = `name\u0000${f.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        yield ofacNameRecord(list, party, f.value, f.aliasType, 'weak');
        continue;
      }
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
        party.party.identifier(f.documentType, f.value, f.country);
        yield {
          ...base(list, party),
          entity_type: 'government_id',
          value: f.value,
          metadata: {
            document_type: f.documentType,
            country: f.country,
            ...(f.details ? { details: f.details } : {}),
            ...partyMetadata(party),
          },
        };
        break;
    }
  }
}
