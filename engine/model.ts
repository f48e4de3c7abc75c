/**
 * The engine's entity model. Loaders produce `EntityRecord`s; the engine numbers them densely
 * (u32 ids in load order), normalizes them and indexes them. Nothing here knows about HTTP or
 * databases.
 */

export const LIST_TYPES = ['sanctions', 'crime', 'risk'] as const;
export type ListType = (typeof LIST_TYPES)[number];

/**
 * `email_domain` is a domain all of whose addresses are listed (disposable e-mail providers): an
 * e-mail screening matches it through the address's domain. `party` is a listed party as one
 * record (value: its id at the source, metadata: `PartyMetadata`); the other records of a party
 * carry that id as `metadata.party_id`.
 */
export const ENTITY_TYPES = [
  'crypto_address',
  'email',
  'email_domain',
  'website',
  'government_id',
  'name',
  'country',
  'party',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
/** Each entity type's position in ENTITY_TYPES: the number the indexes know it by. */
export const TYPE_INDEX = Object.freeze(Object.fromEntries(ENTITY_TYPES.map((t, i) => [t, i]))) as {
  readonly [T in EntityType]: number;
};

/**
 * How a screened or searched value met a list entry.
 * - `exact`: equal canonical keys (whatever case or formatting the client sent).
 * - `subdomain`: the screened host is a subdomain of a listed domain.
 * - `domain`: the screened e-mail address's domain (or a parent domain of it) is a listed e-mail domain.
 * - `region`: the screened country contains a listed sanctioned region, or the screened region
 *   lies in a listed country.
 * - `fuzzy`: similarity of names or government IDs at or above the threshold.
 * - `regex`: the public search's regular-expression mode.
 */
export const MATCH_KINDS = ['exact', 'subdomain', 'domain', 'region', 'fuzzy', 'regex'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

export type Metadata = Record<string, unknown>;

/** One list entry as a loader publishes it. */
export interface EntityRecord {
  /** Slug of the list (the registry's key). */
  list: string;
  entity_type: EntityType;
  /** The value as published on the list (case as published). */
  value: string;
  metadata: Metadata;
  source_url: string | null;
  /** ISO 8601 date-time or null: when the value first appeared (from the listing history). */
  listed_at: string | null;
  /** ISO 8601 date-time or null: set when the value was removed (delisted) from its list. */
  removed_at: string | null;
  /**
   * A removed record whose key was listed again later (or removed again later): a past listing
   * period, kept for screening as of a past date, never shown as a current delisting.
   */
  superseded?: boolean;
}

/** What the engine knows of a list besides its entities (the registry owns the rest). */
export interface ListSnapshotInfo {
  slug: string;
  list_type: ListType;
  /** Version label of the source data (e.g. a publication date or content hash). */
  version: string;
  /** ISO 8601 date-time of the last successful load of the source, or null. */
  last_updated: string | null;
}

export const PARTY_TYPES = ['person', 'organization', 'vessel', 'aircraft'] as const;
export type PartyType = (typeof PARTY_TYPES)[number];

/** One name of a listed party. */
export interface PartyAlias {
  name: string;
  /** As the source calls it (`a.k.a.`, `f.k.a.`, `alias`, `original_script`, ...). */
  type: string;
  /** The source marks it weak or of low quality: it matches only exactly, with a birth date or country agreeing. */
  weak: boolean;
}

/** An identifier the source gives for a party (passport, national ID, registration or IMO number). */
export interface PartyIdentifier {
  type: string | null;
  value: string;
  country: string | null;
}

/**
 * The metadata of a `party` record: the party as its source lists it. Besides these keys, each
 * source keeps its own identifiers (`ent_num`, `reference_number`, `logical_id`, `uk_id`, ...).
 */
export interface PartyMetadata extends Metadata {
  /** The primary name (SPEC's `name` key). */
  name: string;
  party_type: PartyType | null;
  /** Every other name of the party. */
  aliases: PartyAlias[];
  /** `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a range of years `YYYY/YYYY`. */
  birth_dates: string[];
  /** Nationalities, citizenships and countries of address, as published. */
  countries: string[];
  identifiers: PartyIdentifier[];
  programs: string[];
}
