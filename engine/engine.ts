import { availableParallelism } from 'node:os';
import { RE2JS } from 're2js';
import { TYPE_INDEX as T, type EntityRecord, type EntityType, type ListSnapshotInfo, type PartyType } from './model.js';
import type { MatchExplanation } from './names/index.js';
import { normalizeGovernmentId } from './normalize/index.js';
import { kindRule, type ScreenKind } from './kinds.js';
import { ProbeList } from './probes.js';
import { FUZZY_ID_THRESHOLD } from './similarity.js';
import type { PreparedValue } from './normalize/validate.js';
import { Generation, type EngineStats, type Hit } from './generation.js';
import type { EntityView } from './store.js';
import { buildGeneration } from './build.js';
import { ShardPool } from './shards/pool.js';
import type { QueryResult } from './shards/protocol.js';

export type { EntityView } from './store.js';
export type { EngineStats, Hit } from './generation.js';
export type { ScreenKind } from './kinds.js';

export interface EngineGeneration {
  lists: ListSnapshotInfo[];
  records: AsyncIterable<EntityRecord> | Iterable<EntityRecord>;
}

export interface EngineOptions {
  /** Worker threads; default `os.availableParallelism()`. */
  shards?: number;
  /** Called with the number of records read so far while a generation loads. */
  onProgress?: (loaded: number) => void;
  /** Name index terms: 'strict' (default) indexes tokens and 4-letter prefixes, 'forward' every prefix (heavier). */
  tokenize?: 'forward' | 'strict';
  /** How the candidate indexes rank: 'idf' (default) or FlexSearch's own 'flexsearch' (see shards/candidate-index.ts). */
  ranking?: 'idf' | 'flexsearch';
  /** Names verified per shard and fuzzy query (government IDs: 32). */
  candidates?: number;
  /** Names whose parties are scored per shard and name screening. */
  partyCandidates?: number;
}

export interface ScreenQuery {
  kind: ScreenKind;
  value: string;
  lists: string[];
  /**
   * Screen against the lists as they stood at this time (ms since the epoch): every listing
   * period is searched, and an entity matches when it was listed then and not yet removed.
   */
  asOf?: number;
}

/** A name screening: the listed parties a person or organisation of this name could be. */
export interface NameScreenQuery {
  name: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birth_date?: string | null;
  /** ISO 3166 code or country name. */
  country?: string | null;
  party_type?: PartyType | null;
  lists: string[];
  threshold: number;
  limit: number;
  /** Screen the lists as they stood at this time (ms since the epoch). */
  asOf?: number;
}

/** One name screening of a bulk round (`Engine.screenNames`). */
export interface BulkNameQuery {
  name: string;
  birth_date?: string | null;
  country?: string | null;
  party_type?: PartyType | null;
}

/** What every query of a bulk round shares. */
export interface BulkNameOptions {
  lists: string[];
  threshold: number;
  limit: number;
}

/** A listed party a name screening met. */
export interface PartyHit {
  /** The party's record (for a name of no party record, the name's). */
  entity: EntityView;
  score: number;
  /** The party's name that scored best. */
  name: string | null;
  explanation: MatchExplanation;
}

export interface SearchQuery {
  q: string;
  mode: 'fuzzy' | 'regex';
  lists: string[];
  limit: number;
  budgetMs?: number;
}

/** A query the engine cannot run as given (an invalid regular expression). */
export class EngineQueryError extends Error {}

/** A regular expression whose scan needs more CPU time than the budget allows. */
export class RegexTooCostly extends EngineQueryError {
  constructor(readonly budgetMs: number) {
    super(
      `the regular expression needs more than the ${budgetMs} ms of scanning allowed per search; anchor it or make it more specific`,
    );
  }
}

/**
 * Fuzzy search results below this similarity are dropped: at 0.6 a name still shares most of its
 * letters in order with the query (one typo in a short name, a missing middle name), while
 * unrelated names sharing one token (`ACME TRADING LLC` vs `GLOBAL TRADING LLC`) fall below it.
 */
const SEARCH_MIN_SIMILARITY = 0.6;
/** Regex budget (CPU time of each shard's scan) when the caller gives none. */
const DEFAULT_REGEX_BUDGET_MS = 250;
/**
 * The candidate index ranks documents sharing more (and rarer) query terms first, a query token
 * it does not know standing for its one-edit neighbours; past the first dozen or so per shard the
 * verification (our similarity) costs more than it finds (docs/performance.md).
 */
const DEFAULT_CANDIDATES = 16;
/** Government IDs verified per shard and query: a screening must not miss a near match. */
const ID_CANDIDATES = 32;
/**
 * Names whose parties are scored per shard and name screening: a screening must not miss a
 * party, so more than the search verifies; each costs a party's preparation on first use.
 */
const PARTY_CANDIDATES = 24;
/** Listing periods per party a name screening as of a past date makes room for per shard. */
const HISTORY_PERIODS = 4;

function byRank(g: Generation) {
  return (a: Hit, b: Hit) =>
    Number(g.isDelisted(a.entity.id)) - Number(g.isDelisted(b.entity.id)) ||
    b.similarity - a.similarity ||
    a.entity.id - b.entity.id;
}

/**
 * The hits of `probes` on generation `g` (as of `asOf` when given), appended to `out`, each entity
 * once: an entity has one key, so only a probe repeating an earlier one (a country that is also
 * its own region's parent) could meet it again, and such a probe is skipped. Checking each hit
 * against the hits before it instead cost time quadratic in their number: 4.8 s of the front-end
 * thread for a key that 60,000 entities shared.
 */
function collect(
  g: Generation,
  probes: ProbeList,
  lists: string[],
  includeDelisted: boolean,
  out: Hit[],
  asOf?: number,
): Hit[] {
  for (let i = 0; i < probes.length; i++)
    if (!repeatsProbe(probes, i))
      g.collect(probes.types[i], probes.keys[i], probes.matches[i], lists, includeDelisted, out, asOf);
  return out;
}

/** Whether probe `i` has the entity type and key of an earlier one (probes are few: a host's parent domains at most). */
function repeatsProbe(probes: ProbeList, i: number): boolean {
  for (let j = 0; j < i; j++) if (probes.types[j] === probes.types[i] && probes.keys[j] === probes.keys[i]) return true;
  return false;
}

/**
 * The screening engine. Exact kinds (crypto, e-mail, website, country) are answered on the
 * calling thread from shard-built shared-memory tables; fuzzy government IDs, free search and
 * regex go to the shard workers. `load` builds a new generation beside the current one and swaps
 * it in at once: a query runs entirely on the generation that was current when it started.
 */
export class Engine {
  private current!: Generation;
  private loads = 0;
  private loading: Promise<unknown> = Promise.resolve();
  /** Reused by every screening: one runs from its first probe to its last without yielding. */
  private readonly probes = new ProbeList();

  private constructor(
    private readonly pool: ShardPool,
    private readonly opts: EngineOptions,
  ) {}

  static async create(opts: EngineOptions = {}): Promise<Engine> {
    const shards = Math.max(1, opts.shards ?? availableParallelism());
    const pool = await ShardPool.start(shards, {
      tokenize: opts.tokenize ?? 'strict',
      ranking: opts.ranking ?? 'idf',
      candidates: opts.candidates ?? DEFAULT_CANDIDATES,
      partyCandidates: opts.partyCandidates ?? PARTY_CANDIDATES,
      idCandidates: ID_CANDIDATES,
      prefixShare: SEARCH_MIN_SIMILARITY,
    });
    const engine = new Engine(pool, opts);
    engine.current = await buildGeneration(pool, 0, [], [], undefined, (g) => engine.drop(g));
    return engine;
  }

  /** Loads serialize: a second call waits for the first to finish and then replaces it. */
  load(gen: EngineGeneration): Promise<{ entities: number; ms: number }> {
    const run = this.loading.then(() => this.loadNow(gen));
    this.loading = run.catch(() => undefined);
    return run;
  }

  private async loadNow(gen: EngineGeneration): Promise<{ entities: number; ms: number }> {
    const t0 = performance.now();
    const id = ++this.loads;
    let next: Generation;
    try {
      next = await buildGeneration(this.pool, id, gen.lists, gen.records, this.opts.onProgress, (g) => this.drop(g));
    } catch (e) {
      await Promise.all(
        Array.from({ length: this.pool.size }, (_, i) => this.pool.send(i, { t: 'drop', gen: id })),
      ).catch(() => undefined);
      throw e;
    }
    const old = this.current;
    this.current = next;
    old.retire();
    return { entities: next.size, ms: performance.now() - t0 };
  }

  private drop(g: Generation): void {
    for (let i = 0; i < this.pool.size; i++) this.pool.send(i, { t: 'drop', gen: g.id }).catch(() => undefined);
  }

  generation(): number {
    return this.current.id;
  }

  /** The lists of the current generation with the versions it serves. */
  served(): readonly ListSnapshotInfo[] {
    return this.current.lists;
  }

  /**
   * Synchronous answer for the exact-only kinds; null for one of fuzzy IDs (`id`), which needs the shards. A value
   * that is not of its kind (see normalize/validate.ts) matches nothing.
   */
  screenExact(q: ScreenQuery): Hit[] | null {
    if (kindRule(q.kind).fuzzyIds) return null;
    const g = this.current;
    return collect(g, this.probes.screening(q.kind, q.value, g.caselessCrypto), q.lists, false, [], q.asOf);
  }

  /** `screenExact` of a value of `kind` already validated and normalized (`prepareValue`), as of `asOf` when given. */
  screenPrepared(kind: ScreenKind, p: PreparedValue, lists: string[], asOf?: number): Hit[] | null {
    if (kindRule(kind).fuzzyIds) return null;
    const g = this.current;
    return collect(g, this.probes.prepared(kind, p, g.caselessCrypto), lists, false, [], asOf);
  }

  /** Exact kinds resolve without an async frame (the hot path); `id` consults the shards. */
  screen(q: ScreenQuery): Promise<Hit[]> {
    try {
      const exact = this.screenExact(q);
      return exact ? Promise.resolve(exact) : this.screenId(q);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private async screenId(q: ScreenQuery): Promise<Hit[]> {
    const key = normalizeGovernmentId(q.value);
    if (!key) return [];
    const g = this.current;
    const asOf = q.asOf;
    const out = collect(g, this.probes.screening(q.kind, q.value), q.lists, false, [], asOf);
    const lists = g.listIndices(q.lists);
    if (lists.length === 0) return out;
    const history = asOf !== undefined;
    const results = await this.fanOut(g, (gen) => ({
      op: 'id',
      gen,
      key,
      lists,
      threshold: FUZZY_ID_THRESHOLD,
      history,
    }));
    const fuzzy: Hit[] = [];
    const exact = new Set(out.map((h) => h.entity.id));
    for (const r of results) {
      r.ids.forEach((id, i) => {
        if (history && !g.listedAt(id, asOf)) return;
        if (!exact.has(id)) fuzzy.push({ entity: g.store.view(id), match: 'fuzzy', similarity: r.sims[i] });
      });
    }
    fuzzy.sort(byRank(g));
    return out.concat(fuzzy);
  }

  /** Listed parties (active, or listed at `asOf`) whose names score at or above the threshold, best first (see ShardGeneration.screenNames). */
  async screenName(q: NameScreenQuery): Promise<PartyHit[]> {
    const g = this.current;
    const lists = g.listIndices(q.lists);
    if (lists.length === 0 || q.limit <= 0) return [];
    const asOf = q.asOf;
    const history = asOf !== undefined;
    const results = await this.fanOut(g, (gen) => ({
      op: 'name',
      gen,
      name: q.name,
      birth_date: q.birth_date ?? null,
      country: q.country ?? null,
      party_type: q.party_type ?? null,
      lists,
      threshold: q.threshold,
      // As of a past date a party may come once per listing period, those of other times dropped here.
      limit: history ? q.limit * HISTORY_PERIODS : q.limit,
      history,
    }));
    const hits: PartyHit[] = [];
    for (const r of results) {
      r.ids.forEach((id, i) => {
        if (history && !g.listedAt(id, asOf)) return;
        hits.push({
          entity: g.store.view(id),
          score: r.sims[i],
          name: r.details![i].name,
          explanation: r.details![i].explanation,
        });
      });
    }
    return hits.sort((a, b) => b.score - a.score || a.entity.id - b.entity.id).slice(0, q.limit);
  }

  /**
   * Name screenings in bulk (a customer's book): each query's hits as `screenName` answers it now
   * with the shared options, from one message per shard for the whole round.
   */
  async screenNames(queries: readonly BulkNameQuery[], opts: BulkNameOptions): Promise<PartyHit[][]> {
    const g = this.current;
    const lists = g.listIndices(opts.lists);
    const answers: PartyHit[][] = [];
    if (lists.length === 0 || opts.limit <= 0 || queries.length === 0) {
      for (let i = 0; i < queries.length; i++) answers.push([]);
      return answers;
    }
    const n = queries.length;
    const names: string[] = new Array<string>(n);
    const birthDates: (string | null)[] = new Array<string | null>(n);
    const countries: (string | null)[] = new Array<string | null>(n);
    const partyTypes: (PartyType | null)[] = new Array<PartyType | null>(n);
    for (let i = 0; i < n; i++) {
      const q = queries[i];
      names[i] = q.name;
      birthDates[i] = q.birth_date ?? null;
      countries[i] = q.country ?? null;
      partyTypes[i] = q.party_type ?? null;
    }
    const results = await this.fanOut(g, (gen) => ({
      op: 'names',
      gen,
      names,
      birth_dates: birthDates,
      countries,
      party_types: partyTypes,
      lists,
      threshold: opts.threshold,
      limit: opts.limit,
    }));
    for (let i = 0; i < n; i++) {
      let hits: PartyHit[] | null = null;
      for (const r of results) {
        const ends = r.ends!;
        for (let j = i === 0 ? 0 : ends[i - 1]; j < ends[i]; j++) {
          hits ??= [];
          hits.push({
            entity: g.store.view(r.ids[j]),
            score: r.sims[j],
            name: r.details![j].name,
            explanation: r.details![j].explanation,
          });
        }
      }
      answers.push(
        hits === null ? [] : hits.sort((a, b) => b.score - a.score || a.entity.id - b.entity.id).slice(0, opts.limit),
      );
    }
    return answers;
  }

  async search(q: SearchQuery): Promise<Hit[]> {
    const g = this.current;
    const lists = g.listIndices(q.lists);
    if (q.mode === 'regex') return this.regex(g, q, lists);
    if (lists.length === 0 || q.limit <= 0) return [];
    const best = new Map<number, Hit>();
    const offer = (h: Hit) => {
      const prev = best.get(h.entity.id);
      if (!prev || h.similarity > prev.similarity) best.set(h.entity.id, h);
    };
    const raw = q.q;
    collect(g, this.probes.search(raw), q.lists, true, []).forEach(offer);
    const results = await this.fanOut(g, (gen) => ({
      op: 'fuzzy',
      gen,
      q: raw,
      lists,
      limit: q.limit,
      minSimilarity: SEARCH_MIN_SIMILARITY,
    }));
    for (const r of results) {
      r.ids.forEach((id, i) => {
        if (!best.has(id) || best.get(id)!.similarity < r.sims[i])
          offer({ entity: g.store.view(id), match: 'fuzzy', similarity: r.sims[i] });
      });
    }
    return [...best.values()].sort(byRank(g)).slice(0, q.limit);
  }

  private async regex(g: Generation, q: SearchQuery, lists: number[]): Promise<Hit[]> {
    try {
      RE2JS.compile(q.q, RE2JS.CASE_INSENSITIVE);
    } catch (e) {
      throw new EngineQueryError(`invalid regular expression: ${(e as Error).message}`);
    }
    if (lists.length === 0 || q.limit <= 0) return [];
    const budgetMs = q.budgetMs ?? DEFAULT_REGEX_BUDGET_MS;
    const results = await this.fanOut(g, (gen) => ({
      op: 'regex',
      gen,
      pattern: q.q,
      lists,
      limit: q.limit,
      budgetMs,
    }));
    // A scan cut short would be a silent partial answer: refused whole instead.
    if (results.some((r) => r.timedOut)) throw new RegexTooCostly(budgetMs);
    const hits: Hit[] = [];
    for (const r of results)
      for (const id of r.ids) hits.push({ entity: g.store.view(id), match: 'regex', similarity: 1 });
    return hits.sort(byRank(g)).slice(0, q.limit);
  }

  /** Sends one query to every shard on generation `g`, which stays loaded until all answer. */
  private async fanOut(
    g: Generation,
    make: (gen: number) => Parameters<ShardPool['query']>[1],
  ): Promise<QueryResult[]> {
    g.pin();
    try {
      return await Promise.all(Array.from({ length: this.pool.size }, (_, i) => this.pool.query(i, make(g.id))));
    } finally {
      g.unpin();
    }
  }

  entities(list: string, opts: { limit: number; offset?: number }): { total: number; entities: EntityView[] } {
    return this.current.entities(list, opts.limit, opts.offset ?? 0);
  }

  delisted(lists: string[], limit: number): EntityView[] {
    return this.current.delisted(lists, limit);
  }

  stats(): EngineStats {
    return this.current.stats();
  }

  /** Raw exact-table probe by canonical key (any list, active or delisted): entity ids. */
  lookup(type: EntityType, key: string): number[] {
    return this.current.exactIds(T[type], key);
  }

  async close(): Promise<void> {
    await this.loading;
    await this.pool.close();
  }
}
