import { hashCodes, hashRange } from '../hash.js';

/**
 * A compact inverted index built once per generation: 64-bit term hashes → ascending lists of
 * u32 document numbers, all in typed arrays (open addressing over the distinct terms, postings
 * laid out CSR-style). No term strings are kept: a query hashes its terms the same way, and a
 * 64-bit collision could only add a candidate, which the caller verifies anyway.
 *
 * It replaces FlexSearch for names and government IDs, whose memory and time per name put a 10 M
 * entity generation out of reach (docs/performance.md). This index takes 4 bytes per (term,
 * document) pair plus 28-52 bytes per distinct term (slots at most half full).
 *
 * Adding a term only hashes it and appends (hash, document) to one of `BUCKETS` lists chosen by
 * the hash's top bits; `build` then numbers each bucket's distinct terms with a map the size of
 * that bucket, which stays in cache (one table for the whole index cost a cache miss per
 * occurrence). The lists live in fixed-size pages cut from large slabs (see `Pages`), not in
 * arrays that double, whose freed copies fragmented the workers' malloc arenas.
 */
export class TermIndexBuilder {
  private readonly pages = new Pages(BUCKETS);
  private docs = 0;
  private lastDoc = -1;
  private readonly h = new Uint32Array(2);

  /** Adds the term `text.slice(start, end)` for `doc`; documents must arrive in ascending order. */
  add(text: string, start: number, end: number, seed: number, doc: number): void {
    hashRange(text, start, end, seed, this.h);
    const hi = this.h[0];
    if (doc !== this.lastDoc) {
      this.lastDoc = doc;
      this.docs++;
    }
    this.pages.push(hi >>> (32 - BUCKET_BITS), hi, this.h[1], doc);
  }

  build(): TermIndex {
    const pages = this.pages;
    let largest = 0;
    for (let b = 0; b < BUCKETS; b++) largest = Math.max(largest, pages.count(b));
    const scratch = new BucketScratch(largest);
    // First pass: the numbers of distinct terms and of postings, which size the arrays.
    let terms = 0;
    let total = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const k = scratch.number(pages, b);
      terms += k;
      for (let t = 0; t < k; t++) total += scratch.counts[t];
    }
    const capacity = slotCapacity(terms);
    const mask = capacity - 1;
    const slots = new Uint32Array(3 * capacity);
    const filterBits = filterCapacity(terms);
    const filter = new Uint32Array(filterBits / 32);
    const offsets = new Uint32Array(terms + 1);
    const postings = new Uint32Array(total);
    // Second pass, bucket by bucket: term numbers base.., their document counts (a term repeated
    // in one document is posted once), their postings. A term's entries are all in its bucket, in
    // document order: each term's list comes out ascending.
    let base = 0;
    let posted = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const k = scratch.number(pages, b);
      for (let t = 0; t < k; t++) {
        offsets[base + t] = posted;
        posted += scratch.counts[t];
        const hi = scratch.hi[t];
        let i = hi & mask;
        while (slots[3 * i + 2] !== 0) i = (i + 1) & mask;
        slots[3 * i] = hi;
        slots[3 * i + 1] = scratch.lo[t];
        slots[3 * i + 2] = base + t + 1;
        const bit = scratch.lo[t] & (filterBits - 1);
        filter[bit >>> 5] |= 1 << (bit & 31);
      }
      const fill = scratch.counts;
      for (let t = 0; t < k; t++) fill[t] = offsets[base + t];
      let e = 0;
      pages.forEach(b, (_hi, _lo, doc) => {
        const t = scratch.entryTerm[e++];
        if (t !== REPEAT) postings[fill[t]++] = doc;
      });
      base += k;
    }
    offsets[terms] = posted;
    pages.free();
    return new TermIndex(slots, capacity, filter, offsets, postings, this.docs);
  }
}

/**
 * First slot holding (hi, lo) in `capacity` (a power of two) slots laid out as interleaved u32
 * triples [hash hi, hash lo, term number + 1] (0 = empty), or -1. Probing starts at `hi`'s low
 * bits and goes linearly.
 */
function probe(slots: Uint32Array, capacity: number, hi: number, lo: number): number {
  const mask = capacity - 1;
  for (let i = hi & mask; ; i = (i + 1) & mask) {
    const o = 3 * i;
    if (slots[o + 2] === 0) return -1;
    if (slots[o] === hi && slots[o + 1] === lo) return i;
  }
}

const BUCKET_BITS = 10;
const BUCKETS = 1 << BUCKET_BITS;
const REPEAT = 0xffffffff;

/** Bits of a term filter: a power of two, at least 8 per term (one term in eight looked up passes it by chance). */
function filterCapacity(n: number): number {
  let c = 1024;
  while (c < 8 * n) c *= 2;
  return c;
}

/** Slots of the final table, at most half full (linear probing stays short). */
function slotCapacity(n: number): number {
  let c = 1024;
  while (2 * n > c) c *= 2;
  return c;
}

/** Per-bucket work arrays of `build`, sized once for the largest bucket. */
class BucketScratch {
  /** Local term number + 1 by slot of a map at most half full (0 = empty). */
  private readonly map: Int32Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** Documents per local term, or (during a fill) its next posting. */
  readonly counts: Uint32Array;
  /** Last document + 1 per local term. */
  private readonly lastDoc: Uint32Array;
  /** Local term of each entry, or REPEAT. */
  readonly entryTerm: Uint32Array;

  constructor(entries: number) {
    let c = 16;
    while (c < 2 * entries) c *= 2;
    this.map = new Int32Array(c);
    this.hi = new Uint32Array(entries);
    this.lo = new Uint32Array(entries);
    this.counts = new Uint32Array(entries);
    this.lastDoc = new Uint32Array(entries);
    this.entryTerm = new Uint32Array(entries);
  }

  /**
   * Numbers the distinct terms of bucket `b` 0.. in order of first occurrence and returns how
   * many; counts each term's documents and notes each entry's term.
   */
  number(pages: Pages, b: number): number {
    let c = 16;
    while (c < 2 * pages.count(b)) c *= 2;
    const mask = c - 1;
    const map = this.map;
    map.fill(0, 0, c);
    let k = 0;
    let e = 0;
    pages.forEach(b, (hi, lo, doc) => {
      let i = lo & mask;
      let t: number;
      for (;;) {
        const s = map[i];
        if (s === 0) {
          t = k++;
          map[i] = t + 1;
          this.hi[t] = hi;
          this.lo[t] = lo;
          this.counts[t] = 0;
          this.lastDoc[t] = 0;
          break;
        }
        if (this.hi[s - 1] === hi && this.lo[s - 1] === lo) {
          t = s - 1;
          break;
        }
        i = (i + 1) & mask;
      }
      if (this.lastDoc[t] === doc + 1) {
        this.entryTerm[e++] = REPEAT;
      } else {
        this.lastDoc[t] = doc + 1;
        this.counts[t]++;
        this.entryTerm[e++] = t;
      }
    });
    return k;
  }
}

/** u32 per page: 1024 [hash hi, hash lo, document] triples. */
const PAGE_WORDS = 3 * 1024;
/**
 * Pages per slab: 48 MiB, above glibc's largest dynamic mmap threshold (32 MiB), so that a slab is
 * always mapped on its own: the system provides its pages zeroed as they are first written (a
 * small index stays small) and takes them all back when the slab is freed.
 */
const SLAB_PAGES = 4096;

/**
 * Numbered lists of [a, b, c] u32 triples, appended in fixed-size pages cut from a few large
 * slabs, each list keeping the slab and offset of its pages.
 */
class Pages {
  total = 0;
  private readonly slabs: Uint32Array[] = [];
  private slabUsed = 0;
  /** Per list: [slab, offset] of each page, in order. */
  private readonly lists: number[][];
  /** Per list: next write position in its last page, and that page's end and slab. */
  private readonly pos: Int32Array;
  private readonly end: Int32Array;
  private readonly slab: Int32Array;
  private readonly counts: Int32Array;

  constructor(lists: number) {
    this.lists = Array.from({ length: lists }, () => []);
    this.pos = new Int32Array(lists);
    this.end = new Int32Array(lists);
    this.slab = new Int32Array(lists);
    this.counts = new Int32Array(lists);
  }

  push(list: number, a: number, b: number, c: number): void {
    let p = this.pos[list];
    if (p === this.end[list]) p = this.newPage(list);
    const slab = this.slabs[this.slab[list]];
    slab[p] = a;
    slab[p + 1] = b;
    slab[p + 2] = c;
    this.pos[list] = p + 3;
    this.counts[list]++;
    this.total++;
  }

  private newPage(list: number): number {
    let last = this.slabs.length - 1;
    if (last < 0 || this.slabUsed === this.slabs[last].length) {
      this.slabs.push(new Uint32Array(SLAB_PAGES * PAGE_WORDS));
      this.slabUsed = 0;
      last++;
    }
    const at = this.slabUsed;
    this.slabUsed += PAGE_WORDS;
    this.lists[list].push(last, at);
    this.slab[list] = last;
    this.end[list] = at + PAGE_WORDS;
    return at;
  }

  count(list: number): number {
    return this.counts[list];
  }

  /** Calls `visit` with each triple of `list`, in order. */
  forEach(list: number, visit: (a: number, b: number, c: number) => void): void {
    const pages = this.lists[list];
    let left = this.counts[list];
    for (let i = 0; i < pages.length; i += 2) {
      const slab = this.slabs[pages[i]];
      const start = pages[i + 1];
      const stop = start + 3 * Math.min(left, PAGE_WORDS / 3);
      for (let p = start; p < stop; p += 3) visit(slab[p], slab[p + 1], slab[p + 2]);
      left -= PAGE_WORDS / 3;
    }
  }

  free(): void {
    this.slabs.length = 0;
    for (const l of this.lists) l.length = 0;
  }
}

export class TermIndex {
  private readonly h = new Uint32Array(2);

  constructor(
    private readonly slots: Uint32Array,
    private readonly capacity: number,
    /**
     * One bit per low hash word (modulo its size) of the terms present: a term whose bit is clear
     * is absent without a probe of the slots. A typo query looks up hundreds of one-edit variants
     * of a token, nearly all absent; the filter (a byte per term) stays in cache, the slots do not.
     */
    private readonly filter: Uint32Array,
    /** Postings of term t are `postings[offsets[t] .. offsets[t + 1])`. */
    readonly offsets: Uint32Array,
    readonly postings: Uint32Array,
    /** Documents with at least one term. */
    readonly documents: number,
  ) {}

  /** Term number of `text.slice(start, end)`, or -1 when no document has it. */
  term(text: string, start: number, end: number, seed: number): number {
    hashRange(text, start, end, seed, this.h);
    return this.find();
  }

  /** Term number of the units `codes[0 .. n)`, as `term` of the same text, or -1. */
  termOfCodes(codes: Uint16Array, n: number, seed: number): number {
    hashCodes(codes, n, seed, this.h);
    return this.find();
  }

  /** Term number of the hash in `h`, or -1. */
  private find(): number {
    const bit = this.h[1] & (32 * this.filter.length - 1);
    if (((this.filter[bit >>> 5] >>> (bit & 31)) & 1) === 0) return -1;
    const i = probe(this.slots, this.capacity, this.h[0], this.h[1]);
    return i < 0 ? -1 : this.slots[3 * i + 2] - 1;
  }

  /** Documents having term number `t`. */
  frequency(t: number): number {
    return this.offsets[t + 1] - this.offsets[t];
  }
}

/** Weight units per doubling of a term's rarity (idf in half-bits): scores fit a byte. */
const WEIGHT_SCALE = 2;
const MAX_WEIGHT = 48;

/**
 * Ranks documents by the summed weight of the query terms they contain (rarer terms weigh more)
 * and keeps the best `k`: the candidates a similarity then verifies. Scratch arrays are sized to
 * the documents once and reused, so a query allocates nothing in proportion to the index. Scores
 * are bytes (weights quantized to half-bits of inverse document frequency, sums saturating):
 * accumulating them hits the posting lists' documents in random order, and a byte per document
 * keeps that scratch four times denser in cache than floats.
 */
export class CandidateRanker {
  private scores = new Uint8Array(0);
  private touched = new Uint32Array(0);
  private heapDoc = new Uint32Array(0);
  private heapScore = new Float32Array(0);

  constructor(
    /** Terms found in more documents than this are skipped once rarer terms gave candidates. */
    private readonly maxFrequency: number,
  ) {}

  /**
   * `terms` are term numbers of `index` (duplicates allowed; each counts once), `accept` filters
   * documents (list filter), `documents` bounds the document numbers. Returns up to `k` documents,
   * best first, ties by document number.
   */
  rank(index: TermIndex, terms: number[], documents: number, k: number, accept: (doc: number) => boolean): number[] {
    if (this.scores.length < documents) {
      this.scores = new Uint8Array(documents);
      this.touched = new Uint32Array(documents);
    }
    const unique = [...new Set(terms)].sort((a, b) => index.frequency(a) - index.frequency(b));
    const scores = this.scores;
    const touched = this.touched;
    let nTouched = 0;
    for (const t of unique) {
      const df = index.frequency(t);
      if (df > this.maxFrequency && nTouched > 0) break;
      const w = Math.max(1, Math.min(MAX_WEIGHT, Math.round(WEIGHT_SCALE * Math.log2(1 + index.documents / df))));
      const end = index.offsets[t + 1];
      const postings = index.postings;
      for (let p = index.offsets[t]; p < end; p++) {
        const d = postings[p];
        const v = scores[d];
        if (v === 0) touched[nTouched++] = d;
        scores[d] = v + w > 255 ? 255 : v + w;
      }
    }
    if (this.heapDoc.length < k) {
      this.heapDoc = new Uint32Array(k);
      this.heapScore = new Float32Array(k);
    }
    let size = 0;
    const hd = this.heapDoc;
    const hs = this.heapScore;
    // Min-heap of the best k (lowest score, then highest document number, at the root).
    const worse = (i: number, j: number) => hs[i] < hs[j] || (hs[i] === hs[j] && hd[i] > hd[j]);
    const swap = (i: number, j: number) => {
      const d = hd[i];
      hd[i] = hd[j];
      hd[j] = d;
      const s = hs[i];
      hs[i] = hs[j];
      hs[j] = s;
    };
    for (let i = 0; i < nTouched; i++) {
      const d = touched[i];
      const s = scores[d];
      scores[d] = 0;
      if (size === k && (s < hs[0] || (s === hs[0] && d > hd[0]))) continue;
      if (!accept(d)) continue;
      if (size < k) {
        hd[size] = d;
        hs[size] = s;
        for (let c = size++; c > 0; ) {
          const parent = (c - 1) >> 1;
          if (!worse(c, parent)) break;
          swap(c, parent);
          c = parent;
        }
      } else {
        hd[0] = d;
        hs[0] = s;
        for (let c = 0; ; ) {
          const l = 2 * c + 1;
          const r = l + 1;
          let m = c;
          if (l < size && worse(l, m)) m = l;
          if (r < size && worse(r, m)) m = r;
          if (m === c) break;
          swap(c, m);
          c = m;
        }
      }
    }
    const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => hs[b] - hs[a] || hd[a] - hd[b]);
    return order.map((i) => hd[i]);
  }
}
