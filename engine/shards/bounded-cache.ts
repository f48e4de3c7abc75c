/** Slots of the doorkeeper: a key's first sighting is noted in one of them. */
const DOORKEEPER_BITS = 17;
const DOORKEEPER_SLOTS = 1 << DOORKEEPER_BITS;

/**
 * A map that starts over once it holds `limit` entries: the prepared names and parties of a
 * shard's candidates, made on first use (a name's preparation costs ~10-20 µs; millions are not
 * prepared at load) and kept for the queries that meet them again.
 *
 * A value is kept only when its key is met a second time (a doorkeeper, as in TinyLFU): most of a
 * query's candidates are met once, and a kept value outlives the shard's next scavenge, which
 * copies it and then promotes it. Keeping every first sighting, distinct queries made each of the
 * shards' scavenges promote ~13 MB and pause twice as long (docs/performance.md). The doorkeeper
 * forgets every sighting once half its slots are taken.
 */
export class BoundedCache<V> {
  private readonly map = new Map<number, V>();
  private readonly seen = new Uint8Array(DOORKEEPER_SLOTS);
  private seenCount = 0;

  constructor(private readonly limit: number) {}

  get(key: number, make: () => V): V {
    const kept = this.map.get(key);
    if (kept !== undefined) return kept;
    const made = make();
    if (this.metBefore(key)) {
      if (this.map.size >= this.limit) this.map.clear();
      this.map.set(key, made);
    }
    return made;
  }

  /** Whether `key` (or a key sharing its slot) was met since the doorkeeper last started over; notes it if not. */
  private metBefore(key: number): boolean {
    const slot = Math.imul(key, 0x9e3779b1) >>> (32 - DOORKEEPER_BITS);
    if (this.seen[slot] !== 0) return true;
    if (this.seenCount >= DOORKEEPER_SLOTS / 2) {
      this.seen.fill(0);
      this.seenCount = 0;
    }
    this.seen[slot] = 1;
    this.seenCount++;
    return false;
  }
}
