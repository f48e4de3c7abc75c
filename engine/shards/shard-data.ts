import { RE2JS } from 're2js';
import { ENTITY_TYPES, MATCH_KINDS, type EntityType } from '../model.js';
import { canonicalKey, normalizeGovernmentId } from '../normalize/index.js';
import { idSimilarity } from '../similarity.js';
import { indexTerms, nameScore, prepareName } from '../names/index.js';
import { buildExactTable, ExactKeyCollector, type ExactKeySet, type ExactTableData } from '../exact-table.js';
import { BytePool } from '../byte-pool.js';
import { KeyBytes } from '../key-bytes.js';
import { ColumnViews, ENTITY_WORDS, FLAG_DELISTED, FLAG_SUPERSEDED, type SharedColumns } from '../store.js';
import { CandidateRanker, TermIndex, TermIndexBuilder } from './term-index.js';
import { forEachEdit } from './edits.js';
import type { FuzzyQuery, IdQuery, QueryResult, RegexQuery } from './protocol.js';
import { threadCpuClock } from './thread-cpu.js';

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
  /** Names taken per query before verification. */
  candidates: number;
  /** Government IDs taken per query before verification. */
  idCandidates: number;
  /**
   * Smallest share of an address, e-mail or domain key a prefix query must cover to match (the
   * search's minimum similarity): the prefix index is laid out for it.
   */
  prefixShare: number;
}

/** Receives index terms as substrings `text.slice(start, end)` (hashed in place, never copied). */
type Emit = (text: string, start: number, end: number, seed: number) => void;

/**
 * Overlapping trigrams of a canonical government ID (the whole key when shorter): an ID with one
 * wrong, missing or extra character still shares most of them.
 */
function trigrams(key: string, emit: Emit): void {
  if (key.length <= 3) {
    if (key) emit(key, 0, key.length, SEED_TRIGRAM);
    return;
  }
  for (let i = 0; i + 3 <= key.length; i++) emit(key, i, i + 3, SEED_TRIGRAM);
}

const NAME_PREFIX = 4;
/** Hash seeds keeping the kinds of terms of one index apart. */
const SEED_TOKEN = 101;
const SEED_PREFIX = 102;
const SEED_TRIGRAM = 103;
/** Prefix terms are seeded by the key length above this. */
const SEED_KEY_LENGTH = 1000;
/**
 * Terms found in more of a shard's documents than this (generic words, common given names, digit
 * trigrams) add no candidates once rarer terms of the query have: scanning them costs more than
 * they tell.
 */
const MAX_FREQUENCY = 50_000;
const MIN_PREFIX_QUERY = 3;
/** Shorter unknown query tokens are not replaced by their one-edit neighbours: too many are words. */
const MIN_EDITED_TOKEN = 3;
/** Postings the one-edit neighbours of a query's unknown tokens may add to its candidates' scoring. */
const EDITED_POSTINGS = 20_000;

/**
 * Index terms of a name: the name matcher's terms (`indexTerms`: tokens, spelling folds,
 * consonant skeletons, romanization keys, original-script tokens), and the prefixes of its
 * tokens.
 */
function nameTerms(terms: string[], forward: boolean, emit: Emit): void {
  for (const t of terms) {
    emit(t, 0, t.length, SEED_TOKEN);
    if (forward) {
      for (let l = 2; l <= t.length; l++) emit(t, 0, l, SEED_PREFIX);
    } else if (t.length >= NAME_PREFIX) {
      emit(t, 0, NAME_PREFIX, SEED_PREFIX);
    }
  }
}

/** Values scanned between two reads of the CPU clock (~0.5-1 ms of matching). */
const REGEX_CLOCK_EVERY = 1024;
const PREFIX_SCAN_MAX = 64;

function grow(a: Uint32Array, need: number): Uint32Array<ArrayBuffer> {
  if (need <= a.length) return a as Uint32Array<ArrayBuffer>;
  const next = new Uint32Array(Math.max(need, 2 * a.length));
  next.set(a);
  return next;
}

/** Documents of one kind (names, IDs, prefix keys): document number → shard-local entity and its text. */
class KeyedDocs {
  size = 0;
  private locals = new Uint32Array(1024);
  private ends = new Uint32Array(1024);
  private readonly pool = new BytePool();

  add(local: number, text: string): number {
    const doc = this.size++;
    this.locals = grow(this.locals, this.size);
    this.ends = grow(this.ends, this.size);
    this.pool.append(text);
    this.locals[doc] = local;
    this.ends[doc] = this.pool.size;
    return doc;
  }

  local(doc: number): number {
    return this.locals[doc];
  }

  text(doc: number): string {
    return this.pool.text(doc === 0 ? 0 : this.ends[doc - 1], this.ends[doc]);
  }
}

/**
 * One shard's part of one generation. Entities reach it as ranges of ids whose columns (type,
 * list, flags, published value) it reads from the calling thread's shared memory; it computes
 * their canonical keys, collects them by hash partition, builds its own partition's exact table
 * (the calling thread probes it) from every shard's keys of that partition, and keeps the term
 * indexes fuzzy search needs: the name matcher's terms of names and their prefixes (with the name
 * as listed, which the matcher verifies candidates against), government-ID trigrams and key
 * prefixes of addresses, e-mails and domains (with the normalized text their candidates are
 * verified against). Shard-local numbers index `ids` (engine ids).
 */
export class ShardGeneration {
  private n = 0;
  private ids = new Uint32Array(1024);
  private readonly cols: ColumnViews;
  private readonly names = new KeyedDocs();
  private readonly govIds = new KeyedDocs();
  private readonly prefixes = new KeyedDocs();
  private nameBuilder: TermIndexBuilder | null = new TermIndexBuilder();
  private idBuilder: TermIndexBuilder | null = new TermIndexBuilder();
  private prefixBuilder: TermIndexBuilder | null = new TermIndexBuilder();
  private nameIndex: TermIndex | null = null;
  private idIndex: TermIndex | null = null;
  private prefixIndex: TermIndex | null = null;
  private readonly ranker = new CandidateRanker(MAX_FREQUENCY);
  private exact: ExactKeyCollector | null;
  private readonly keyBytes = new KeyBytes();

  constructor(
    private readonly opts: ShardOptions,
    columns: SharedColumns,
    partitions: number,
  ) {
    this.cols = new ColumnViews(columns);
    this.exact = new ExactKeyCollector(partitions);
  }

  /** Length of the indexed prefix of a key of `length` characters: the shortest query that can match it. */
  private prefixLength(length: number): number {
    return Math.max(MIN_PREFIX_QUERY, Math.ceil(this.opts.prefixShare * length - 1e-9));
  }

  /** Takes entities `from` .. `to` - 1 (ascending ranges across calls). */
  add(from: number, to: number): void {
    this.ids = grow(this.ids, this.n + to - from);
    this.cols.cover(to);
    const { entities, offsets, values } = this.cols;
    const exact = this.exact!;
    const names = this.nameBuilder!;
    const govIds = this.idBuilder!;
    const prefixes = this.prefixBuilder!;
    const forward = this.opts.tokenize === 'forward';
    const keyBytes = this.keyBytes;
    let doc = 0;
    const nameTerm: Emit = (text, start, end, seed) => names.add(text, start, end, seed, doc);
    const idTerm: Emit = (text, start, end, seed) => govIds.add(text, start, end, seed, doc);
    for (let id = from; id < to; id++) {
      const local = this.n++;
      this.ids[local] = id;
      const type = (entities[ENTITY_WORDS * id] >>> 16) & 0xff;
      const start = offsets[id];
      const end = offsets[id + 1];
      const value = values.text(start, end);
      if (type === T_NAME) {
        const terms = indexTerms(prepareName(value));
        if (terms.length === 0) continue;
        doc = this.names.add(local, value);
        nameTerms(terms, forward, nameTerm);
        continue;
      }
      const key = canonicalKey(ENTITY_TYPES[type], value);
      if (key === null) continue;
      keyBytes.set(key, type + 1);
      exact.add(keyBytes.hi, keyBytes.lo, type, keyBytes, id, key === value, start);
      if (type === T_ID) {
        doc = this.govIds.add(local, key);
        trigrams(key, idTerm);
      } else if (PREFIX_TYPES.has(type) && key.length >= MIN_PREFIX_QUERY) {
        doc = this.prefixes.add(local, key);
        prefixes.add(key, 0, this.prefixLength(key.length), SEED_KEY_LENGTH + key.length, doc);
      }
    }
  }

  /** Seals the generation: lays out the term indexes; returns the exact keys by partition. */
  finish(): ExactKeySet[] {
    this.nameIndex = this.nameBuilder!.build();
    this.idIndex = this.idBuilder!.build();
    this.prefixIndex = this.prefixBuilder!.build();
    this.nameBuilder = this.idBuilder = this.prefixBuilder = null;
    const keys = this.exact!.seal();
    this.exact = null;
    return keys;
  }

  /** The exact table of one partition from every shard's keys of it. */
  exactTable(sets: ExactKeySet[]): ExactTableData {
    return buildExactTable(sets, this.cols.values);
  }

  private listMask(lists: number[]): Uint8Array {
    let max = 0;
    for (const l of lists) if (l > max) max = l;
    const mask = new Uint8Array(max + 1);
    for (const l of lists) mask[l] = 1;
    return mask;
  }

  /** On one of the lists asked for, and not a past listing period (the search never shows those). */
  private eligible(local: number, mask: Uint8Array): boolean {
    return mask[this.cols.listOf(this.ids[local])] === 1 && (this.cols.flagsOf(this.ids[local]) & FLAG_SUPERSEDED) === 0;
  }

  private onLists(local: number, mask: Uint8Array): boolean {
    return mask[this.cols.listOf(this.ids[local])] === 1;
  }

  private delisted(local: number): number {
    return this.cols.flagsOf(this.ids[local]) & FLAG_DELISTED;
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
      for (const doc of this.idCandidates(idKey, mask, 'shown')) offer(this.govIds.local(doc), idSimilarity(idKey, this.govIds.text(doc)));
    }
    this.prefixMatches(q.q, mask, offer);
    const hits = [...best].sort((a, b) => this.delisted(a[0]) - this.delisted(b[0]) || b[1] - a[1] || this.ids[a[0]] - this.ids[b[0]]);
    hits.length = Math.min(hits.length, q.limit);
    return {
      qid: q.qid,
      ids: hits.map(([local]) => this.ids[local]),
      sims: hits.map(([, sim]) => sim),
      kinds: hits.map(() => K_FUZZY),
    };
  }

  /**
   * Names sharing the most (and rarest) terms with the query, verified and ranked by the name
   * matcher against the names as listed.
   */
  private nameMatches(raw: string, mask: Uint8Array, offer: (local: number, sim: number) => void): void {
    const index = this.nameIndex!;
    const query = prepareName(raw);
    const queryTerms = indexTerms(query);
    if (queryTerms.length === 0) return;
    const terms: number[] = [];
    const found: Emit = (text, start, end, seed) => {
      const t = index.term(text, start, end, seed);
      if (t >= 0) terms.push(t);
    };
    nameTerms(queryTerms, false, found);
    // In a forward index, a query token may also be the start of a longer listed token.
    if (this.opts.tokenize === 'forward') for (const term of queryTerms) found(term, 0, term.length, SEED_PREFIX);
    // A token no listed name has is most likely a typo: the listed tokens one edit away stand in
    // for it (a typo in its first letters also loses its prefix term). Rare ones first, within a
    // budget of postings: the neighbours of a short token include common words.
    const variants: number[] = [];
    const variant = (codes: Uint16Array, n: number) => {
      const t = index.termOfCodes(codes, n, SEED_TOKEN);
      if (t >= 0) variants.push(t);
    };
    for (const token of query.latin.tokens) {
      if (token.length >= MIN_EDITED_TOKEN && index.term(token, 0, token.length, SEED_TOKEN) < 0) forEachEdit(token, variant);
    }
    variants.sort((a, b) => index.frequency(a) - index.frequency(b));
    let budget = EDITED_POSTINGS;
    for (const t of variants) {
      budget -= index.frequency(t);
      if (budget < 0) break;
      terms.push(t);
    }
    if (terms.length === 0) return;
    const docs = this.names;
    const candidates = this.ranker.rank(index, terms, docs.size, this.opts.candidates, (doc) => this.eligible(docs.local(doc), mask));
    for (const doc of candidates) offer(docs.local(doc), nameScore(query, prepareName(docs.text(doc))));
  }

  /**
   * Addresses, e-mails and domains starting with the query (as typed and lower-cased, since
   * base58 keys keep their case): similarity is the share of the key the query covers. Each key
   * is indexed under its shortest matching prefix (see `prefixLength`) and its length, so a query
   * looks up one term per key length it could cover enough of.
   */
  private prefixMatches(raw: string, mask: Uint8Array, offer: (local: number, sim: number) => void): void {
    const q = raw.trim();
    if (q.length < MIN_PREFIX_QUERY || /\s/.test(q)) return;
    const index = this.prefixIndex!;
    const docs = this.prefixes;
    const longest = Math.floor(q.length / this.opts.prefixShare + 1e-9);
    for (const prefix of new Set([q, q.toLowerCase()])) {
      let seen = 0;
      for (let length = prefix.length; length <= longest && seen < PREFIX_SCAN_MAX; length++) {
        const t = index.term(prefix, 0, this.prefixLength(length), SEED_KEY_LENGTH + length);
        if (t < 0) continue;
        for (let p = index.offsets[t]; p < index.offsets[t + 1] && seen < PREFIX_SCAN_MAX; p++, seen++) {
          const doc = index.postings[p];
          const local = docs.local(doc);
          if (!this.eligible(local, mask)) continue;
          const key = docs.text(doc);
          if (key.startsWith(prefix)) offer(local, prefix.length / key.length);
        }
      }
    }
  }

  /**
   * Government-ID documents sharing the most (and rarest) trigrams with the canonical key `key`,
   * among those a query sees: screening now (`active`), the search (`shown`: active and current
   * delistings) or screening as of a past date (`history`: every listing period, which the
   * calling thread then filters by time).
   */
  private idCandidates(key: string, mask: Uint8Array, scope: 'active' | 'shown' | 'history'): number[] {
    const index = this.idIndex!;
    const terms: number[] = [];
    trigrams(key, (text, start, end, seed) => {
      const t = index.term(text, start, end, seed);
      if (t >= 0) terms.push(t);
    });
    if (terms.length === 0) return [];
    const docs = this.govIds;
    return this.ranker.rank(index, terms, docs.size, this.opts.idCandidates, (doc) => {
      const local = docs.local(doc);
      if (scope === 'history') return this.onLists(local, mask);
      return this.eligible(local, mask) && !(scope === 'active' && this.delisted(local));
    });
  }

  idMatches(q: IdQuery): QueryResult {
    const mask = this.listMask(q.lists);
    const ids: number[] = [];
    const sims: number[] = [];
    for (const doc of this.idCandidates(q.key, mask, q.history ? 'history' : 'active')) {
      const sim = idSimilarity(q.key, this.govIds.text(doc));
      if (sim >= q.threshold) {
        ids.push(this.ids[this.govIds.local(doc)]);
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
    const cpu = threadCpuClock();
    const stopAt = cpu() + q.budgetMs;
    for (let local = 0; local < this.n && active.length < q.limit; local++) {
      if (local % REGEX_CLOCK_EVERY === 0 && local > 0 && cpu() > stopAt) {
        timedOut = true;
        break;
      }
      if (!this.eligible(local, mask)) continue;
      const out = this.delisted(local) ? delisted : active;
      if (out.length < q.limit && re.test(this.cols.value(this.ids[local]))) out.push(this.ids[local]);
    }
    const ids = active.concat(delisted);
    return { qid: q.qid, ids, sims: ids.map(() => 1), kinds: ids.map(() => K_REGEX), timedOut };
  }
}
