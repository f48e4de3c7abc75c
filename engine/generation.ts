import roaring from 'roaring';
import { ENTITY_TYPES, type ListSnapshotInfo, type MatchKind } from './model.js';
import { EntityStore, type EntityView } from './store.js';
import { ExactTable, partitionOf } from './exact-table.js';
import { KeyBytes } from './key-bytes.js';

const { RoaringBitmap32 } = roaring;
type Bitmap = InstanceType<typeof RoaringBitmap32>;

/** A listed entity a screening or search met: how, and (1 for every rule-based match) how similar. */
export interface Hit {
  entity: EntityView;
  match: MatchKind;
  similarity: number;
}

interface ListStats {
  total: number;
  by_entity_type: Record<string, number>;
  /** Values removed from the list and not listed again (current delistings). */
  delisted: number;
}

export interface EngineStats {
  lists: Record<string, ListStats>;
  delisted: number;
  countries: number;
}

const T_COUNTRY = ENTITY_TYPES.indexOf('country');

/** Ids of each value of a small-valued column, as roaring bitmaps built in one pass. */
function bitmapsByValue(column: (id: number) => number, size: number, values: number): Bitmap[] {
  const counts = new Uint32Array(values);
  for (let id = 0; id < size; id++) counts[column(id)]++;
  const ids = Array.from(counts, (c) => new Uint32Array(c));
  const fill = new Uint32Array(values);
  for (let id = 0; id < size; id++) {
    const v = column(id);
    ids[v][fill[v]++] = id;
  }
  return ids.map((a) => new RoaringBitmap32(a));
}

/**
 * One immutable, fully indexed generation: the entity columns, the exact tables (built by the
 * shards in shared memory, probed here), the roaring bitmaps and the precomputed stats. Queries
 * pin the generation they started on; the engine retires it after a swap and drops the shards'
 * part once the last pinned query is done.
 */
export class Generation {
  /** Exact tables by partition (see `partitionOf`). */
  readonly tables: ExactTable[];
  readonly byList: Bitmap[];
  readonly byType: Bitmap[];
  readonly active: Bitmap;
  /** Current delistings: removed records whose key was not listed again (past periods excluded). */
  readonly delistedSet: Bitmap;
  private readonly activeByList: Bitmap[];
  /** Delisted ids, newest removal first. */
  private readonly delistedOrder: Uint32Array;
  private readonly listIndex: Map<string, number>;
  private readonly statsCache: EngineStats;
  /** The key being looked up, as UTF-8 (one buffer for every lookup on this thread). */
  private readonly key = new KeyBytes();
  /** Slot of the key `find` found last. */
  private slot = -1;
  private pins = 0;
  private retired = false;

  constructor(
    readonly id: number,
    readonly lists: ListSnapshotInfo[],
    readonly store: EntityStore,
    tables: ExactTable[],
    private readonly onDrop: (g: Generation) => void,
    /** Some crypto addresses are listed in lower case only, their case unknown (see ProbeList.screening). */
    readonly caselessCrypto = false,
  ) {
    this.tables = tables;
    const slugs = store.listSlugs;
    this.listIndex = new Map(slugs.map((s, i) => [s, i]));
    const n = store.size;
    this.byList = bitmapsByValue((id) => store.listOf(id), n, slugs.length);
    this.byType = bitmapsByValue((id) => store.typeOf(id), n, ENTITY_TYPES.length);
    [this.active, this.delistedSet] = bitmapsByValue(
      (id) => (store.isDelisted(id) ? (store.isSuperseded(id) ? 2 : 1) : 0),
      n,
      3,
    );
    this.activeByList = this.byList.map((b) => RoaringBitmap32.and(b, this.active));

    const order = this.delistedSet.toUint32Array();
    const when = new Float64Array(n);
    for (const id of order) when[id] = Date.parse(store.removed(id)!) || 0;
    order.sort((a, b) => when[b] - when[a] || a - b);
    this.delistedOrder = order;

    const listStats: Record<string, ListStats> = {};
    slugs.forEach((slug, l) => {
      const by: Record<string, number> = {};
      ENTITY_TYPES.forEach((t, ti) => {
        const c = this.activeByList[l].andCardinality(this.byType[ti]);
        if (c > 0) by[t] = c;
      });
      listStats[slug] = {
        total: this.activeByList[l].size,
        by_entity_type: by,
        delisted: this.byList[l].andCardinality(this.delistedSet),
      };
    });
    this.statsCache = {
      lists: listStats,
      delisted: this.delistedSet.size,
      countries: this.byType[T_COUNTRY].andCardinality(this.active),
    };
  }

  get size(): number {
    return this.store.size;
  }

  listIdx(slug: string): number | undefined {
    return this.listIndex.get(slug);
  }

  listIndices(slugs: string[]): number[] {
    const out: number[] = [];
    for (const s of slugs) {
      const i = this.listIndex.get(s);
      if (i !== undefined) out.push(i);
    }
    return out;
  }

  /** Table and slot of (entity type, canonical key): the key's hash names the one partition that can hold it. */
  private find(typeIdx: number, key: string): ExactTable | null {
    const bytes = this.key;
    bytes.set(key, typeIdx + 1);
    const hi = bytes.hi;
    const table = this.tables[partitionOf(hi, this.tables.length)];
    this.slot = table.find(hi, bytes.lo, bytes, typeIdx);
    return this.slot < 0 ? null : table;
  }

  /** Ids whose canonical key of the given entity type equals `key`, ascending, from the shard-built tables. */
  exactIds(typeIdx: number, key: string): number[] {
    const table = this.find(typeIdx, key);
    if (table === null) return [];
    const slot = this.slot;
    const n = table.count(slot);
    // A fresh literal is cheaper than growing a reused array (truncating drops its backing store).
    if (n === 1) return [table.id(slot, 0)];
    const ids = new Array<number>(n);
    for (let i = 0; i < n; i++) ids[i] = table.id(slot, i);
    return ids;
  }

  /**
   * Appends the exact-key hits of the given lists to `out`: active entities, with
   * `includeDelisted` also current delistings (the search), or with `asOf` (ms) the entities
   * listed at that time, whichever listing period they belong to. An entity has one key, so
   * probes of distinct keys never meet the same entity twice (the caller drops repeated probes).
   */
  collect(
    typeIdx: number,
    key: string,
    match: MatchKind,
    lists: string[],
    includeDelisted: boolean,
    out: Hit[],
    asOf?: number,
  ): void {
    const table = this.find(typeIdx, key);
    if (table === null) return;
    const slot = this.slot;
    const store = this.store;
    const n = table.count(slot);
    for (let i = 0; i < n; i++) {
      const id = table.id(slot, i);
      if (asOf !== undefined) {
        if (!store.listedAt(id, asOf)) continue;
      } else if (store.isDelisted(id) && (!includeDelisted || store.isSuperseded(id))) continue;
      if (!lists.includes(store.listSlugs[store.listOf(id)])) continue;
      // Most keys are their one entity's published value: the key string is then the value, undecoded.
      const value = table.isValue(slot) ? key : undefined;
      out.push({ entity: store.view(id, value), match, similarity: 1 });
    }
  }

  entities(list: string, limit: number, offset: number): { total: number; entities: EntityView[] } {
    const l = this.listIndex.get(list);
    if (l === undefined) return { total: 0, entities: [] };
    const bm = this.activeByList[l];
    const ids = limit > 0 ? bm.rangeUint32Array(offset, limit) : new Uint32Array(0);
    return { total: bm.size, entities: Array.from(ids, (id) => this.store.view(id)) };
  }

  delisted(lists: string[], limit: number): EntityView[] {
    const wanted = new Uint8Array(this.store.listSlugs.length);
    for (const l of this.listIndices(lists)) wanted[l] = 1;
    const out: EntityView[] = [];
    for (const id of this.delistedOrder) {
      if (out.length >= limit) break;
      if (wanted[this.store.listOf(id)]) out.push(this.store.view(id));
    }
    return out;
  }

  stats(): EngineStats {
    return structuredClone(this.statsCache);
  }

  isDelisted(id: number): boolean {
    return this.store.isDelisted(id);
  }

  listedAt(id: number, at: number): boolean {
    return this.store.listedAt(id, at);
  }

  pin(): void {
    this.pins++;
  }

  unpin(): void {
    if (--this.pins === 0 && this.retired) this.onDrop(this);
  }

  retire(): void {
    this.retired = true;
    if (this.pins === 0) this.onDrop(this);
  }
}
