/**
 * Open addressing (linear probing, at most half full) from 64-bit hashes to dense numbers
 * 0..count-1, stored as interleaved u32 triples [hashHi, hashLo, number + 1] (0 = empty). The
 * builder grows while a generation loads; `probe` reads the same layout from any Uint32Array, so
 * a finished table can be copied into shared memory and probed by another thread.
 */
export class HashSlots {
  count = 0;
  /** Set by `intern`: whether the last call added a new number. */
  created = false;
  slots = new Uint32Array(3 * 1024);

  get capacity(): number {
    return this.slots.length / 3;
  }

  /**
   * The number of (hi, lo), added when absent. `same(n)` tells two distinct keys with equal
   * hashes apart: when it is given and says no, probing goes on and the key gets its own number.
   */
  intern(hi: number, lo: number, same?: (n: number) => boolean): number {
    const slots = this.slots;
    const mask = this.capacity - 1;
    let i = hi & mask;
    for (;;) {
      const o = 3 * i;
      const s = slots[o + 2];
      if (s === 0) break;
      if (slots[o] === hi && slots[o + 1] === lo && (!same || same(s - 1))) {
        this.created = false;
        return s - 1;
      }
      i = (i + 1) & mask;
    }
    const n = this.count++;
    slots[3 * i] = hi;
    slots[3 * i + 1] = lo;
    slots[3 * i + 2] = n + 1;
    this.created = true;
    if (this.count * 2 > this.capacity) this.rehash();
    return n;
  }

  private rehash(): void {
    const old = this.slots;
    const cap = (old.length / 3) * 2;
    const slots = new Uint32Array(3 * cap);
    const mask = cap - 1;
    for (let o = 0; o < old.length; o += 3) {
      if (old[o + 2] === 0) continue;
      let i = old[o] & mask;
      while (slots[3 * i + 2] !== 0) i = (i + 1) & mask;
      slots[3 * i] = old[o];
      slots[3 * i + 1] = old[o + 1];
      slots[3 * i + 2] = old[o + 2];
    }
    this.slots = slots;
  }
}

/**
 * First slot index at or after `from` holding (hi, lo) in a HashSlots layout of `capacity`
 * (a power of two) slots, or -1 at the first empty slot. Call again from the returned slot + 1
 * to walk past a distinct key with the same hash.
 */
export function probe(slots: Uint32Array, capacity: number, hi: number, lo: number, from = -1): number {
  const mask = capacity - 1;
  let i = from < 0 ? hi & mask : from & mask;
  for (;;) {
    const o = 3 * i;
    if (slots[o + 2] === 0) return -1;
    if (slots[o] === hi && slots[o + 1] === lo) return i;
    i = (i + 1) & mask;
  }
}
