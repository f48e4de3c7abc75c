import { Index } from 'flexsearch';

/**
 * A shard's candidate index of one kind of document (names, government IDs): a FlexSearch
 * `Index` whose encoder is ours. Documents are added with the terms the caller computed (for
 * names, the name matcher's `indexTerms`, so index and scorer see the same tokens); FlexSearch
 * keeps them in its term map, under the tokenizer and resolution configured (see
 * `CandidateIndexOptions`; bench/flexsearch-options.ts measures the choices).
 *
 * Candidates come out ranked one of two ways:
 * - `idf` (default): documents by the summed weight of the query terms they hold, a term weighing
 *   more the rarer it is (half-bits of inverse document frequency), over FlexSearch's own posting
 *   arrays, rarest term first. A term found in more than `scanFrequency` documents, once rarer
 *   terms gave a pool of candidates, only adds its weight to the documents already found (binary
 *   search in its posting array, which holds document numbers ascending since documents are added
 *   in order) instead of bringing in every document holding it: a query's cost then no longer
 *   grows with the lists' size through its common tokens (`MOHAMMED`, `TRADING`, a common
 *   prefix), and a document holding only common tokens of the query would have ranked below those
 *   holding them and a rare one. Terms found in more documents than `maxFrequency` are skipped
 *   once rarer terms gave candidates, and documents weighing less than a share of the best may be
 *   left out (they share only common or partial terms with the query; verifying them costs a
 *   name's preparation each). The scratch is a byte per document, sized once.
 * - `flexsearch`: FlexSearch's `search` with `suggest` (documents holding more of the query's
 *   terms first, then by the order of the terms, which we give rarest first).
 * bench/RESULTS.md compares them (recall of the listed name in the top candidates, latency).
 */
export interface CandidateIndexOptions {
  /**
   * FlexSearch's tokenizer over our terms: `strict` (each term as given; the caller adds the
   * prefixes it wants as terms) or `forward` (FlexSearch adds every prefix of every term).
   */
  tokenize: 'strict' | 'forward';
  /** FlexSearch's score slots per term; 1 when the caller ranks (positions carry nothing for names). */
  resolution: number;
  ranking: 'idf' | 'flexsearch';
}

/** What FlexSearch keeps per term: document ids per score slot. */
type Slots = number[][];

interface FlexSearchIndex {
  map: Map<string, Slots>;
  /** Documents added (a Set when fastupdate is off). */
  reg: Set<number>;
  add(id: number, content: string): unknown;
  search(query: string, options: { limit: number; suggest: boolean }): number[];
  export(handler: (key: string, data: string) => void): unknown;
  import(key: string, data: string): void;
}

/** Any content: the encoder ignores it and hands FlexSearch the terms set beside it. */
const CONTENT = '\u0001';

/**
 * The filter of terms present: a Bloom filter, two bits a term. A typo query looks up hundreds of
 * one-edit variants of a token, nearly all absent; the filter turns most away without making
 * their string or looking it up in FlexSearch's map, a lookup that misses the CPU's caches in a
 * map of millions of terms. Built at `seal` with FILTER_BITS_PER_TERM bits for each term (~1.4%
 * of absent terms let through), between 2^FILTER_MIN_LOG2 and 2^FILTER_MAX_LOG2 bits; an index
 * that FlexSearch's own `add` fills gets 2^(FILTER_MIN_LOG2 + 4) bits. With one bit a term in a
 * fixed 2^24, a shard's terms at 10M entities let through about a third of the absent variants,
 * and those lookups were a fifth of `/screen/name`'s time in the shards
 * (docs/investigations/2026-11-27-screen-name-tail-postings-filter.md).
 */
const FILTER_BITS_PER_TERM = 16;
const FILTER_MIN_LOG2 = 20;
const FILTER_MAX_LOG2 = 28;

/** A Bloom filter of 2^log2 bits, two bits a key, set and read by the key's 32-bit hash. */
class TermFilter {
  private readonly words: Uint32Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(log2: number) {
    this.words = new Uint32Array(2 ** (log2 - 5));
    this.mask = 2 ** log2 - 1;
    this.shift = 32 - log2;
  }

  /** A filter sized for `keys` keys, holding the hashes `fill` hands to `add`. */
  static of(keys: number, fill: (add: (h: number) => void) => void): TermFilter {
    const log2 = Math.ceil(Math.log2(Math.max(1, keys * FILTER_BITS_PER_TERM)));
    const filter = new TermFilter(Math.min(FILTER_MAX_LOG2, Math.max(FILTER_MIN_LOG2, log2)));
    fill((h) => filter.add(h));
    return filter;
  }

  add(h: number): void {
    const a = h & this.mask;
    const b = this.second(h);
    this.words[a >>> 5] |= 1 << (a & 31);
    this.words[b >>> 5] |= 1 << (b & 31);
  }

  mayHold(h: number): boolean {
    const a = h & this.mask;
    const b = this.second(h);
    return ((this.words[a >>> 5] >>> (a & 31)) & (this.words[b >>> 5] >>> (b & 31)) & 1) === 1;
  }

  /** The second bit, from the hash's bits mixed again (the first takes the low ones). */
  private second(h: number): number {
    return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> this.shift;
  }
}

/** FNV-1a of UTF-16 units, for the filter. */
function fnv(codes: ArrayLike<number>, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ codes[i], 0x01000193);
  return h >>> 0;
}

function fnvOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Whether the ascending array `ids` holds `d`. */
function holds(ids: number[], d: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === d) return true;
    if (v < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Weight units per doubling of a term's rarity: scores fit a byte. */
const WEIGHT_SCALE = 2;
const MAX_WEIGHT = 48;
/** Candidates found before a frequent term only adds weight to them (see the class comment). */
const POOL = 64;

/**
 * Postings gathered while documents are added, handed to FlexSearch's term map at `seal`: each
 * distinct term's number (by first appearance) in an open-addressing table of term numbers by the
 * term's FNV hash (which the filter needs anyway), and (term, document) pairs in the order added.
 * At a shard's load most terms are new and each is met a few times: a `Map` lookup and insert of
 * each in a map of millions of terms cost more than the rest of the load's postings together.
 */
class PendingPostings {
  private readonly terms: string[] = [];
  /** By slot, the hash of a term and its number + 1 (0: empty slot); at most half the slots are used. */
  private table = new Uint32Array(2 << 12);
  /** Last document (plus one) posted under each term: a repeated term is posted once. */
  private lastDoc = new Uint32Array(1024);
  private pairTerms = new Uint32Array(4096);
  private pairDocs = new Uint32Array(4096);
  private pairs = 0;

  /** Posts `term` (whose `fnvOf` is `hash`) for `doc`. */
  add(doc: number, term: string, hash: number): void {
    const table = this.table;
    const mask = (table.length >>> 1) - 1;
    let slot = hash & mask;
    let n = -1;
    for (let s = table[2 * slot + 1]; s !== 0; s = table[2 * slot + 1]) {
      if (table[2 * slot] === hash && this.terms[s - 1] === term) {
        n = s - 1;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (n < 0) {
      n = this.terms.length;
      this.terms.push(term);
      if (n >= this.lastDoc.length) this.lastDoc = growTo(this.lastDoc, n + 1);
      table[2 * slot] = hash;
      table[2 * slot + 1] = n + 1;
      if (4 * this.terms.length > table.length) this.rehash();
    }
    if (this.lastDoc[n] === doc + 1) return;
    this.lastDoc[n] = doc + 1;
    if (this.pairs === this.pairTerms.length) {
      this.pairTerms = growTo(this.pairTerms, this.pairs + 1);
      this.pairDocs = growTo(this.pairDocs, this.pairs + 1);
    }
    this.pairTerms[this.pairs] = n;
    this.pairDocs[this.pairs++] = doc;
  }

  /** Distinct terms posted. */
  get termCount(): number {
    return this.terms.length;
  }

  /** Calls `visit` with the hash of each distinct term. */
  forEachHash(visit: (hash: number) => void): void {
    const table = this.table;
    for (let i = 0; i < table.length; i += 2) if (table[i + 1] !== 0) visit(table[i]);
  }

  private rehash(): void {
    const old = this.table;
    const table = new Uint32Array(2 * old.length);
    const mask = (table.length >>> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      let slot = old[i] & mask;
      while (table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = old[i];
      table[2 * slot + 1] = old[i + 1];
    }
    this.table = table;
  }

  /** Each term's documents, ascending, as FlexSearch keeps them (one score slot), in one pass, in the order of the terms' numbers. */
  into(map: Map<string, Slots>): void {
    const terms = this.terms.length;
    const count = new Uint32Array(terms + 1);
    for (let i = 0; i < this.pairs; i++) count[this.pairTerms[i] + 1]++;
    for (let t = 1; t < count.length; t++) count[t] += count[t - 1];
    const sorted = new Uint32Array(this.pairs);
    const next = count.slice(0, terms);
    for (let i = 0; i < this.pairs; i++) sorted[next[this.pairTerms[i]]++] = this.pairDocs[i];
    const scratch: number[] = [];
    for (let t = 0; t < terms; t++) {
      // Pushed, not preallocated: `new Array(n)` makes a holey array, and a dictionary past
      // V8's fast-elements limit, both slower to read than the packed one push builds. Pushed
      // into a scratch array and copied by `slice`, which allocates the exact length: an array
      // pushed to keeps room for 17 elements at least (192 B for a term of one document against
      // 64 B), and most terms have a few documents.
      scratch.length = 0;
      for (let i = count[t]; i < count[t + 1]; i++) scratch.push(sorted[i]);
      map.set(this.terms[t], [scratch.slice()]);
    }
  }
}

function growTo(a: Uint32Array, need: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(need, 2 * a.length));
  next.set(a);
  return next;
}

export class CandidateIndex {
  private readonly index: FlexSearchIndex;
  private terms: string[] = [];
  /**
   * Postings not yet in FlexSearch's map (null once sealed, or when FlexSearch tokenizes or
   * scores positions itself). FlexSearch's own `add` grows each term's array one document at a
   * time: over half of a shard's load went there, and the arrays kept their spare room (a term of
   * one document held room for 17); built at once, each array has its final size.
   */
  private pending: PendingPostings | null;
  /** Documents added. */
  size = 0;
  private scores = new Uint8Array(0);
  private touched = new Uint32Array(0);
  private heapDoc = new Uint32Array(0);
  private heapScore = new Float32Array(0);
  private filter: TermFilter;
  private filterStale = false;

  constructor(
    private readonly options: CandidateIndexOptions,
    /** Terms found in more documents than this are skipped once rarer terms gave candidates. */
    private readonly maxFrequency: number,
    /** Terms found in more documents than this only add weight to candidates rarer terms found. */
    private readonly scanFrequency = Infinity,
  ) {
    this.index = new Index({
      tokenize: options.tokenize,
      resolution: options.resolution,
      fastupdate: false,
      cache: false,
      encode: () => this.terms,
    }) as unknown as FlexSearchIndex;
    this.pending = options.tokenize === 'strict' && options.resolution === 1 ? new PendingPostings() : null;
    this.filter = new TermFilter(this.pending ? FILTER_MIN_LOG2 : FILTER_MIN_LOG2 + 4);
  }

  /** Adds document `doc` (numbered densely from 0) with its terms. */
  add(doc: number, terms: string[]): void {
    if (doc >= this.size) this.size = doc + 1;
    if (terms.length === 0) return;
    const pending = this.pending;
    if (pending) this.index.reg.add(doc);
    else {
      this.terms = terms;
      this.index.add(doc, CONTENT);
      this.terms = [];
    }
    for (let i = 0; i < terms.length; i++) {
      const hash = fnvOf(terms[i]);
      if (pending) pending.add(doc, terms[i], hash);
      else this.filter.add(hash);
    }
  }

  /**
   * Puts the postings added so far into FlexSearch's term map, as its `add` would have (the
   * term map, then, is FlexSearch's: searched, exported and imported by it). Documents added
   * afterwards go through FlexSearch's `add`. Queries and `export` seal first.
   */
  seal(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    this.filter = TermFilter.of(pending.termCount, (add) => pending.forEachHash(add));
    pending.into(this.index.map);
  }

  /** False when no document holds the term `codes[0 .. n)` (true may be a false alarm: ask `frequency`). */
  mayHold(codes: ArrayLike<number>, n: number): boolean {
    if (this.pending) this.seal();
    if (this.filterStale) this.refilter();
    return this.filter.mayHold(fnv(codes, n));
  }

  /** Documents holding `term` (0 when none). */
  frequency(term: string): number {
    if (this.pending) this.seal();
    const slots = this.index.map.get(term);
    if (!slots) return 0;
    let n = 0;
    for (const ids of slots) if (ids) n += ids.length;
    return n;
  }

  /**
   * Up to `k` documents for the query terms (duplicates allowed; absent ones ignored), best first,
   * those `accept` allows only; with `idf` ranking, none weighing less than `minShare` of the best.
   */
  candidates(terms: string[], k: number, accept: (doc: number) => boolean, minShare = 0): number[] {
    this.seal();
    const present = [...new Set(terms)].map((t) => ({ t, df: this.frequency(t) })).filter((x) => x.df > 0);
    if (present.length === 0 || k <= 0) return [];
    present.sort((a, b) => a.df - b.df);
    if (this.options.ranking === 'flexsearch') {
      const kept = present.filter((x, i) => i === 0 || x.df <= this.maxFrequency);
      this.terms = kept.map((x) => x.t);
      // Asked for more than k: the list filter comes after FlexSearch's ranking.
      const ids = this.index.search(CONTENT, { limit: 4 * k, suggest: true });
      this.terms = [];
      const out: number[] = [];
      for (const id of ids) {
        if (accept(id)) out.push(id);
        if (out.length === k) break;
      }
      return out;
    }
    return this.rank(present, k, accept, minShare);
  }

  private rank(
    terms: { t: string; df: number }[],
    k: number,
    accept: (doc: number) => boolean,
    minShare: number,
  ): number[] {
    const documents = this.size;
    if (this.scores.length < documents) {
      this.scores = new Uint8Array(documents);
      this.touched = new Uint32Array(documents);
    }
    const scores = this.scores;
    const touched = this.touched;
    const pool = Math.max(k, POOL);
    let nTouched = 0;
    for (const { t, df } of terms) {
      if (df > this.maxFrequency && nTouched > 0) break;
      const w = Math.max(1, Math.min(MAX_WEIGHT, Math.round(WEIGHT_SCALE * Math.log2(1 + documents / df))));
      const slots = this.index.map.get(t)!;
      if (df <= this.scanFrequency || nTouched < pool) {
        for (const ids of slots) {
          if (!ids) continue;
          for (let p = 0; p < ids.length; p++) {
            const d = ids[p];
            const v = scores[d];
            if (v === 0) touched[nTouched++] = d;
            scores[d] = v + w > 255 ? 255 : v + w;
          }
        }
      } else if (nTouched * Math.log2(df) < df) {
        for (let i = 0; i < nTouched; i++) {
          const d = touched[i];
          for (const ids of slots) {
            if (ids && holds(ids, d)) {
              scores[d] = scores[d] + w > 255 ? 255 : scores[d] + w;
              break;
            }
          }
        }
      } else {
        for (const ids of slots) {
          if (!ids) continue;
          for (let p = 0; p < ids.length; p++) {
            const d = ids[p];
            const v = scores[d];
            if (v !== 0) scores[d] = v + w > 255 ? 255 : v + w;
          }
        }
      }
    }
    return this.best(nTouched, k, accept, minShare);
  }

  /**
   * The best `k` of the touched documents by score (ties by document number), at least `minShare`
   * of the best score, clearing their scores.
   */
  private best(nTouched: number, k: number, accept: (doc: number) => boolean, minShare: number): number[] {
    if (this.heapDoc.length < k) {
      this.heapDoc = new Uint32Array(k);
      this.heapScore = new Float32Array(k);
    }
    const scores = this.scores;
    const touched = this.touched;
    let top = 0;
    for (let i = 0; i < nTouched; i++) if (scores[touched[i]] > top) top = scores[touched[i]];
    const floor = minShare * top;
    const hd = this.heapDoc;
    const hs = this.heapScore;
    let size = 0;
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
      if (s < floor) continue;
      if (size === k && (s < hs[0] || (s === hs[0] && d > hd[0]))) continue;
      if (!accept(d)) continue;
      if (size < k) {
        hd[size] = d;
        hs[size] = s;
        for (let c = size++; c > 0;) {
          const parent = (c - 1) >> 1;
          if (!worse(c, parent)) break;
          swap(c, parent);
          c = parent;
        }
      } else {
        hd[0] = d;
        hs[0] = s;
        for (let c = 0; ;) {
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

  /** FlexSearch's export of the index (key/data chunks), for saving a built index. */
  export(handler: (key: string, data: string) => void): void {
    this.seal();
    this.index.export(handler);
  }

  /** Restores chunks written by `export` (the terms of documents are not computed again). */
  import(key: string, data: string): void {
    this.seal();
    this.index.import(key, data);
    this.filterStale = true;
  }

  /** The filter of the terms FlexSearch's map holds, after an import brought terms no `add` saw. */
  private refilter(): void {
    this.filter = TermFilter.of(this.index.map.size, (add) => {
      for (const term of this.index.map.keys()) add(fnvOf(term));
    });
    this.filterStale = false;
  }
}
