/**
 * Immutable open-addressing table from 64-bit key hashes to ranges of entity ids, laid out in a
 * SharedArrayBuffer so a shard can build it and the calling thread can probe it without a
 * message hop. Layout: `capacity` slots of four u32 [hashHi, hashLo, start, count] (count 0 =
 * empty), then the postings (entity ids, ascending per key). Distinct keys whose hashes collide
 * share a slot; callers verify the key string of every id they take.
 */
export interface ExactTableData {
  buffer: SharedArrayBuffer;
  capacity: number;
  postings: number;
}

export class ExactTable {
  private readonly slots: Uint32Array;
  readonly postings: Uint32Array;
  private readonly mask: number;

  constructor(data: ExactTableData) {
    this.slots = new Uint32Array(data.buffer, 0, data.capacity * 4);
    this.postings = new Uint32Array(data.buffer, data.capacity * 16, data.postings);
    this.mask = data.capacity - 1;
  }

  /** Slot index of the hash, or -1. */
  find(hi: number, lo: number): number {
    const slots = this.slots;
    let i = hi & this.mask;
    for (;;) {
      const o = i << 2;
      if (slots[o + 3] === 0) return -1;
      if (slots[o] === hi && slots[o + 1] === lo) return i;
      i = (i + 1) & this.mask;
    }
  }

  start(slot: number): number {
    return this.slots[(slot << 2) + 2];
  }

  count(slot: number): number {
    return this.slots[(slot << 2) + 3];
  }
}

/** Accumulates (hash, id) triples in arrival order, then lays out the table in two passes. */
export class ExactTableBuilder {
  private triples = new Uint32Array(3 * 1024);
  private n = 0;

  add(hi: number, lo: number, id: number): void {
    if ((this.n + 1) * 3 > this.triples.length) {
      const next = new Uint32Array(this.triples.length * 2);
      next.set(this.triples);
      this.triples = next;
    }
    const o = this.n * 3;
    this.triples[o] = hi;
    this.triples[o + 1] = lo;
    this.triples[o + 2] = id;
    this.n++;
  }

  get size(): number {
    return this.n;
  }

  build(): ExactTableData {
    const n = this.n;
    let capacity = 16;
    while (capacity < n * 2) capacity *= 2;
    const mask = capacity - 1;
    const buffer = new SharedArrayBuffer(capacity * 16 + n * 4);
    const slots = new Uint32Array(buffer, 0, capacity * 4);
    const postings = new Uint32Array(buffer, capacity * 16, n);
    const t = this.triples;
    // Pass 1: place every distinct hash and count its ids; remember each triple's slot.
    const slotOf = new Uint32Array(n);
    for (let k = 0; k < n; k++) {
      const hi = t[k * 3];
      const lo = t[k * 3 + 1];
      let i = hi & mask;
      for (;;) {
        const o = i << 2;
        if (slots[o + 3] === 0) {
          slots[o] = hi;
          slots[o + 1] = lo;
          break;
        }
        if (slots[o] === hi && slots[o + 1] === lo) break;
        i = (i + 1) & mask;
      }
      slots[(i << 2) + 3]++;
      slotOf[k] = i;
    }
    // Pass 2: prefix sums give each slot its range; ids arrive ascending, so ranges stay sorted.
    let start = 0;
    for (let i = 0; i < capacity; i++) {
      const o = i << 2;
      slots[o + 2] = start;
      start += slots[o + 3];
    }
    // The start field serves as the fill cursor, then is wound back by the count.
    for (let k = 0; k < n; k++) {
      const o = (slotOf[k] << 2) + 2;
      postings[slots[o]++] = t[k * 3 + 2];
    }
    for (let i = 0; i < capacity; i++) slots[(i << 2) + 2] -= slots[(i << 2) + 3];
    this.triples = new Uint32Array(0);
    return { buffer, capacity, postings: n };
  }
}
