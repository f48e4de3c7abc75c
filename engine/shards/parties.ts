import { prepareParty, type PreparedParty } from '../names/index.js';
import type { PartyFeatures } from './protocol.js';

/**
 * Prepared parties kept at most; past this the cache starts over. Preparing a name costs ~15-20
 * µs (bench/RESULTS.md), so a party's names are prepared when a query first meets them, not at
 * load (millions of names), and kept for the queries that meet them again.
 */
const PREPARED_CACHE = 50_000;

/**
 * The parties a shard holds (every record of a party goes to one shard): each party's record and
 * features by party number, and their prepared forms, made on first use.
 */
export class ShardParties {
  private readonly byNumber = new Map<number, { entity: number; features: PartyFeatures }>();
  private readonly prepared = new Map<number, PreparedParty>();

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
    let p = this.prepared.get(party);
    if (p) return p;
    const known = party > 0 ? this.byNumber.get(party) : undefined;
    p = known ? prepareParty(known.features) : prepareParty({ names: [{ value: loneName() }] });
    if (this.prepared.size >= PREPARED_CACHE) this.prepared.clear();
    this.prepared.set(party, p);
    return p;
  }
}
