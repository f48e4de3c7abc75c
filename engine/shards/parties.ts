import { prepareParty, type PreparedParty } from '../names/index.js';
import { BoundedCache } from './bounded-cache.js';
import type { PartyFeatures } from './protocol.js';

/** Prepared parties kept (see BoundedCache). */
const PREPARED_CACHE = 50_000;

const NONE: readonly number[] = [];

/**
 * The parties a shard holds (every record of a party goes to one shard): each party's records
 * (one per listing period: a party delisted and listed again has a record for each) and features
 * by party number, and their prepared forms, made on first use.
 */
export class ShardParties {
  private readonly byNumber = new Map<number, { entities: number[]; features: PartyFeatures }>();
  private readonly prepared = new BoundedCache<PreparedParty>(PREPARED_CACHE);

  /** Adds a record of `party`; `current` (not a past listing period): its features are the party's. */
  set(party: number, entity: number, features: PartyFeatures, current: boolean): void {
    const known = this.byNumber.get(party);
    if (!known) this.byNumber.set(party, { entities: [entity], features });
    else {
      known.entities.push(entity);
      if (current) known.features = features;
    }
  }

  /** The engine ids of the party's records (none when the generation has no record of it). */
  entities(party: number): readonly number[] {
    return this.byNumber.get(party)?.entities ?? NONE;
  }

  /**
   * The prepared party `party` (> 0), or, for a name without a party record (`party` ≤ 0, a
   * key of the caller's choosing), that name alone as a party of unknown type.
   */
  get(party: number, loneName: () => string): PreparedParty {
    return this.prepared.get(party, () => {
      const known = party > 0 ? this.byNumber.get(party) : undefined;
      return known ? prepareParty(known.features) : prepareParty({ names: [{ value: loneName() }] });
    });
  }
}
