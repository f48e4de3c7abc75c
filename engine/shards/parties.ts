import { prepareParty, type PreparedParty } from '../names/index.js';
import { BoundedCache } from './bounded-cache.js';
import type { PartyFeatures } from './protocol.js';

/** Prepared parties kept (see BoundedCache). */
const PREPARED_CACHE = 50_000;

/**
 * The parties a shard holds (every record of a party goes to one shard): each party's record and
 * features by party number, and their prepared forms, made on first use.
 */
export class ShardParties {
  private readonly byNumber = new Map<number, { entity: number; features: PartyFeatures }>();
  private readonly prepared = new BoundedCache<number, PreparedParty>(PREPARED_CACHE);

  set(party: number, entity: number, features: PartyFeatures): void {
    this.byNumber.set(party, { entity, features });
  }

  /** The engine id of the party's record, or -1 when the generation has none. */
  entity(party: number): number {
    return this.byNumber.get(party)?.entity ?? -1;
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
