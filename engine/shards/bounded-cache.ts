/**
 * A map that starts over once it holds `limit` entries: the prepared names and parties of a
 * shard's candidates, made on first use (a name's preparation costs ~10-20 µs; millions are not
 * prepared at load) and kept for the queries that meet them again.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K, make: () => V): V {
    let v = this.map.get(key);
    if (v === undefined) {
      v = make();
      if (this.map.size >= this.limit) this.map.clear();
      this.map.set(key, v);
    }
    return v;
  }
}
