import { ENTITY_TYPES, type EntityRecord, type ListSnapshotInfo } from './model.js';
import { EntityStore } from './store.js';
import { ExactTable } from './exact-table.js';
import { Generation } from './generation.js';
import type { ShardPool } from './shards/pool.js';

const TYPE_INDEX = new Map<string, number>(ENTITY_TYPES.map((t, i) => [t, i]));
/** Entities per message to a shard. */
const BATCH = 4096;
/** Batches a shard may have unacknowledged before the loader waits: bounds the backlog, keeps shards busy. */
const IN_FLIGHT = 4;
const PROGRESS_EVERY = 10_000;

class EngineLoadError extends Error {}

/**
 * Streams records into a new generation. The calling thread only numbers them and appends them
 * to the store's columns (published values into shared memory); consecutive batches of ids go to
 * the shards in turn, which read them in place and do the rest in parallel: canonical keys, exact
 * keys, term indexes. The exact keys are then regrouped by hash: shard p builds partition p's
 * table from every shard's keys of it, so a lookup probes one table.
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
  await Promise.all(Array.from({ length: shards }, (_, i) => pool.send(i, { t: 'begin', gen: genId, columns: store.shared, partitions: shards })));

  const inFlight: Promise<unknown>[][] = Array.from({ length: shards }, () => []);
  let sent = 0;
  let batches = 0;
  const flush = async (): Promise<void> => {
    if (store.size === sent) return;
    const shard = batches++ % shards;
    const done = pool.send(shard, { t: 'add', gen: genId, from: sent, to: store.size });
    sent = store.size;
    // Marked handled at once: a shard's failure surfaces when the batch is awaited below or at the end.
    done.catch(() => undefined);
    const queue = inFlight[shard];
    queue.push(done);
    if (queue.length > IN_FLIGHT) await queue.shift();
  };

  const add = (r: EntityRecord): boolean => {
    const type = TYPE_INDEX.get(r.entity_type);
    if (type === undefined) throw new EngineLoadError(`unknown entity type ${JSON.stringify(r.entity_type)} in list ${r.list}`);
    let list = listIndex.get(r.list);
    if (list === undefined) {
      list = slugs.length;
      slugs.push(r.list);
      listIndex.set(r.list, list);
    }
    const id = store.add(r, list, type);
    if (id % PROGRESS_EVERY === 0 && id > 0) onProgress?.(id);
    return store.size - sent === BATCH;
  };

  if (Symbol.iterator in records) {
    for (const r of records) if (add(r)) await flush();
  } else {
    for await (const r of records) if (add(r)) await flush();
  }
  await flush();
  await Promise.all(inFlight.flat());
  store.seal();
  const keys = await Promise.all(Array.from({ length: shards }, (_, i) => pool.send(i, { t: 'finish', gen: genId })));
  const built = await Promise.all(Array.from({ length: shards }, (_, p) => pool.send(p, { t: 'table', gen: genId, sets: keys.map((k) => k.keys![p]) })));
  const tables = built.map((b) => new ExactTable(b.table!));
  onProgress?.(store.size);
  return new Generation(genId, lists, store, tables, onDrop);
}
