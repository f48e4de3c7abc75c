import { hashRange } from '../hash.js';
import { HashSlots, probe } from '../hash-slots.js';

/**
 * A compact inverted index built once per generation: 64-bit term hashes → ascending lists of
 * u32 document numbers, all in typed arrays (open addressing over the distinct terms, postings
 * laid out CSR-style). No term strings are kept: a query hashes its terms the same way, and a
 * 64-bit collision could only add a candidate, which the caller verifies anyway.
 *
 * It replaces FlexSearch for names and government IDs. Measured here on 300k synthetic names:
 * FlexSearch took ~700 B and ~20 µs per name to add with its leanest options (`resolution: 1`,
 * `fastupdate: false`, strict tokenizer with our encoder; `optimize`, `cache: false` and
 * `keystore` changed nothing), i.e. ~2.5 GB and ~70 CPU-seconds for the 3.6 M names of a 10 M
 * entity generation; on government-ID trigrams it fit in memory (~35-55 B per ID) but cost
 * 8-20 µs per ID to add. This index takes 4 bytes per (term, document) pair plus 28-52 bytes per
 * distinct term (slots at most half full), and a hash and a probe per term to add.
 */
export class TermIndexBuilder {
  private readonly map = new HashSlots();
  private occTerm = new Uint32Array(4096);
  private occDoc = new Uint32Array(4096);
  private occ = 0;
  private docs = 0;
  private lastDoc = -1;
  /** First occurrence of the current document. */
  private docStart = 0;
  private readonly h = new Uint32Array(2);

  /** Adds the term `text.slice(start, end)` for `doc`; documents must arrive in ascending order. */
  add(text: string, start: number, end: number, seed: number, doc: number): void {
    hashRange(text, start, end, seed, this.h);
    const t = this.map.intern(this.h[0], this.h[1]);
    if (doc !== this.lastDoc) {
      this.lastDoc = doc;
      this.docs++;
      this.docStart = this.occ;
    } else {
      // A term repeated in one document is posted once (documents have a handful of terms).
      for (let k = this.docStart; k < this.occ; k++) if (this.occTerm[k] === t) return;
    }
    if (this.occ === this.occDoc.length) {
      this.occTerm = grow(this.occTerm, this.occ * 2);
      this.occDoc = grow(this.occDoc, this.occ * 2);
    }
    this.occTerm[this.occ] = t;
    this.occDoc[this.occ] = doc;
    this.occ++;
  }

  build(): TermIndex {
    const n = this.map.count;
    const offsets = new Uint32Array(n + 1);
    for (let k = 0; k < this.occ; k++) offsets[this.occTerm[k] + 1]++;
    for (let t = 0; t < n; t++) offsets[t + 1] += offsets[t];
    const postings = new Uint32Array(this.occ);
    const fill = offsets.slice(0, n);
    // Occurrences arrive in document order, so each term's list comes out ascending.
    for (let k = 0; k < this.occ; k++) postings[fill[this.occTerm[k]]++] = this.occDoc[k];
    const index = new TermIndex(this.map.slots, this.map.capacity, offsets, postings, this.docs);
    this.occTerm = this.occDoc = new Uint32Array(0);
    return index;
  }
}

function grow(a: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(size);
  next.set(a);
  return next;
}

export class TermIndex {
  private readonly h = new Uint32Array(2);

  constructor(
    private readonly slots: Uint32Array,
    private readonly capacity: number,
    /** Postings of term t are `postings[offsets[t] .. offsets[t + 1])`. */
    readonly offsets: Uint32Array,
    readonly postings: Uint32Array,
    /** Documents with at least one term. */
    readonly documents: number,
  ) {}

  /** Term number of `text.slice(start, end)`, or -1 when no document has it. */
  term(text: string, start: number, end: number, seed: number): number {
    hashRange(text, start, end, seed, this.h);
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
 * keeps that scratch four times denser in cache than floats (at 1.8 M names a shard, 1.8 MB).
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
