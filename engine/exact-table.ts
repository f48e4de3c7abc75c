import { BytePool } from './byte-pool.js';
import { HashSlots, probe } from './hash-slots.js';

/**
 * Immutable hash table from (entity type, canonical key) to ascending entity ids, built by a
 * shard and laid out in SharedArrayBuffers so the calling thread probes it without a message hop.
 *
 * `index` holds u32 sections: the slots (`HashSlots` triples [hashHi, hashLo, key number + 1]),
 * one 4-word record per key — [first, count, key offset, key length | type << 24 | in-values bit]
 * where `first` is the entity id itself when the key has one entity (most do) or the start of its
 * ids in the postings section — then the postings. A key's bytes are either the published value
 * of its first entity (in the shared value pool: most keys equal their value) or a copy in
 * `keyBytes`. A probe compares the type and the key itself, so a 64-bit hash collision cannot leak
 * a hit, and a hit reads three cache lines: slot, record, key bytes.
 */
export interface ExactTableData {
  index: SharedArrayBuffer;
  keyBytes: SharedArrayBuffer;
  capacity: number;
  keys: number;
  postings: number;
}

const IN_VALUES = 0x80000000;
const LENGTH = 0xffffff;
const TYPE_SHIFT = 24;
const TYPE_MASK = 0x7f;

export class ExactTable {
  private readonly slots: Uint32Array;
  private readonly records: Uint32Array;
  readonly postings: Uint32Array;
  private readonly capacity: number;
  private readonly keyBytes: BytePool;

  constructor(
    data: ExactTableData,
    private readonly values: BytePool,
  ) {
    this.capacity = data.capacity;
    this.slots = new Uint32Array(data.index, 0, 3 * data.capacity);
    this.records = new Uint32Array(data.index, 12 * data.capacity, 4 * data.keys);
    this.postings = new Uint32Array(data.index, 12 * data.capacity + 16 * data.keys, data.postings);
    this.keyBytes = new BytePool(data.keyBytes);
  }

  /** Key number of (`type`, `key`), whose hash is (hi, lo), or -1. */
  find(hi: number, lo: number, key: string, type: number): number {
    let i = probe(this.slots, this.capacity, hi, lo);
    while (i >= 0) {
      const k = this.slots[3 * i + 2] - 1;
      const meta = this.records[4 * k + 3];
      if (((meta >>> TYPE_SHIFT) & TYPE_MASK) === type) {
        const off = this.records[4 * k + 2];
        const end = off + (meta & LENGTH);
        if (meta & IN_VALUES ? this.values.equals(key, off, end) : this.keyBytes.equals(key, off, end)) return k;
      }
      i = probe(this.slots, this.capacity, hi, lo, i + 1);
    }
    return -1;
  }

  /** Entities of key number `k`. */
  count(k: number): number {
    return this.records[4 * k + 1];
  }

  /** The `i`-th entity id of key number `k` (ascending). */
  id(k: number, i: number): number {
    const first = this.records[4 * k];
    return this.records[4 * k + 1] === 1 ? first : this.postings[first + i];
  }
}

/**
 * Collects (type, key, entity id) triples while a shard loads, ids ascending, then lays out the
 * table. `values` is the shared value pool the ids' published values are in.
 */
export class ExactTableBuilder {
  private readonly map = new HashSlots();
  private keyOff = new Uint32Array(1024);
  private keyMeta = new Uint32Array(1024);
  private readonly keyBytes = new BytePool();
  private occKey = new Uint32Array(1024);
  private occId = new Uint32Array(1024);
  private n = 0;
  private pending = '';
  private pendingType = 0;

  constructor(private readonly values: BytePool) {}

  private readonly sameKey = (k: number): boolean => {
    const meta = this.keyMeta[k];
    if (((meta >>> TYPE_SHIFT) & TYPE_MASK) !== this.pendingType) return false;
    const off = this.keyOff[k];
    const end = off + (meta & LENGTH);
    return meta & IN_VALUES ? this.values.equals(this.pending, off, end) : this.keyBytes.equals(this.pending, off, end);
  };

  /**
   * Adds entity `id` of entity type `type` (an index below 128) under `key`, whose hash is
   * (hi, lo). When the key is the entity's published value, `valueStart`/`valueEnd` locate it in
   * the value pool and no copy is made. Returns false (and skips it) for a key over 16 MiB of UTF-8.
   */
  add(hi: number, lo: number, type: number, key: string, id: number, valueStart: number, valueEnd: number, keyIsValue: boolean): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a huge key needs measuring.
    if (key.length > LENGTH / 3 && Buffer.byteLength(key) > LENGTH) return false;
    this.pending = key;
    this.pendingType = type;
    const k = this.map.intern(hi, lo, this.sameKey);
    if (this.map.created) {
      if (k === this.keyOff.length) {
        this.keyOff = grow(this.keyOff, 2 * k);
        this.keyMeta = grow(this.keyMeta, 2 * k);
      }
      let off: number;
      let len: number;
      if (keyIsValue) {
        off = valueStart;
        len = valueEnd - valueStart;
      } else {
        off = this.keyBytes.append(key);
        len = this.keyBytes.size - off;
      }
      this.keyOff[k] = off;
      this.keyMeta[k] = (len | (type << TYPE_SHIFT) | (keyIsValue ? IN_VALUES : 0)) >>> 0;
    }
    if (this.n === this.occId.length) {
      this.occKey = grow(this.occKey, 2 * this.n);
      this.occId = grow(this.occId, 2 * this.n);
    }
    this.occKey[this.n] = k;
    this.occId[this.n] = id;
    this.n++;
    return true;
  }

  build(): ExactTableData {
    const keys = this.map.count;
    const capacity = this.map.capacity;
    const n = this.n;
    const counts = new Uint32Array(keys);
    for (let i = 0; i < n; i++) counts[this.occKey[i]]++;
    let multi = 0;
    for (let k = 0; k < keys; k++) if (counts[k] > 1) multi += counts[k];
    const index = new SharedArrayBuffer(12 * capacity + 16 * keys + 4 * multi);
    new Uint32Array(index, 0, 3 * capacity).set(this.map.slots);
    const records = new Uint32Array(index, 12 * capacity, 4 * keys);
    const postings = new Uint32Array(index, 12 * capacity + 16 * keys, multi);
    let start = 0;
    for (let k = 0; k < keys; k++) {
      records[4 * k + 1] = counts[k];
      records[4 * k + 2] = this.keyOff[k];
      records[4 * k + 3] = this.keyMeta[k];
      if (counts[k] > 1) {
        records[4 * k] = start;
        start += counts[k];
      }
    }
    // Ids arrive ascending, so each key's postings come out ascending; `counts` becomes a cursor.
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const k = this.occKey[i];
      if (records[4 * k + 1] === 1) records[4 * k] = this.occId[i];
      else postings[records[4 * k] + counts[k]++] = this.occId[i];
    }
    this.occKey = this.occId = this.keyOff = this.keyMeta = new Uint32Array(0);
    return { index, keyBytes: this.keyBytes.sab, capacity, keys, postings: multi };
  }
}

function grow(a: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(size, 1024));
  next.set(a);
  return next;
}
