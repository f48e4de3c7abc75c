import roaring from 'roaring';
import { ENTITY_TYPES, type ListSnapshotInfo, type MatchKind } from './model.js';
import { EntityStore, type EntityView } from './store.js';
import { ExactTable } from './exact-table.js';
import { hashKey } from './hash.js';

const { RoaringBitmap32 } = roaring;
type Bitmap = InstanceType<typeof RoaringBitmap32>;

export interface Hit {
  entity: EntityView;
  match: MatchKind;
  similarity: number;
}

export interface ListStats {
  total: number;
  by_entity_type: Record<string, number>;
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
  readonly tables: ExactTable[];
  readonly byList: Bitmap[];
  readonly byType: Bitmap[];
  readonly active: Bitmap;
  readonly delistedSet: Bitmap;
  private readonly activeByList: Bitmap[];
  /** Delisted ids, newest removal first. */
  private readonly delistedOrder: Uint32Array;
  private readonly listIndex: Map<string, number>;
  private readonly statsCache: EngineStats;
  private readonly h = new Uint32Array(2);
  private pins = 0;
  private retired = false;

  constructor(
    readonly id: number,
    readonly lists: ListSnapshotInfo[],
    readonly store: EntityStore,
    tables: ExactTable[],
    private readonly onDrop: (g: Generation) => void,
  ) {
    this.tables = tables;
    const slugs = store.listSlugs;
    this.listIndex = new Map(slugs.map((s, i) => [s, i]));
    const n = store.size;
    this.byList = bitmapsByValue((id) => store.listOf(id), n, slugs.length);
    this.byType = bitmapsByValue((id) => store.typeOf(id), n, ENTITY_TYPES.length);
    [this.active, this.delistedSet] = bitmapsByValue((id) => (store.isDelisted(id) ? 1 : 0), n, 2);
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
      listStats[slug] = { total: this.activeByList[l].size, by_entity_type: by };
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

  /**
   * Ids whose canonical key of the given entity type equals `key`, ascending, from the
   * shard-built tables on this thread. Entities reach the shards by id range, so a key may be in
   * any shard's table: each is probed (one hash, one slot probe each on a miss).
   */
  exactIds(typeIdx: number, key: string, out: number[]): void {
    const h = this.h;
    hashKey(key, typeIdx + 1, h);
    const first = out.length;
    let tables = 0;
    for (const table of this.tables) {
      const k = table.find(h[0], h[1], key, typeIdx);
      if (k < 0) continue;
      tables++;
      const n = table.count(k);
      for (let i = 0; i < n; i++) out.push(table.id(k, i));
    }
    if (tables > 1) {
      const mine = out.splice(first).sort((a, b) => a - b);
      for (const id of mine) out.push(id);
    }
  }

  private readonly scratch: number[] = [];

  /** Appends the exact-key hits of the given lists to `out`, skipping entities already there. */
  collect(typeIdx: number, key: string, match: MatchKind, lists: string[], includeDelisted: boolean, out: Hit[]): void {
    const ids = this.scratch;
    ids.length = 0;
    this.exactIds(typeIdx, key, ids);
    const store = this.store;
    for (const id of ids) {
      if (!includeDelisted && store.isDelisted(id)) continue;
      if (!lists.includes(store.listSlugs[store.listOf(id)])) continue;
      if (out.some((h) => h.entity.id === id)) continue;
      out.push({ entity: store.view(id), match, similarity: 1 });
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
