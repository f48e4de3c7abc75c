import {
  ENTITY_TYPES,
  PARTY_TYPES,
  type EntityRecord,
  type ListSnapshotInfo,
  type Metadata,
  type PartyType,
} from './model.js';
import { EntityStore } from './store.js';
import { ExactTable } from './exact-table.js';
import { Generation } from './generation.js';
import type { ShardPool } from './shards/pool.js';
import type { PartyFeatures } from './shards/protocol.js';

const TYPE_INDEX = new Map<string, number>(ENTITY_TYPES.map((t, i) => [t, i]));
const T_PARTY = ENTITY_TYPES.indexOf('party');
const T_CRYPTO = ENTITY_TYPES.indexOf('crypto_address');
/** Entities per message to a shard. */
const BATCH = 4096;
/** Batches a shard may have unacknowledged before the loader waits: bounds the backlog, keeps shards busy. */
const IN_FLIGHT = 4;
const PROGRESS_EVERY = 10_000;

class EngineLoadError extends Error {}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** What a shard needs of a party record (see `PartyFeatures`), read from its metadata (`PartyMetadata`). */
function partyFeatures(m: Metadata): PartyFeatures {
  const names: PartyFeatures['names'] = [];
  if (typeof m.name === 'string' && m.name) names.push({ value: m.name, weak: false });
  if (Array.isArray(m.aliases)) {
    for (const a of m.aliases as { name?: unknown; weak?: unknown }[])
      if (typeof a?.name === 'string' && a.name) names.push({ value: a.name, weak: a.weak === true });
  }
  const type = PARTY_TYPES.includes(m.party_type as PartyType) ? (m.party_type as PartyType) : null;
  return { names, birth_dates: strings(m.birth_dates), countries: strings(m.countries), party_type: type };
}

/** Entities on their way to one shard. */
class Outbox {
  ids: number[] = [];
  parties: number[] = [];
  features: PartyFeatures[] = [];
}

/**
 * Streams records into a new generation. The calling thread only numbers them and appends them
 * to the store's columns (published values into shared memory), and numbers their parties (a
 * `party` record's own id, another record's `metadata.party_id`, within its list): every record of
 * a party goes to the same shard, so that the shard can score the party from all its names; records
 * of no party go in batches of consecutive ids to the shards in turn. The shards read them in place
 * and do the rest in parallel: canonical keys, exact keys, candidate indexes. The exact keys are
 * then regrouped by hash: shard p builds partition p's table from every shard's keys of it, so a
 * lookup probes one table.
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
  await Promise.all(
    Array.from({ length: shards }, (_, i) =>
      pool.send(i, { t: 'begin', gen: genId, columns: store.shared, partitions: shards }),
    ),
  );

  const inFlight: Promise<unknown>[][] = Array.from({ length: shards }, () => []);
  const outboxes = Array.from({ length: shards }, () => new Outbox());
  const partyNumbers = new Map<string, number>();
  let caselessCrypto = false;
  const flush = async (shard: number): Promise<void> => {
    const out = outboxes[shard];
    if (out.ids.length === 0) return;
    outboxes[shard] = new Outbox();
    const ids = Uint32Array.from(out.ids);
    const parties = Uint32Array.from(out.parties);
    const done = pool.send(shard, { t: 'add', gen: genId, ids, parties, features: out.features }, [
      ids.buffer,
      parties.buffer,
    ]);
    // Marked handled at once: a shard's failure surfaces when the batch is awaited below or at the end.
    done.catch(() => undefined);
    const queue = inFlight[shard];
    queue.push(done);
    if (queue.length > IN_FLIGHT) await queue.shift();
  };

  /** Adds a record; returns the shard whose batch it filled, or -1. */
  const add = (r: EntityRecord): number => {
    const type = TYPE_INDEX.get(r.entity_type);
    if (type === undefined)
      throw new EngineLoadError(`unknown entity type ${JSON.stringify(r.entity_type)} in list ${r.list}`);
    let list = listIndex.get(r.list);
    if (list === undefined) {
      list = slugs.length;
      slugs.push(r.list);
      listIndex.set(r.list, list);
    }
    const id = store.add(r, list, type);
    if (id % PROGRESS_EVERY === 0 && id > 0) onProgress?.(id);
    if (type === T_CRYPTO && r.metadata.address_case === 'unknown') caselessCrypto = true;
    const partyId = type === T_PARTY ? r.value : r.metadata.party_id;
    let party = 0;
    if (typeof partyId === 'string' && partyId !== '') {
      const key = `${list}\u0000${partyId}`;
      party = partyNumbers.get(key) ?? 0;
      if (party === 0) partyNumbers.set(key, (party = partyNumbers.size + 1));
    }
    const shard = party > 0 ? party % shards : Math.floor(id / BATCH) % shards;
    const out = outboxes[shard];
    out.ids.push(id);
    out.parties.push(party);
    if (type === T_PARTY) out.features.push(partyFeatures(r.metadata));
    return out.ids.length === BATCH ? shard : -1;
  };

  if (Symbol.iterator in records) {
    for (const r of records) {
      const full = add(r);
      if (full >= 0) await flush(full);
    }
  } else {
    for await (const r of records) {
      const full = add(r);
      if (full >= 0) await flush(full);
    }
  }
  for (let i = 0; i < shards; i++) await flush(i);
  partyNumbers.clear();
  await Promise.all(inFlight.flat());
  store.seal();
  const keys = await Promise.all(Array.from({ length: shards }, (_, i) => pool.send(i, { t: 'finish', gen: genId })));
  const built = await Promise.all(
    Array.from({ length: shards }, (_, p) =>
      pool.send(p, { t: 'table', gen: genId, sets: keys.map((k) => k.keys![p]) }),
    ),
  );
  const tables = built.map((b) => new ExactTable(b.table!));
  onProgress?.(store.size);
  return new Generation(genId, lists, store, tables, onDrop, caselessCrypto);
}
