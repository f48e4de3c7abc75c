import { BytePool } from './byte-pool.js';
import { growableBuffer, growBuffer } from './growable.js';
import type { KeyBytes } from './key-bytes.js';

/**
 * Immutable hash tables from (entity type, canonical key) to ascending entity ids, in shared
 * memory so the calling thread probes them without a message hop. Keys are split by hash into
 * one partition per shard: each shard collects the keys of the entities it was given
 * (`ExactKeyCollector`), then builds one partition from every shard's keys of that partition
 * (`buildExactTable`). A key therefore lives in exactly one table, and a lookup is one probe.
 *
 * A table is open addressing with linear probing, at most `MAX_LOAD` full. Slots are four u32
 * (four to a cache line): [tag, meta, key offset, ref]. The low hash word picks the slot, the
 * high one is the tag; meta = key length (23 bits) | overflow bit | type << 24 | value-is-key bit
 * (set when the key is its one entity's published value, which a caller holding the key string
 * then need not decode); ref = 0 for an empty slot, id + 1 for a key of one entity (most keys),
 * MULTI | start for a key of several, whose count is `postings[start]` followed by the ids
 * ascending. The slots come in blocks of `BLOCK`, each followed by room for the bytes of the keys
 * it holds (a key that does not fit goes to an overflow area), so a hit mostly reads its key on
 * its slot's memory page rather than walking to a second one. Blocks have one size per table, so
 * a slot's address is arithmetic, not another memory read. The tags are also kept in a dense array of their own (0
 * for an empty slot), which a probe scans first: a miss, the usual answer to a screening, reads
 * one cache line of 16 tags instead of the slots. Keys are hashed and compared as UTF-8
 * (`KeyBytes`). A probe compares the tag, the type and the key bytes themselves, so a hash
 * collision cannot leak a hit.
 */
export interface ExactTableData {
  /** The blocks: `BLOCK` slots, then room for their keys (each 4-byte aligned). */
  table: SharedArrayBuffer;
  /** u32 words per block. */
  blockWords: number;
  /** Keys that did not fit in their block's room. */
  overflow: SharedArrayBuffer;
  /** u32 per slot: its tag (see `tagOf`), 0 when empty. */
  tags: SharedArrayBuffer;
  postings: SharedArrayBuffer;
  capacity: number;
}

/** One shard's keys of one partition: `count` entries of `ENTRY` u32 each, keys not in the value pool in `keyBytes`. */
export interface ExactKeySet {
  entries: SharedArrayBuffer;
  count: number;
  keyBytes: SharedArrayBuffer;
}

/** In a collected entry's meta: its key is in the value pool (else in the shard's key bytes). */
const IN_VALUES = 0x80000000;
/** In a slot's meta: its key is the published value of its one entity. */
const VALUE_IS_KEY = 0x80000000;
/** In a slot's meta: its key is in the overflow area, not in its block. */
const OVERFLOW = 0x800000;
const LENGTH = 0x7fffff;
const TYPE_SHIFT = 24;
const MULTI = 0x80000000;
/** Linear probing stays short below this (a miss scans 2.5 slots on average, most often in one cache line). */
const MAX_LOAD = 0.5;
/** Slots per block (1 KiB of slots, then their keys: about half a 4 KiB page). */
const BLOCK_BITS = 6;
const BLOCK = 1 << BLOCK_BITS;
/** A block's room for keys, relative to the mean key bytes a block gets: few keys overflow. */
const KEY_ROOM = 1.5;
/** Entry layout: [hash hi, hash lo, id, key offset, meta]. */
const ENTRY = 5;
/** Largest growable shared buffer (4 GiB): 214 M entries a partition and shard. */
const MAX_ENTRY_BYTES = 2 ** 32 - 4;

/** A slot's tag in the tag array: the high hash word, never 0 (which marks an empty slot). */
function tagOf(hi: number): number {
  return hi === 0 ? 1 : hi;
}

/** The partition (0 .. partitions - 1) of a key whose high hash word is `hi`. */
export function partitionOf(hi: number, partitions: number): number {
  return Math.floor((hi * partitions) / 4294967296);
}

export class ExactTable {
  private readonly words: Uint32Array;
  private readonly blockWords: number;
  private readonly bytes: DataView;
  private readonly overflow: DataView;
  private readonly tags: Uint32Array;
  private readonly mask: number;
  readonly postings: Uint32Array;

  constructor(data: ExactTableData) {
    this.tags = new Uint32Array(data.tags);
    this.words = new Uint32Array(data.table);
    this.blockWords = data.blockWords;
    this.bytes = new DataView(data.table);
    this.overflow = new BytePool(data.overflow).dataView();
    this.mask = data.capacity - 1;
    this.postings = new Uint32Array(data.postings);
  }

  /** The slot of (`type`, `key`), whose hash is (hi, lo), as the u32 index of its first word; -1 if absent. */
  find(hi: number, lo: number, key: KeyBytes, type: number): number {
    const tags = this.tags;
    const words = this.words;
    const mask = this.mask;
    const tag = tagOf(hi);
    const wanted = (key.length | (type << TYPE_SHIFT)) >>> 0;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const t = tags[i];
      if (t === 0) return -1;
      if (t !== tag) continue;
      const o = (i >>> BLOCK_BITS) * this.blockWords + 4 * (i & (BLOCK - 1));
      const meta = words[o + 1];
      if (words[o] !== hi || (meta & ~(VALUE_IS_KEY | OVERFLOW)) !== wanted) continue;
      if (key.equals(meta & OVERFLOW ? this.overflow : this.bytes, words[o + 2])) return o;
    }
  }

  /**
   * Whether the key in `slot` is the published value of its entity (the key of one entity, stored
   * from that entity's value): a caller holding the key string then need not decode the value.
   */
  isValue(slot: number): boolean {
    return (this.words[slot + 1] & VALUE_IS_KEY) !== 0 && (this.words[slot + 3] & MULTI) === 0;
  }

  /** Entities of the key in `slot`. */
  count(slot: number): number {
    const ref = this.words[slot + 3];
    return ref & MULTI ? this.postings[ref & ~MULTI] : 1;
  }

  /** The `i`-th entity id (ascending) of the key in `slot`. */
  id(slot: number, i: number): number {
    const ref = this.words[slot + 3];
    return ref & MULTI ? this.postings[(ref & ~MULTI) + 1 + i] : ref - 1;
  }
}

/**
 * One shard's exact keys while it loads, by partition: (hash, id, key location) entries. A key
 * that is its entity's published value is located in the shared value pool; any other is copied
 * into this collector's own bytes.
 */
export class ExactKeyCollector {
  /** Per partition, entries in a growable shared buffer (grown in place: no copies to free). */
  private readonly buffers: SharedArrayBuffer[];
  private readonly entries: Uint32Array[];
  private readonly counts: number[];
  private readonly keyBytes = new BytePool();

  constructor(private readonly partitions: number) {
    this.buffers = Array.from({ length: partitions }, () => growableBuffer(4 * ENTRY * 1024, MAX_ENTRY_BYTES));
    this.entries = this.buffers.map((b) => new Uint32Array(b, 0, b.byteLength / 4));
    this.counts = new Array<number>(partitions).fill(0);
  }

  /**
   * Adds entity `id` of entity type `type` (an index below 128) under the current `key`, whose
   * hash is (hi, lo). When the key is the entity's published value, which starts at byte
   * `valueStart` of the value pool, no copy is made. Entities must arrive in ascending id order.
   * Returns false (and skips it) for a key over 8 MiB of UTF-8.
   */
  add(
    hi: number,
    lo: number,
    type: number,
    key: KeyBytes,
    id: number,
    keyIsValue: boolean,
    valueStart: number,
  ): boolean {
    const len = key.length;
    if (len > LENGTH) return false;
    const off = keyIsValue ? valueStart : this.keyBytes.appendBytes(key.bytes, 0, len);
    const p = partitionOf(hi, this.partitions);
    const n = this.counts[p]++;
    let a = this.entries[p];
    if (ENTRY * (n + 1) > a.length) {
      const buffer = this.buffers[p];
      const bytes = Math.min(MAX_ENTRY_BYTES, 2 * buffer.byteLength);
      if (bytes < 4 * ENTRY * (n + 1))
        throw new RangeError(`a shard's exact keys of one partition exceed ${MAX_ENTRY_BYTES} bytes`);
      growBuffer(buffer, bytes);
      a = this.entries[p] = new Uint32Array(buffer, 0, bytes / 4);
    }
    const o = ENTRY * n;
    a[o] = hi;
    a[o + 1] = lo;
    a[o + 2] = id;
    a[o + 3] = off;
    a[o + 4] = (len | (type << TYPE_SHIFT) | (keyIsValue ? IN_VALUES : 0)) >>> 0;
    return true;
  }

  /** The keys of each partition, in shared memory for the shard that builds it. */
  seal(): ExactKeySet[] {
    return this.buffers.map((entries, p) => ({ entries, count: this.counts[p], keyBytes: this.keyBytes.sab }));
  }
}

function capacityFor(entries: number): number {
  let capacity = BLOCK;
  while (capacity * MAX_LOAD < entries) capacity *= 2;
  return capacity;
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/**
 * Builds one partition's table from every shard's keys of it (`sets`, in shard order). `values`
 * is the shared value pool the in-values keys are in.
 */
export function buildExactTable(sets: ExactKeySet[], values: BytePool): ExactTableData {
  let total = 0;
  let keyBytes = 0;
  for (const set of sets) {
    total += set.count;
    const entries = new Uint32Array(set.entries, 0, ENTRY * set.count);
    for (let e = 4; e < entries.length; e += ENTRY) keyBytes += aligned(entries[e] & LENGTH);
  }
  const capacity = capacityFor(total);
  const mask = capacity - 1;
  const blocks = capacity / BLOCK;
  const blockWords = 4 * BLOCK + aligned(Math.ceil((KEY_ROOM * keyBytes) / blocks)) / 4;
  const table = new SharedArrayBuffer(4 * blockWords * blocks);
  const words = new Uint32Array(table);
  const bytes = new Uint8Array(table);
  const overflow = new BytePool();
  const tagsSab = new SharedArrayBuffer(4 * capacity);
  const tags = new Uint32Array(tagsSab);
  /** Key bytes used in each block's room. */
  const used = new Uint32Array(blocks);
  const sources = [values.bytes(), ...sets.map((s) => new BytePool(s.keyBytes).bytes())];
  /** Further ids of keys with several entities, by slot. */
  const more = new Map<number, number[]>();
  sets.forEach((set, s) => {
    const entries = new Uint32Array(set.entries, 0, ENTRY * set.count);
    for (let e = 0; e < entries.length; e += ENTRY) {
      const hi = entries[e];
      const meta = entries[e + 4];
      const len = meta & LENGTH;
      const type = meta & (0x7f << TYPE_SHIFT);
      const src = sources[meta & IN_VALUES ? 0 : s + 1];
      const off = entries[e + 3];
      for (let i = entries[e + 1] & mask; ; i = (i + 1) & mask) {
        const b = i >>> BLOCK_BITS;
        const o = b * blockWords + 4 * (i & (BLOCK - 1));
        const slotMeta = words[o + 1];
        if (words[o + 3] === 0) {
          let at: number;
          let flags = meta & IN_VALUES ? VALUE_IS_KEY : 0;
          const room = 4 * blockWords - 16 * BLOCK;
          if (used[b] + len <= room) {
            at = 4 * (b * blockWords + 4 * BLOCK) + used[b];
            for (let k = 0; k < len; k++) bytes[at + k] = src[off + k];
            used[b] += aligned(len);
          } else {
            at = overflow.appendBytes(src, off, off + len);
            flags |= OVERFLOW;
          }
          words[o] = hi;
          words[o + 1] = (len | type | flags) >>> 0;
          words[o + 2] = at;
          words[o + 3] = entries[e + 2] + 1;
          tags[i] = tagOf(hi);
          break;
        }
        if (words[o] !== hi || (slotMeta & (LENGTH | (0x7f << TYPE_SHIFT))) !== (len | type)) continue;
        const stored = slotMeta & OVERFLOW ? overflow.bytes() : bytes;
        if (sameBytes(src, off, stored, words[o + 2], len)) {
          const ids = more.get(o);
          if (ids) ids.push(entries[e + 2]);
          else more.set(o, [entries[e + 2]]);
          break;
        }
      }
    }
  });
  let postingsLength = 0;
  for (const ids of more.values()) postingsLength += 1 + ids.length + 1;
  const postingsSab = new SharedArrayBuffer(4 * postingsLength);
  const postings = new Uint32Array(postingsSab);
  let start = 0;
  for (const [o, ids] of more) {
    ids.push(words[o + 3] - 1);
    // Each shard's ids arrive ascending, but shards interleave.
    ids.sort((a, b) => a - b);
    postings[start] = ids.length;
    postings.set(ids, start + 1);
    words[o + 3] = (MULTI | start) >>> 0;
    start += 1 + ids.length;
  }
  return { table, blockWords, overflow: overflow.sab, tags: tagsSab, postings: postingsSab, capacity };
}

/** `n` rounded up to a multiple of 4 (keys start on word boundaries). */
function aligned(n: number): number {
  return (n + 3) & ~3;
}
