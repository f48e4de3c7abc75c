import FlexSearch, { type Index } from 'flexsearch';
import { RE2JS } from 're2js';
import { ENTITY_TYPES, MATCH_KINDS, type EntityType } from '../model.js';
import { normalizeGovernmentId, normalizeName } from '../normalize/index.js';
import { idSimilarity, prepareName, preparedSimilarity, prepareTokens } from '../similarity.js';
import { ExactTableBuilder, type ExactTableData } from '../exact-table.js';
import { ensure } from '../growable.js';
import { CandidateRanker, TermIndex, TermIndexBuilder } from './term-index.js';
import { FLAG_DELISTED, FLAG_HASHED, type AddBatch, type FuzzyQuery, type IdQuery, type QueryResult, type RegexQuery } from './protocol.js';

const T_NAME = ENTITY_TYPES.indexOf('name');
const T_ID = ENTITY_TYPES.indexOf('government_id');
const PREFIX_TYPES = new Set((['crypto_address', 'email', 'email_domain', 'website'] as EntityType[]).map((t) => ENTITY_TYPES.indexOf(t)));
const K_FUZZY = MATCH_KINDS.indexOf('fuzzy');
const K_REGEX = MATCH_KINDS.indexOf('regex');

export interface ShardOptions {
  /**
   * Name terms. 'strict': each token plus its first four letters (a typo after the fourth letter,
   * or a query cut short, still meets the token). 'forward': each token plus every prefix of two
   * letters or more (queries of a few letters find longer names; a larger index).
   */
  tokenize: 'forward' | 'strict';
  /** Candidates taken per index and query before verification. */
  candidates: number;
}

/** Overlapping trigrams: a government ID with one wrong, missing or extra character still shares most of them. */
function trigrams(text: string): string[] {
  const k = normalizeGovernmentId(text);
  if (k.length <= 3) return k ? [k] : [];
  const out: string[] = [];
  for (let i = 0; i + 3 <= k.length; i++) out.push(k.slice(i, i + 3));
  return out;
}

const NAME_PREFIX = 4;
/** Hash seeds keeping whole tokens and prefixes apart in one term index. */
const SEED_TOKEN = 101;
const SEED_PREFIX = 102;
/**
 * Name terms found in more of a shard's documents than this (generic words, common given names)
 * add no candidates once rarer terms of the query have: scanning them costs more than they tell.
 */
const NAME_MAX_FREQUENCY = 50_000;

/** Calls `emit(term, seed)` for the index terms of one canonical name token. */
function nameTerms(token: string, forward: boolean, emit: (term: string, seed: number) => void): void {
  emit(token, SEED_TOKEN);
  if (forward) {
    for (let l = 2; l <= token.length; l++) emit(token.slice(0, l), SEED_PREFIX);
  } else if (token.length >= NAME_PREFIX) {
    emit(token.slice(0, NAME_PREFIX), SEED_PREFIX);
  }
}

const REGEX_CLOCK_EVERY = 256;
const PREFIX_SCAN_MAX = 64;

/**
 * One shard's part of one generation: the values routed to it (for regex), the canonical keys
 * that differ from them (names: normalized text, which fuzzy search verifies against), its term
 * indexes (names; government IDs in FlexSearch), its sorted address/domain keys (prefix search)
 * and the builder of its exact table. Ids here are shard-local indices; `ids` maps them back to
 * engine ids.
 */
export class ShardGeneration {
  private n = 0;
  private ids = new Uint32Array(1024);
  private types = new Uint8Array(1024);
  private lists = new Uint16Array(1024);
  private flags = new Uint8Array(1024);
  private values: string[] = [];
  private keys: (string | null)[] = [];
  private prefixKeys: string[] = [];
  private prefixLocal: number[] = [];
  private nameBuilder: TermIndexBuilder | null = new TermIndexBuilder();
  private names: TermIndex | null = null;
  private readonly ranker = new CandidateRanker(NAME_MAX_FREQUENCY);
  private readonly govIds: Index;
  private exact: ExactTableBuilder | null = new ExactTableBuilder();

  constructor(private readonly opts: ShardOptions) {
    // Resolution 1: FlexSearch only proposes candidates, our similarity ranks them, so its
    // positional scoring buckets would cost memory for nothing.
    this.govIds = new FlexSearch.Index({ tokenize: 'strict', encode: trigrams, resolution: 1, fastupdate: false });
  }

  add(b: AddBatch): void {
    const m = b.ids.length;
    const need = this.n + m;
    this.ids = ensure(this.ids, need);
    this.types = ensure(this.types, need);
    this.lists = ensure(this.lists, need);
    this.flags = ensure(this.flags, need);
    const names = this.nameBuilder!;
    const forward = this.opts.tokenize === 'forward';
    for (let i = 0; i < m; i++) {
      const local = this.n++;
      const type = b.types[i];
      const value = b.values[i];
      this.ids[local] = b.ids[i];
      this.types[local] = type;
      this.lists[local] = b.lists[i];
      this.flags[local] = b.flags[i];
      this.values.push(value);
      let key = b.keys[i];
      if (b.flags[i] & FLAG_HASHED) this.exact!.add(b.hashes[2 * i], b.hashes[2 * i + 1], b.ids[i]);
      if (type === T_NAME) {
        key = normalizeName(value);
        if (key) for (const token of key.split(' ')) nameTerms(token, forward, (term, seed) => names.add(term, seed, local));
        else key = null;
      } else if (type === T_ID) {
        this.govIds.add(local, key ?? value);
      } else if (PREFIX_TYPES.has(type)) {
        this.prefixKeys.push(key ?? value);
        this.prefixLocal.push(local);
      }
      this.keys.push(key === value ? null : key);
    }
  }

  /** Seals the generation: lays out the name index, sorts the prefix keys, lays out the exact table. */
  finish(): ExactTableData {
    this.names = this.nameBuilder!.build();
    this.nameBuilder = null;
    const keys = this.prefixKeys;
    const order = Array.from(keys.keys()).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    this.prefixKeys = order.map((i) => keys[i]);
    this.prefixLocal = order.map((i) => this.prefixLocal[i]);
    const table = this.exact!.build();
    this.exact = null;
    return table;
  }

  private listMask(lists: number[]): Uint8Array {
    let max = 0;
    for (const l of lists) if (l > max) max = l;
    const mask = new Uint8Array(max + 1);
    for (const l of lists) mask[l] = 1;
    return mask;
  }

  private eligible(local: number, mask: Uint8Array): boolean {
    return mask[this.lists[local]] === 1;
  }

  fuzzy(q: FuzzyQuery): QueryResult {
    const mask = this.listMask(q.lists);
    const best = new Map<number, number>();
    const offer = (local: number, sim: number) => {
      if (sim < q.minSimilarity) return;
      const prev = best.get(local);
      if (prev === undefined || sim > prev) best.set(local, sim);
    };
    if (/\p{L}/u.test(q.q)) this.nameMatches(q.q, mask, offer);
    const idKey = normalizeGovernmentId(q.q);
    if (idKey.length >= 4 && /\d/.test(idKey)) {
      for (const local of this.govIds.search(idKey, { limit: this.opts.candidates, suggest: true }) as number[]) {
        if (this.eligible(local, mask)) offer(local, idSimilarity(idKey, this.keys[local] ?? this.values[local]));
      }
    }
    this.prefixMatches(q.q, mask, offer);
    const hits = [...best].sort((a, b) => {
      const da = this.flags[a[0]] & FLAG_DELISTED;
      const db = this.flags[b[0]] & FLAG_DELISTED;
      return da - db || b[1] - a[1] || this.ids[a[0]] - this.ids[b[0]];
    });
    hits.length = Math.min(hits.length, q.limit);
    return {
      qid: q.qid,
      ids: hits.map(([local]) => this.ids[local]),
      sims: hits.map(([, sim]) => sim),
      kinds: hits.map(() => K_FUZZY),
    };
  }

  /**
   * Names sharing the most (and rarest) terms with the query, verified by the name similarity
   * against their stored normalized text.
   */
  private nameMatches(raw: string, mask: Uint8Array, offer: (local: number, sim: number) => void): void {
    const index = this.names!;
    const query = prepareName(raw);
    if (query.tokens.length === 0) return;
    const terms: number[] = [];
    const forward = this.opts.tokenize === 'forward';
    for (const token of query.tokens) {
      nameTerms(token, false, (term, seed) => {
        const t = index.term(term, seed);
        if (t >= 0) terms.push(t);
      });
      // A query token may be the start of a longer listed token.
      if (forward) {
        const t = index.term(token, SEED_PREFIX);
        if (t >= 0) terms.push(t);
      }
    }
    if (terms.length === 0) return;
    const candidates = this.ranker.rank(index, terms, this.n, this.opts.candidates, (local) => this.eligible(local, mask));
    for (const local of candidates) offer(local, preparedSimilarity(query, prepareTokens((this.keys[local] ?? this.values[local]).split(' '))));
  }

  /**
   * Addresses, e-mails and domains starting with the query (as typed and lower-cased, since
   * base58 keys keep their case): similarity is the share of the key the query covers.
   */
  private prefixMatches(raw: string, mask: Uint8Array, offer: (local: number, sim: number) => void): void {
    const q = raw.trim();
    if (q.length < 3 || /\s/.test(q)) return;
    const keys = this.prefixKeys;
    for (const prefix of new Set([q, q.toLowerCase()])) {
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid] < prefix) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo, seen = 0; i < keys.length && seen < PREFIX_SCAN_MAX && keys[i].startsWith(prefix); i++, seen++) {
        const local = this.prefixLocal[i];
        if (this.eligible(local, mask)) offer(local, prefix.length / keys[i].length);
      }
    }
  }

  idMatches(q: IdQuery): QueryResult {
    const mask = this.listMask(q.lists);
    const ids: number[] = [];
    const sims: number[] = [];
    for (const local of this.govIds.search(q.key, { limit: this.opts.candidates, suggest: true }) as number[]) {
      if (this.flags[local] & FLAG_DELISTED || !this.eligible(local, mask)) continue;
      const sim = idSimilarity(q.key, this.keys[local] ?? this.values[local]);
      if (sim >= q.threshold) {
        ids.push(this.ids[local]);
        sims.push(sim);
      }
    }
    return { qid: q.qid, ids, sims, kinds: ids.map(() => K_FUZZY) };
  }

  /** Linear scan in id order; active hits fill first, delisted ones are kept up to the limit too. */
  regex(q: RegexQuery): QueryResult {
    const re = RE2JS.compile(q.pattern, RE2JS.CASE_INSENSITIVE);
    const mask = this.listMask(q.lists);
    const active: number[] = [];
    const delisted: number[] = [];
    let timedOut = false;
    for (let local = 0; local < this.n && active.length < q.limit; local++) {
      if (local % REGEX_CLOCK_EVERY === 0 && Date.now() > q.deadline) {
        timedOut = true;
        break;
      }
      if (!this.eligible(local, mask)) continue;
      const out = this.flags[local] & FLAG_DELISTED ? delisted : active;
      if (out.length < q.limit && re.test(this.values[local])) out.push(this.ids[local]);
    }
    const ids = active.concat(delisted);
    return { qid: q.qid, ids, sims: ids.map(() => 1), kinds: ids.map(() => K_REGEX), timedOut };
  }
}
