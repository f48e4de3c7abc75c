import { RE2JS } from 're2js';
import { ENTITY_TYPES, MATCH_KINDS, type EntityType } from '../model.js';
import { canonicalKey, normalizeGovernmentId } from '../normalize/index.js';
import { idSimilarity } from '../similarity.js';
import {
  indexTerms,
  nameIndexTerms,
  nameScore,
  prepareName,
  prepareQuery,
  scoreParty,
  type PreparedName,
} from '../names/index.js';
import { buildExactTable, ExactKeyCollector, type ExactKeySet, type ExactTableData } from '../exact-table.js';
import { BytePool } from '../byte-pool.js';
import { KeyBytes } from '../key-bytes.js';
import { ColumnViews, ENTITY_WORDS, FLAG_DELISTED, FLAG_SUPERSEDED, type SharedColumns } from '../store.js';
import { CandidateIndex } from './candidate-index.js';
import { PrefixIndex } from './prefix-index.js';
import { ShardParties } from './parties.js';
import { BoundedCache } from './bounded-cache.js';
import { forEachEdit } from './edits.js';
import type {
  FuzzyQuery,
  IdQuery,
  NameQuery,
  NamesQuery,
  PartyFeatures,
  PartyMatchDetail,
  QueryResult,
  RegexQuery,
} from './protocol.js';
import { threadCpuClock } from './thread-cpu.js';

const T_NAME = ENTITY_TYPES.indexOf('name');
const T_ID = ENTITY_TYPES.indexOf('government_id');
const T_PARTY = ENTITY_TYPES.indexOf('party');
const PREFIX_TYPES = new Set(
  (['crypto_address', 'email', 'email_domain', 'website'] as EntityType[]).map((t) => ENTITY_TYPES.indexOf(t)),
);
const K_FUZZY = MATCH_KINDS.indexOf('fuzzy');
const K_REGEX = MATCH_KINDS.indexOf('regex');

export interface ShardOptions {
  /**
   * Name terms. 'strict': each term plus its first four letters (a typo after the fourth letter,
   * or a query cut short, still meets the token). 'forward': FlexSearch's forward tokenizer, every
   * prefix of every term (queries of a few letters find longer names; a larger index).
   */
  tokenize: 'forward' | 'strict';
  /** How the candidate indexes rank (see candidate-index.ts). */
  ranking: 'idf' | 'flexsearch';
  /** Names taken per query before verification. */
  candidates: number;
  /** Names taken per name screening before their parties are scored. */
  partyCandidates: number;
  /** Government IDs taken per query before verification. */
  idCandidates: number;
  /**
   * Smallest share of an address, e-mail or domain key a prefix query must cover to match (the
   * search's minimum similarity): the prefix index is laid out for it.
   */
  prefixShare: number;
}

/**
 * Overlapping trigrams of a canonical government ID (the whole key when shorter): an ID with one
 * wrong, missing or extra character still shares most of them.
 */
function trigrams(key: string): string[] {
  if (key.length <= 3) return key ? [key] : [];
  const out: string[] = [];
  for (let i = 0; i + 3 <= key.length; i++) out.push(key.slice(i, i + 3));
  return out;
}

const NAME_PREFIX = 4;
/** Marks a name's prefix term apart from a token of the same letters. */
const PREFIX_MARK = '*';
/** Prefix keys are seeded by the key length above this. */
const SEED_KEY_LENGTH = 1000;
/**
 * Terms found in more of a shard's documents than this (generic words, common given names, digit
 * trigrams) add no candidates once rarer terms of the query have: scanning them costs more than
 * they tell.
 */
const MAX_FREQUENCY = 50_000;
/**
 * Name terms found in more of a shard's documents than this only add weight to the candidates
 * rarer terms found (see CandidateIndex): a query's cost stays bounded as the lists grow.
 */
const NAME_SCAN_FREQUENCY = 1000;
const MIN_PREFIX_QUERY = 3;
/** Shorter unknown query tokens are not replaced by their one-edit neighbours: too many are words. */
const MIN_EDITED_TOKEN = 3;
/** Postings the one-edit neighbours of a query's unknown tokens may add to its candidates' scoring. */
const EDITED_POSTINGS = 20_000;
/**
 * Name candidates weighing less than this share of the best are not verified: on synthetic typo
 * queries a half kept the listed name among the candidates as often as no floor did (97.4% against
 * 98.0% at 107k names, one shard) and took verification from ~380 to ~230 µs a query
 * (docs/performance.md). Screening keeps more, a third: missing a party costs more than a search row.
 */
const SEARCH_MIN_SHARE = 0.5;
/** Prepared names the search keeps per shard (see BoundedCache). */
const PREPARED_NAMES = 50_000;
const SCREEN_MIN_SHARE = 1 / 3;
/**
 * Query tokens whose listed one-edit neighbours bulk screening keeps (a generation's index does
 * not change, nor do they): a book's names draw on some tens of thousands of given and family names.
 */
const EDIT_NEIGHBOURS_KEPT = 100_000;

type PreparedQuery = ReturnType<typeof prepareQuery>;

/** A listed token one edit away from a query token, and its document frequency. */
interface EditNeighbour {
  t: string;
  df: number;
}
/** Query token → its listed one-edit neighbours (none when the token itself is listed). */
type EditNeighbours = Map<string, readonly EditNeighbour[]>;

/**
 * Index terms of a name: the name matcher's terms (`indexTerms`: tokens, spelling folds,
 * consonant skeletons, romanization keys, original-script tokens), and in a strict index the
 * four-letter prefixes of its terms (a forward index holds every prefix already), appended to
 * `terms`.
 */
function nameTerms(terms: string[], forward: boolean): string[] {
  if (forward) return terms;
  const n = terms.length;
  for (let i = 0; i < n; i++)
    if (terms[i].length >= NAME_PREFIX) terms.push(terms[i].slice(0, NAME_PREFIX) + PREFIX_MARK);
  return terms;
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
 * One shard's part of one generation. Entities reach it as lists of ids whose columns (type, list,
 * flags, published value) it reads from the calling thread's shared memory, with each one's party
 * number (every record of a party comes to the same shard) and the features of party records; it
 * computes their canonical keys, collects them by hash partition, builds its own partition's exact
 * table (the calling thread probes it) from every shard's keys of that partition, and keeps what
 * fuzzy search and name screening need: a FlexSearch candidate index of the name matcher's terms
 * of names (with the name as listed, which the matcher verifies candidates against, and its
 * party), one of government-ID trigrams, and key prefixes of addresses, e-mails and domains (with
 * the normalized text their candidates are verified against). Shard-local numbers index `ids`
 * (engine ids).
 */
export class ShardGeneration {
  private n = 0;
  private ids = new Uint32Array(1024);
  private readonly cols: ColumnViews;
  private readonly names = new KeyedDocs();
  /** Party number of each name document (0: none). */
  private nameParty = new Uint32Array(1024);
  private readonly govIds = new KeyedDocs();
  private readonly prefixes = new KeyedDocs();
  private readonly nameIndex: CandidateIndex;
  private readonly idIndex: CandidateIndex;
  private readonly prefixIndex = new PrefixIndex();
  private readonly parties = new ShardParties();
  /** Names as the matcher prepared them for the search's verification, by document. */
  private readonly preparedNames = new BoundedCache<PreparedName>(PREPARED_NAMES);
  private exact: ExactKeyCollector | null;
  private readonly keyBytes = new KeyBytes();
  private readonly editNeighbours: EditNeighbours = new Map();

  constructor(
    private readonly opts: ShardOptions,
    columns: SharedColumns,
    partitions: number,
  ) {
    this.cols = new ColumnViews(columns);
    this.exact = new ExactKeyCollector(partitions);
    this.nameIndex = new CandidateIndex(
      { tokenize: opts.tokenize, resolution: 1, ranking: opts.ranking },
      MAX_FREQUENCY,
      NAME_SCAN_FREQUENCY,
    );
    this.idIndex = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: opts.ranking }, MAX_FREQUENCY);
  }

  /** Length of the indexed prefix of a key of `length` characters: the shortest query that can match it. */
  private prefixLength(length: number): number {
    return Math.max(MIN_PREFIX_QUERY, Math.ceil(this.opts.prefixShare * length - 1e-9));
  }

  /** Takes entities `ids` (ascending across calls), with their party numbers and the party records' features. */
  add(ids: Uint32Array, parties: Uint32Array, features: PartyFeatures[]): void {
    if (ids.length === 0) return;
    this.ids = grow(this.ids, this.n + ids.length);
    this.cols.cover(ids[ids.length - 1] + 1);
    const { entities, offsets, values } = this.cols;
    const exact = this.exact!;
    const forward = this.opts.tokenize === 'forward';
    const keyBytes = this.keyBytes;
    let party = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const local = this.n++;
      this.ids[local] = id;
      const type = (entities[ENTITY_WORDS * id] >>> 16) & 0xff;
      const start = offsets[id];
      const end = offsets[id + 1];
      const value = values.text(start, end);
      if (type === T_NAME) {
        const terms = nameIndexTerms(value);
        if (terms.length === 0) continue;
        const doc = this.names.add(local, value);
        this.nameParty = grow(this.nameParty, doc + 1);
        this.nameParty[doc] = parties[i];
        this.nameIndex.add(doc, nameTerms(terms, forward));
        continue;
      }
      if (type === T_PARTY)
        this.parties.set(parties[i], id, features[party++], (this.cols.flagsOf(id) & FLAG_SUPERSEDED) === 0);
      const key = canonicalKey(ENTITY_TYPES[type], value);
      if (key === null) continue;
      keyBytes.set(key, type + 1);
      exact.add(keyBytes.hi, keyBytes.lo, type, keyBytes, id, key === value, start);
      if (type === T_ID) {
        this.idIndex.add(this.govIds.add(local, key), trigrams(key));
      } else if (PREFIX_TYPES.has(type) && key.length >= MIN_PREFIX_QUERY) {
        const doc = this.prefixes.add(local, key);
        this.prefixIndex.add(key, 0, this.prefixLength(key.length), SEED_KEY_LENGTH + key.length, doc);
      }
    }
  }

  /** Seals the generation: fills the candidate indexes, sorts the prefix index; returns the exact keys by partition. */
  finish(): ExactKeySet[] {
    this.nameIndex.seal();
    this.idIndex.seal();
    this.prefixIndex.seal();
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
    return (
      mask[this.cols.listOf(this.ids[local])] === 1 && (this.cols.flagsOf(this.ids[local]) & FLAG_SUPERSEDED) === 0
    );
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
    if (/\p{L}/u.test(q.q)) {
      const query = prepareName(q.q);
      const docs = this.names;
      for (const doc of this.nameCandidates(
        query,
        this.opts.candidates,
        (d) => this.eligible(docs.local(d), mask),
        SEARCH_MIN_SHARE,
      )) {
        offer(
          docs.local(doc),
          nameScore(
            query,
            this.preparedNames.get(doc, () => prepareName(docs.text(doc))),
          ),
        );
      }
    }
    const idKey = normalizeGovernmentId(q.q);
    if (idKey.length >= 4 && /\d/.test(idKey)) {
      for (const doc of this.idCandidates(idKey, mask, 'shown'))
        offer(this.govIds.local(doc), idSimilarity(idKey, this.govIds.text(doc)));
    }
    this.prefixMatches(q.q, mask, offer);
    const hits = [...best].sort(
      (a, b) => this.delisted(a[0]) - this.delisted(b[0]) || b[1] - a[1] || this.ids[a[0]] - this.ids[b[0]],
    );
    hits.length = Math.min(hits.length, q.limit);
    return {
      qid: q.qid,
      ids: hits.map(([local]) => this.ids[local]),
      sims: hits.map(([, sim]) => sim),
      kinds: hits.map(() => K_FUZZY),
    };
  }

  /**
   * Name documents sharing the most (and rarest) terms with the prepared query: its index terms,
   * and for a token no listed name has (most likely a typo) the listed tokens one edit away, rare
   * ones first within a budget of postings (the neighbours of a short token include common words).
   * `known`, when given, keeps each token's neighbours for the next queries (bulk screening: a
   * book's given and family names recur, and the edits are most of a candidate search's cost).
   */
  private nameCandidates(
    query: PreparedName,
    k: number,
    accept: (doc: number) => boolean,
    minShare: number,
    known: EditNeighbours | null = null,
  ): number[] {
    const index = this.nameIndex;
    const queryTerms = indexTerms(query);
    if (queryTerms.length === 0) return [];
    const terms = nameTerms(queryTerms, this.opts.tokenize === 'forward');
    let variants: EditNeighbour[] = [];
    const variant = (codes: Uint16Array, n: number) => {
      if (!index.mayHold(codes, n)) return;
      const t = String.fromCharCode.apply(null, codes.subarray(0, n) as unknown as number[]);
      const df = index.frequency(t);
      if (df > 0) variants.push({ t, df });
    };
    for (const token of query.latin.tokens) {
      if (token.length < MIN_EDITED_TOKEN) continue;
      if (known === null) {
        if (index.frequency(token) === 0) forEachEdit(token, variant);
        continue;
      }
      let neighbours = known.get(token);
      if (neighbours === undefined) {
        const before = variants;
        variants = [];
        if (index.frequency(token) === 0) forEachEdit(token, variant);
        neighbours = variants;
        variants = before;
        if (known.size >= EDIT_NEIGHBOURS_KEPT) known.clear();
        known.set(token, neighbours);
      }
      for (const v of neighbours) variants.push(v);
    }
    variants.sort((a, b) => a.df - b.df);
    let budget = EDITED_POSTINGS;
    for (const { t, df } of variants) {
      budget -= df;
      if (budget < 0) break;
      terms.push(t);
    }
    return index.candidates(terms, k, accept, minShare);
  }

  /**
   * Name screening: the parties of the best name candidates (a name without a party record
   * stands alone), scored by the name matcher's `scoreParty` (every name of the party, then birth
   * date, country and type); those at or above the threshold, best first. Delisted parties are
   * not screened, but for `history` (as of a past date: every listing period of each party).
   */
  screenNames(q: NameQuery): QueryResult {
    const mask = this.listMask(q.lists);
    const query = prepareQuery({
      name: q.name,
      birth_date: q.birth_date,
      country: q.country,
      party_type: q.party_type,
    });
    const docs = this.names;
    // As of a past date every listing period is a candidate: the calling thread keeps those listed then.
    const candidate = q.history
      ? (doc: number) => this.onLists(docs.local(doc), mask)
      : (doc: number) => this.eligible(docs.local(doc), mask) && !this.delisted(docs.local(doc));
    const scored = this.scoreParties(query, candidate, q.threshold, q.limit, q.history === true, null);
    return {
      qid: q.qid,
      ids: scored.map((h) => h.entity),
      sims: scored.map((h) => h.score),
      kinds: scored.map(() => K_FUZZY),
      details: scored.map((h) => h.detail),
    };
  }

  /**
   * A round of name screenings (a customer's book), each answered as `screenNames` answers the
   * same fields now: the hits of all of them in one result, `ends` marking where each query's end.
   */
  screenNamesBulk(q: NamesQuery): QueryResult {
    const mask = this.listMask(q.lists);
    const docs = this.names;
    const candidate = (doc: number) => this.eligible(docs.local(doc), mask) && !this.delisted(docs.local(doc));
    const ids: number[] = [];
    const sims: number[] = [];
    const kinds: number[] = [];
    const details: PartyMatchDetail[] = [];
    const ends = new Uint32Array(q.names.length);
    for (let i = 0; i < q.names.length; i++) {
      const query = prepareQuery({
        name: q.names[i],
        birth_date: q.birth_dates[i],
        country: q.countries[i],
        party_type: q.party_types[i],
      });
      for (const h of this.scoreParties(query, candidate, q.threshold, q.limit, false, this.editNeighbours)) {
        ids.push(h.entity);
        sims.push(h.score);
        kinds.push(K_FUZZY);
        details.push(h.detail);
      }
      ends[i] = ids.length;
    }
    return { qid: q.qid, ids, sims, kinds, details, ends };
  }

  /** The parties of a prepared query's name candidates at or above `threshold`, best first, at most `limit`. */
  private scoreParties(
    query: PreparedQuery,
    candidate: (doc: number) => boolean,
    threshold: number,
    limit: number,
    history: boolean,
    known: EditNeighbours | null,
  ): { entity: number; score: number; detail: PartyMatchDetail }[] {
    const docs = this.names;
    const flags = this.cols;
    const scored: { entity: number; score: number; detail: PartyMatchDetail }[] = [];
    const seen = new Set<number>();
    for (const doc of this.nameCandidates(query.name, this.opts.partyCandidates, candidate, SCREEN_MIN_SHARE, known)) {
      const party = this.nameParty[doc];
      const recorded = party > 0 ? this.parties.entities(party) : [];
      // A name without a party record stands alone, keyed by its document.
      const key = recorded.length > 0 ? party : -1 - doc;
      if (seen.has(key)) continue;
      seen.add(key);
      const entities =
        recorded.length === 0
          ? [this.ids[docs.local(doc)]]
          : history
            ? recorded
            : recorded.filter((e) => (flags.flagsOf(e) & FLAG_DELISTED) === 0);
      if (entities.length === 0) continue;
      const m = scoreParty(
        query,
        this.parties.get(key, () => docs.text(doc)),
      );
      if (m.score > 0 && m.score >= threshold)
        for (const entity of entities)
          scored.push({ entity, score: m.score, detail: { name: m.name, explanation: m.explanation } });
    }
    scored.sort((a, b) => b.score - a.score || a.entity - b.entity);
    scored.length = Math.min(scored.length, limit);
    return scored;
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
    const docs = this.prefixes;
    const longest = Math.floor(q.length / this.opts.prefixShare + 1e-9);
    for (const prefix of new Set([q, q.toLowerCase()])) {
      let seen = 0;
      for (let length = prefix.length; length <= longest && seen < PREFIX_SCAN_MAX; length++) {
        this.prefixIndex.forEach(prefix, 0, this.prefixLength(length), SEED_KEY_LENGTH + length, (doc) => {
          seen++;
          const local = docs.local(doc);
          if (this.eligible(local, mask)) {
            const key = docs.text(doc);
            if (key.length === length && key.startsWith(prefix)) offer(local, prefix.length / key.length);
          }
          return seen < PREFIX_SCAN_MAX;
        });
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
    const docs = this.govIds;
    return this.idIndex.candidates(trigrams(key), this.opts.idCandidates, (doc) => {
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

  /**
   * Linear scan in id order; active hits fill first, delisted ones are kept up to the limit too.
   * Party records are found through their names, not their source ids.
   */
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
      if (!this.eligible(local, mask) || this.cols.typeOf(this.ids[local]) === T_PARTY) continue;
      const out = this.delisted(local) ? delisted : active;
      if (out.length < q.limit && re.test(this.cols.value(this.ids[local]))) out.push(this.ids[local]);
    }
    const ids = active.concat(delisted);
    return { qid: q.qid, ids, sims: ids.map(() => 1), kinds: ids.map(() => K_REGEX), timedOut };
  }
}
