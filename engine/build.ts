import { ENTITY_TYPES, type EntityRecord, type ListSnapshotInfo } from './model.js';
import { canonicalKey } from './normalize/index.js';
import { EntityStore } from './store.js';
import { ExactTable } from './exact-table.js';
import { Generation } from './generation.js';
import { hashKey, shardOf } from './hash.js';
import type { ShardPool } from './shards/pool.js';
import { FLAG_DELISTED, FLAG_HASHED, type AddBatch } from './shards/protocol.js';

const TYPE_INDEX = new Map<string, number>(ENTITY_TYPES.map((t, i) => [t, i]));
const T_NAME = ENTITY_TYPES.indexOf('name');
const BATCH = 2048;
/** Batches a shard may have unacknowledged before the loader waits: bounds memory, keeps shards busy. */
const IN_FLIGHT = 4;
const PROGRESS_EVERY = 10_000;

export class EngineLoadError extends Error {}

class ShardBatcher {
  private ids = new Uint32Array(BATCH);
  private types = new Uint8Array(BATCH);
  private lists = new Uint16Array(BATCH);
  private flags = new Uint8Array(BATCH);
  private hashes = new Uint32Array(2 * BATCH);
  private values: string[] = [];
  private keys: (string | null)[] = [];
  private n = 0;
  private readonly inFlight: Promise<unknown>[] = [];

  constructor(
    private readonly pool: ShardPool,
    private readonly shard: number,
    private readonly gen: number,
  ) {}

  /** Returns true when the batch is full and must be sent. */
  push(id: number, type: number, list: number, flags: number, hi: number, lo: number, value: string, key: string | null): boolean {
    const i = this.n++;
    this.ids[i] = id;
    this.types[i] = type;
    this.lists[i] = list;
    this.flags[i] = flags;
    this.hashes[2 * i] = hi;
    this.hashes[2 * i + 1] = lo;
    this.values.push(value);
    this.keys.push(key === value ? null : key);
    return this.n === BATCH;
  }

  async send(): Promise<void> {
    if (this.n === 0) return;
    const n = this.n;
    const batch: AddBatch = {
      ids: this.ids.slice(0, n),
      types: this.types.slice(0, n),
      lists: this.lists.slice(0, n),
      flags: this.flags.slice(0, n),
      hashes: this.hashes.slice(0, 2 * n),
      values: this.values,
      keys: this.keys,
    };
    this.values = [];
    this.keys = [];
    this.n = 0;
    const transfer = [batch.ids.buffer, batch.types.buffer, batch.lists.buffer, batch.flags.buffer, batch.hashes.buffer] as ArrayBuffer[];
    const sent = this.pool.send(this.shard, { t: 'add', gen: this.gen, batch }, transfer);
    // Marked handled at once: a shard's failure surfaces when the batch is awaited below or in drain().
    sent.catch(() => undefined);
    this.inFlight.push(sent);
    if (this.inFlight.length > IN_FLIGHT) await this.inFlight.shift();
  }

  async drain(): Promise<void> {
    await this.send();
    await Promise.all(this.inFlight.splice(0));
  }
}

/**
 * Streams records into a new generation: numbers them, keeps their columns here, normalizes the
 * exact-matched kinds (names are normalized by the shards, in parallel) and routes each entity to
 * the shard owning its key's hash (names and keyless values round-robin by id).
 */
export async function buildGeneration(
  pool: ShardPool,
  genId: number,
  lists: ListSnapshotInfo[],
  records: AsyncIterable<EntityRecord> | Iterable<EntityRecord>,
  onProgress: ((loaded: number) => void) | undefined,
  onDrop: (g: Generation) => void,
): Promise<Generation> {
  const shards = pool.size;
  const slugs = lists.map((l) => l.slug);
  const listIndex = new Map(slugs.map((s, i) => [s, i]));
  const store = new EntityStore(slugs);
  const batchers = Array.from({ length: shards }, (_, i) => new ShardBatcher(pool, i, genId));
  const h = new Uint32Array(2);
  await Promise.all(batchers.map((_, i) => pool.send(i, { t: 'begin', gen: genId })));

  const add = (r: EntityRecord): ShardBatcher | null => {
    const type = TYPE_INDEX.get(r.entity_type);
    if (type === undefined) throw new EngineLoadError(`unknown entity type ${JSON.stringify(r.entity_type)} in list ${r.list}`);
    let list = listIndex.get(r.list);
    if (list === undefined) {
      list = slugs.length;
      slugs.push(r.list);
      listIndex.set(r.list, list);
    }
    const key = type === T_NAME ? null : canonicalKey(r.entity_type, r.value);
    const id = store.add(r, list, type, key);
    let flags = r.removed_at !== null ? FLAG_DELISTED : 0;
    let shard: number;
    if (key !== null) {
      hashKey(key, type + 1, h);
      flags |= FLAG_HASHED;
      shard = shardOf(h[1], shards);
    } else {
      h[0] = h[1] = 0;
      shard = id % shards;
    }
    if (id % PROGRESS_EVERY === 0 && id > 0) onProgress?.(id);
    const b = batchers[shard];
    return b.push(id, type, list, flags, h[0], h[1], r.value, key) ? b : null;
  };

  if (Symbol.iterator in records) {
    for (const r of records) {
      const full = add(r);
      if (full) await full.send();
    }
  } else {
    for await (const r of records) {
      const full = add(r);
      if (full) await full.send();
    }
  }
  await Promise.all(batchers.map((b) => b.drain()));
  store.seal();
  const built = await Promise.all(batchers.map((_, i) => pool.send(i, { t: 'finish', gen: genId })));
  const tables = built.map((b) => new ExactTable(b.table!));
  onProgress?.(store.size);
  return new Generation(genId, lists, store, tables, onDrop);
}
