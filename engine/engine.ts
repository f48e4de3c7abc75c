import { availableParallelism } from 'node:os';
import { RE2JS } from 're2js';
import { ENTITY_TYPES, type EntityRecord, type EntityType, type ListSnapshotInfo, type MatchKind } from './model.js';
import { cryptoKey, domainAncestors, normalizeCountry, normalizeEmail, normalizeGovernmentId, normalizeWebsite, regionsOf } from './normalize/index.js';
import { FUZZY_ID_THRESHOLD } from './similarity.js';
import { Generation, type EngineStats, type Hit } from './generation.js';
import type { EntityView } from './store.js';
import { buildGeneration } from './build.js';
import { ShardPool } from './shards/pool.js';
import type { QueryResult } from './shards/protocol.js';

export type { EntityView } from './store.js';
export type { EngineStats, ListStats } from './generation.js';
export { EngineLoadError } from './build.js';

export type ScreenKind = 'crypto' | 'email' | 'website' | 'id' | 'country';
export const SCREEN_KINDS: readonly ScreenKind[] = ['crypto', 'email', 'website', 'id', 'country'];

/** `similarity` is 1 for every rule-based match (exact, subdomain, domain, region, regex). */
export interface ScreenHit {
  entity: EntityView;
  match: MatchKind;
  similarity: number;
}
export type SearchHit = ScreenHit;

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
  /** Names verified per shard and fuzzy query (government IDs: 32). */
  candidates?: number;
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

export interface SearchQuery {
  q: string;
  mode: 'fuzzy' | 'regex';
  lists: string[];
  limit: number;
  budgetMs?: number;
}

/** A query the engine cannot run as given (an invalid regular expression). */
export class EngineQueryError extends Error {}

/**
 * Fuzzy search results below this similarity are dropped: at 0.6 a name still shares most of its
 * letters in order with the query (one typo in a short name, a missing middle name), while
 * unrelated names sharing one token (`ACME TRADING LLC` vs `GLOBAL TRADING LLC`) fall below it.
 */
export const SEARCH_MIN_SIMILARITY = 0.6;
/** Regex budget when the caller gives none. */
export const DEFAULT_REGEX_BUDGET_MS = 200;
/**
 * The term index ranks documents sharing more (and rarer) query terms first, a query token it
 * does not know standing for its one-edit neighbours; past the first dozen or so per shard the
 * verification (our similarity) costs more than it finds (measured on synthetic typo queries over
 * 36 k to 1.8 M names a shard: 16 candidates find within 0.3 points of what 32 find).
 */
const DEFAULT_CANDIDATES = 16;
/** Government IDs verified per shard and query: a screening must not miss a near match. */
const ID_CANDIDATES = 32;

const T = Object.fromEntries(ENTITY_TYPES.map((t, i) => [t, i])) as Record<EntityType, number>;

function byRank(g: Generation) {
  return (a: Hit, b: Hit) =>
    Number(g.isDelisted(a.entity.id)) - Number(g.isDelisted(b.entity.id)) || b.similarity - a.similarity || a.entity.id - b.entity.id;
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

  private constructor(
    private readonly pool: ShardPool,
    private readonly opts: EngineOptions,
  ) {}

  static async create(opts: EngineOptions = {}): Promise<Engine> {
    const shards = Math.max(1, opts.shards ?? availableParallelism());
    const pool = await ShardPool.start(shards, {
      tokenize: opts.tokenize ?? 'strict',
      candidates: opts.candidates ?? DEFAULT_CANDIDATES,
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
      await Promise.all(Array.from({ length: this.pool.size }, (_, i) => this.pool.send(i, { t: 'drop', gen: id }))).catch(() => undefined);
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

  /** Synchronous answer for the exact-only kinds; null for `id`, which needs the shards. */
  screenExact(q: ScreenQuery): ScreenHit[] | null {
    const g = this.current;
    const out: Hit[] = [];
    switch (q.kind) {
      case 'crypto': {
        // The key alone: chain detection (base58 checksums) would cost 5-15 µs here for nothing.
        const key = cryptoKey(q.value);
        if (key) g.collect(T.crypto_address, key, 'exact', q.lists, false, out, q.asOf);
        return out;
      }
      case 'email': {
        const e = normalizeEmail(q.value);
        if (!e) return out;
        g.collect(T.email, e.key, 'exact', q.lists, false, out, q.asOf);
        g.collect(T.email_domain, e.domain, 'domain', q.lists, false, out, q.asOf);
        for (const d of domainAncestors(e.domain)) g.collect(T.email_domain, d, 'domain', q.lists, false, out, q.asOf);
        return out;
      }
      case 'website': {
        const host = normalizeWebsite(q.value);
        if (!host) return out;
        g.collect(T.website, host, 'exact', q.lists, false, out, q.asOf);
        for (const d of domainAncestors(host)) g.collect(T.website, d, 'subdomain', q.lists, false, out, q.asOf);
        return out;
      }
      case 'country': {
        const c = normalizeCountry(q.value);
        if (!c) return out;
        g.collect(T.country, c.code, 'exact', q.lists, false, out, q.asOf);
        for (const r of regionsOf(c.code)) g.collect(T.country, r.code, 'region', q.lists, false, out, q.asOf);
        if (c.parent) g.collect(T.country, c.parent, 'region', q.lists, false, out, q.asOf);
        return out;
      }
      case 'id':
        return null;
    }
  }

  /** Exact kinds resolve without an async frame (the hot path); `id` consults the shards. */
  screen(q: ScreenQuery): Promise<ScreenHit[]> {
    try {
      const exact = this.screenExact(q);
      return exact ? Promise.resolve(exact) : this.screenId(q);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private async screenId(q: ScreenQuery): Promise<ScreenHit[]> {
    const key = normalizeGovernmentId(q.value);
    if (!key) return [];
    const g = this.current;
    const out: Hit[] = [];
    const asOf = q.asOf;
    g.collect(T.government_id, key, 'exact', q.lists, false, out, asOf);
    const lists = g.listIndices(q.lists);
    if (lists.length === 0) return out;
    const history = asOf !== undefined;
    const results = await this.fanOut(g, (gen) => ({ op: 'id', gen, key, lists, threshold: FUZZY_ID_THRESHOLD, history }));
    const fuzzy: Hit[] = [];
    for (const r of results) {
      r.ids.forEach((id, i) => {
        if (history && !g.listedAt(id, asOf)) return;
        if (!out.some((h) => h.entity.id === id)) fuzzy.push({ entity: g.store.view(id), match: 'fuzzy', similarity: r.sims[i] });
      });
    }
    fuzzy.sort(byRank(g));
    return out.concat(fuzzy);
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    const g = this.current;
    const lists = g.listIndices(q.lists);
    if (q.mode === 'regex') return this.regex(g, q, lists);
    if (lists.length === 0 || q.limit <= 0) return [];
    const best = new Map<number, Hit>();
    const offer = (h: Hit) => {
      const prev = best.get(h.entity.id);
      if (!prev || h.similarity > prev.similarity) best.set(h.entity.id, h);
    };
    const exact: Hit[] = [];
    const raw = q.q;
    const crypto = cryptoKey(raw);
    if (crypto) g.collect(T.crypto_address, crypto, 'exact', q.lists, true, exact);
    const email = normalizeEmail(raw);
    if (email) g.collect(T.email, email.key, 'exact', q.lists, true, exact);
    const host = normalizeWebsite(raw);
    if (host) {
      g.collect(T.website, host, 'exact', q.lists, true, exact);
      g.collect(T.email_domain, host, 'exact', q.lists, true, exact);
    }
    const country = normalizeCountry(raw);
    if (country) g.collect(T.country, country.code, 'exact', q.lists, true, exact);
    const id = normalizeGovernmentId(raw);
    if (id) g.collect(T.government_id, id, 'exact', q.lists, true, exact);
    exact.forEach(offer);
    const results = await this.fanOut(g, (gen) => ({ op: 'fuzzy', gen, q: raw, lists, limit: q.limit, minSimilarity: SEARCH_MIN_SIMILARITY }));
    for (const r of results) {
      r.ids.forEach((id, i) => {
        if (!best.has(id) || best.get(id)!.similarity < r.sims[i]) offer({ entity: g.store.view(id), match: 'fuzzy', similarity: r.sims[i] });
      });
    }
    return [...best.values()].sort(byRank(g)).slice(0, q.limit);
  }

  private async regex(g: Generation, q: SearchQuery, lists: number[]): Promise<SearchHit[]> {
    try {
      RE2JS.compile(q.q, RE2JS.CASE_INSENSITIVE);
    } catch (e) {
      throw new EngineQueryError(`invalid regular expression: ${(e as Error).message}`);
    }
    if (lists.length === 0 || q.limit <= 0) return [];
    const deadline = Date.now() + (q.budgetMs ?? DEFAULT_REGEX_BUDGET_MS);
    const results = await this.fanOut(g, (gen) => ({ op: 'regex', gen, pattern: q.q, lists, limit: q.limit, deadline }));
    const hits: Hit[] = [];
    for (const r of results) for (const id of r.ids) hits.push({ entity: g.store.view(id), match: 'regex', similarity: 1 });
    return hits.sort(byRank(g)).slice(0, q.limit);
  }

  /** Sends one query to every shard on generation `g`, which stays loaded until all answer. */
  private async fanOut(g: Generation, make: (gen: number) => Parameters<ShardPool['query']>[1]): Promise<QueryResult[]> {
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
