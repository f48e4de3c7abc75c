import { BytePool } from './byte-pool.js';
import { HashSlots, probe } from './hash-slots.js';

/**
 * Immutable hash table from canonical keys to ascending entity ids, built by a shard and laid out
 * in SharedArrayBuffers so the calling thread probes it without a message hop.
 *
 * `index` holds u32 sections: the slots (`HashSlots` triples [hashHi, hashLo, key number + 1]),
 * then per key number its postings start (plus one end), the offset and length of its bytes, then
 * the postings (entity ids). A key's bytes are either the published value of its first entity (in
 * the shared value pool, flagged by the length's top bit: most keys equal their value) or a copy
 * in `keyBytes`. A probe compares the key itself, so a 64-bit hash collision cannot leak a hit,
 * and the calling thread needs no key strings of its own.
 */
export interface ExactTableData {
  index: SharedArrayBuffer;
  keyBytes: SharedArrayBuffer;
  capacity: number;
  keys: number;
  postings: number;
}

const IN_VALUES = 0x80000000;
const LENGTH = 0x7fffffff;

export class ExactTable {
  private readonly slots: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly keyOff: Uint32Array;
  private readonly keyLen: Uint32Array;
  readonly postings: Uint32Array;
  private readonly capacity: number;
  private readonly keyBytes: BytePool;

  constructor(
    data: ExactTableData,
    private readonly values: BytePool,
  ) {
    const k = data.keys;
    let o = 0;
    const section = (n: number) => {
      const a = new Uint32Array(data.index, 4 * o, n);
      o += n;
      return a;
    };
    this.capacity = data.capacity;
    this.slots = section(3 * data.capacity);
    this.starts = section(k + 1);
    this.keyOff = section(k);
    this.keyLen = section(k);
    this.postings = section(data.postings);
    this.keyBytes = new BytePool(data.keyBytes);
  }

  /** Key number of `key` (whose hash is hi, lo), or -1. */
  find(hi: number, lo: number, key: string): number {
    let i = probe(this.slots, this.capacity, hi, lo);
    while (i >= 0) {
      const k = this.slots[3 * i + 2] - 1;
      if (this.keyEquals(k, key)) return k;
      i = probe(this.slots, this.capacity, hi, lo, i + 1);
    }
    return -1;
  }

  private keyEquals(k: number, key: string): boolean {
    const off = this.keyOff[k];
    const len = this.keyLen[k];
    const end = off + (len & LENGTH);
    return len & IN_VALUES ? this.values.equals(key, off, end) : this.keyBytes.equals(key, off, end);
  }

  /** Postings of key number `k` are `postings[start(k) .. end(k))`. */
  start(k: number): number {
    return this.starts[k];
  }

  end(k: number): number {
    return this.starts[k + 1];
  }
}

/**
 * Collects (key, entity id) pairs while a shard loads, ids ascending, then lays out the table.
 * `values` is the shared value pool the ids' published values are in.
 */
export class ExactTableBuilder {
  private readonly map = new HashSlots();
  private keyOff = new Uint32Array(1024);
  private keyLen = new Uint32Array(1024);
  private readonly keyBytes = new BytePool();
  private occKey = new Uint32Array(1024);
  private occId = new Uint32Array(1024);
  private n = 0;
  private pending = '';

  constructor(private readonly values: BytePool) {}

  private readonly sameKey = (k: number): boolean => {
    const off = this.keyOff[k];
    const len = this.keyLen[k];
    const end = off + (len & LENGTH);
    return len & IN_VALUES ? this.values.equals(this.pending, off, end) : this.keyBytes.equals(this.pending, off, end);
  };

  /**
   * Adds entity `id` under `key`, whose hash is (hi, lo). When the key is the entity's published
   * value, `valueStart`/`valueEnd` locate it in the value pool and no copy is made.
   */
  add(hi: number, lo: number, key: string, id: number, valueStart: number, valueEnd: number, keyIsValue: boolean): void {
    this.pending = key;
    const k = this.map.intern(hi, lo, this.sameKey);
    if (this.map.created) {
      if (k === this.keyOff.length) {
        this.keyOff = grow(this.keyOff, 2 * k);
        this.keyLen = grow(this.keyLen, 2 * k);
      }
      if (keyIsValue) {
        this.keyOff[k] = valueStart;
        this.keyLen[k] = (valueEnd - valueStart) | IN_VALUES;
      } else {
        this.keyOff[k] = this.keyBytes.append(key);
        this.keyLen[k] = this.keyBytes.size - this.keyOff[k];
      }
    }
    if (this.n === this.occId.length) {
      this.occKey = grow(this.occKey, 2 * this.n);
      this.occId = grow(this.occId, 2 * this.n);
    }
    this.occKey[this.n] = k;
    this.occId[this.n] = id;
    this.n++;
  }

  get size(): number {
    return this.n;
  }

  build(): ExactTableData {
    const keys = this.map.count;
    const capacity = this.map.capacity;
    const n = this.n;
    const index = new SharedArrayBuffer(4 * (3 * capacity + keys + 1 + 2 * keys + n));
    let o = 0;
    const section = (len: number) => {
      const a = new Uint32Array(index, 4 * o, len);
      o += len;
      return a;
    };
    section(3 * capacity).set(this.map.slots);
    const starts = section(keys + 1);
    section(keys).set(this.keyOff.subarray(0, keys));
    section(keys).set(this.keyLen.subarray(0, keys));
    const postings = section(n);
    for (let i = 0; i < n; i++) starts[this.occKey[i] + 1]++;
    for (let k = 0; k < keys; k++) starts[k + 1] += starts[k];
    const fill = starts.slice(0, keys);
    // Ids arrive ascending, so each key's postings come out ascending.
    for (let i = 0; i < n; i++) postings[fill[this.occKey[i]]++] = this.occId[i];
    this.occKey = this.occId = this.keyOff = this.keyLen = new Uint32Array(0);
    return { index, keyBytes: this.keyBytes.sab, capacity, keys, postings: n };
  }
}

function grow(a: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(size, 1024));
  next.set(a);
  return next;
}
