import { createHash, hash } from 'node:crypto';
import { canonicalKey } from '../engine/normalize/index.js';
import type { EntityRecord, EntityType } from '../engine/model.js';

/**
 * Listing history: what changed between a list's committed version and a new one, and the
 * listing periods kept for screening as of a past date.
 *
 * Identity is (entity_type, canonical key), so a re-cased or re-formatted value is the same entity
 * and several records sharing a key (two parties with the same name, an address that is both a
 * depositor and a relayer) move together: one change per key, carrying the key's first record.
 *
 * - A key that appears is `listed`, or `relisted` when the history holds an earlier period of it.
 * - A key that disappears is `delisted`: its records become an ended listing period (`removed_at`).
 * - The very first version of a list is the baseline: it emits no changes (nothing was "added" to
 *   a list we had never seen) and its entities get `listed_at` = the ingestion time.
 * - `listed_at` is the start of the current listing period: kept across versions while the key
 *   stays listed, and the relisting time when a removed key comes back.
 * - Every ended period stays in the history (`superseded` once its key was listed or removed
 *   again later), so screening as of a past date sees the lists as they stood. The history is
 *   compacted at each version: periods that ended before the retention cut-off go, and at most
 *   `maxPeriods` ended periods stay (the oldest go first). `droppedUntil` is the latest end of a
 *   dropped period: screening as of a time before it could miss one, so it is refused.
 * All timestamps are the ingestion time `at` of the version, the only time we can vouch for.
 *
 * The diff streams: the new version's records are read once, the committed files twice each, in
 * batches (a promise per batch, not per record), and only keys are held in memory, so a version of
 * millions of rows costs memory per key, not per record. Keys the producer computed already (an
 * upload's rows were keyed when they were checked) are not computed again, and neither are the
 * committed version's: the diff writes each active record's key beside it (`activeKeys`), so the
 * next diff reads the keys instead of parsing and normalizing the records, and parses again only
 * the records that leave.
 */

type ListChangeKind = 'listed' | 'delisted' | 'relisted';

export type ListChange = {
  /**
   * Position in the service's single ingest sequence across lists: the changes feed pages by it.
   * Assigned in commit order; a sequence number is never reused, one may go unused after a crash.
   */
  seq: number;
  /** Deterministic: the same change of the same version always gets the same id (see `changeId`). */
  change_id: string;
  list: string;
  /** The customer of a private list; 0 for a public list. */
  owner: number;
  version: string;
  kind: ListChangeKind;
  /** Ingestion time of the version that made the change (ISO 8601). */
  at: string;
  /** listed/relisted: the new record (listed_at = at); delisted: the last record (removed_at = at). */
  record: EntityRecord;
};

/** Consumer of listing changes (the audit store's `list_changes`, the webhook outbox). */
export interface ChangeSink {
  write(changes: ListChange[]): Promise<void>;
}

export function entityKey(r: Pick<EntityRecord, 'entity_type' | 'value'>): string {
  return keyOf(r.entity_type, canonicalKey(r.entity_type, r.value) ?? r.value.trim());
}

/** The identity of a value of `type` whose canonical key is `canonical` (what entityKey gives). */
export function keyOf(type: EntityType, canonical: string): string {
  return `${type}\u0000${canonical}`;
}

/**
 * `chg_` + 32 hex digits of SHA-256 over the list, the version with its ingestion time (versions
 * are content hashes, so a list returning to an earlier content repeats one), the kind and the
 * entity's identity. A re-run of the same commit gives the same ids.
 */
export function changeId(list: string, version: string, at: string, kind: ListChangeKind, key: string): string {
  return `chg_${hash('sha256', JSON.stringify([list, version, at, kind, key]), 'hex').slice(0, 32)}`;
}

/**
 * Records in the order they come, a batch at a time, with their identities (`entityKey`) when
 * the producer has them already (an upload's rows were keyed when they were checked).
 */
export interface RecordBatch {
  records: EntityRecord[];
  keys?: readonly string[];
}

export type RecordBatches = AsyncIterable<RecordBatch> | Iterable<RecordBatch>;

/** An active record's identity and the start of its listing period, as the diff wrote them. */
export type ActiveKey = [key: string, listedAt: string | null];

/** The committed version the diff compares with. */
export interface PreviousVersion {
  /** Its active records in file order; with `only`, just those whose index (from 0) `only` accepts. */
  active: (only?: (index: number) => boolean) => RecordBatches;
  /** Its active records' keys in the same order, when they were kept (see `DiffInput.activeKeys`). */
  activeKeys?: () => AsyncIterable<ActiveKey[]> | Iterable<ActiveKey[]>;
  /** Its ended periods. */
  ended: () => RecordBatches;
}

/**
 * Where the diff writes: synchronously, a line at a time; `ready` (awaited once per input batch)
 * holds it back while the output is behind.
 */
interface Out<T> {
  write(x: T): void;
  ready?(): Promise<void>;
}

export interface DiffInput {
  list: string;
  owner: number;
  version: string;
  at: string;
  /** The new version's records, read once. */
  next: RecordBatches;
  /** The committed version, each part readable twice; null for the first version. */
  previous: PreviousVersion | null;
  /** Sequence number of the first change. */
  firstSeq: number;
  /** Ended periods that ended before this time (ISO 8601) are dropped. */
  cutoff: string;
  /** Ended periods kept at most (the oldest dropped first; this version's own delistings always stay). */
  maxPeriods: number;
  /** The new version's files: active records, then ended periods oldest first, then the changes. */
  active: Out<EntityRecord>;
  /** Each active record's key, in the order of `active` (what the next diff reads as `PreviousVersion.activeKeys`). */
  activeKeys?: Out<ActiveKey>;
  ended: Out<EntityRecord>;
  changes: Out<ListChange>;
}

export interface DiffResult {
  total: number;
  /** Ended periods written (records). */
  periods: number;
  listed: number;
  delisted: number;
  relisted: number;
  /** Sequence number of the last change written (firstSeq - 1 when none). */
  lastSeq: number;
  /** The latest end of a period compaction dropped, or null. */
  droppedUntil: string | null;
}

/** A record of this list with the given period (fields in EntityRecord's order). */
function period(
  r: EntityRecord,
  list: string,
  listedAt: string | null,
  removedAt: string | null,
  superseded = false,
): EntityRecord {
  const out: EntityRecord = {
    list,
    entity_type: r.entity_type,
    value: r.value,
    metadata: r.metadata,
    source_url: r.source_url,
    listed_at: listedAt,
    removed_at: removedAt,
  };
  if (superseded) out.superseded = true;
  return out;
}

/** Each record of `batches` with its identity; `ready` runs after each batch. */
async function eachKeyed(
  batches: RecordBatches,
  ready: () => Promise<void>,
  fn: (r: EntityRecord, key: string) => void,
): Promise<void> {
  for await (const { records, keys } of batches) {
    for (let i = 0; i < records.length; i++) fn(records[i], keys?.[i] ?? entityKey(records[i]));
    await ready();
  }
}

async function eachRecord(
  batches: RecordBatches,
  ready: () => Promise<void>,
  fn: (r: EntityRecord) => void,
): Promise<void> {
  for await (const { records } of batches) {
    for (const r of records) fn(r);
    await ready();
  }
}

/**
 * The committed version's keys, each once, numbered in order of first appearance ("slots"): per
 * slot the start of its listing period and its records, in arrays rather than an object per key
 * (a version of millions of keys keeps the heap, and its collections, small).
 */
class ListedKeys {
  private readonly slots = new Map<string, number>();
  readonly keys: string[] = [];
  readonly listedAt: (string | null)[] = [];
  readonly records: number[] = [];
  /** Per slot: 1 once the new version holds the key. */
  kept = new Uint8Array(0);
  /** Per slot: 1 once its `delisted` change is out. */
  delisted = new Uint8Array(0);
  /** The last listing time seen, so that equal times share one string. */
  private lastAt: string | null = null;

  add(key: string, listedAt: string | null): number {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.keys.length;
      this.slots.set(key, slot);
      this.keys.push(key);
      if (listedAt !== this.lastAt && listedAt !== null) this.lastAt = listedAt;
      this.listedAt.push(listedAt === null ? null : this.lastAt);
      this.records.push(0);
    }
    this.records[slot]++;
    return slot;
  }

  slot(key: string): number | undefined {
    return this.slots.get(key);
  }

  seal(): void {
    this.kept = new Uint8Array(this.keys.length);
    this.delisted = new Uint8Array(this.keys.length);
  }
}

export async function diffVersion(input: DiffInput): Promise<DiffResult> {
  const { list, owner, version, at, previous } = input;
  let seq = input.firstSeq;
  const counts = { listed: 0, delisted: 0, relisted: 0 };
  const emit = (kind: ListChangeKind, key: string, record: EntityRecord) => {
    counts[kind]++;
    input.changes.write({
      seq: seq++,
      change_id: changeId(list, version, at, kind, key),
      list,
      owner,
      version,
      kind,
      at,
      record,
    });
  };
  const outs = [input.active, input.activeKeys, input.ended, input.changes];
  const ready = async () => {
    for (const o of outs) await o?.ready?.();
  };
  const none = () => Promise.resolve();

  // The committed version's keys, in file order (read again below without normalizing twice).
  const was = new ListedKeys();
  const activeSlots: number[] = [];
  const endedKeys = new Set<string>();
  const endedOrder: string[] = [];
  let endedKept = 0;
  if (previous?.activeKeys) {
    for await (const keys of previous.activeKeys())
      for (const [k, listedAt] of keys) activeSlots.push(was.add(k, listedAt));
  } else if (previous) {
    await eachKeyed(previous.active(), none, (r, k) => activeSlots.push(was.add(k, r.listed_at)));
  }
  if (previous) {
    await eachKeyed(previous.ended(), none, (r, k) => {
      endedOrder.push(k);
      endedKeys.add(k);
      if (r.removed_at === null || r.removed_at >= input.cutoff) endedKept++;
    });
  }
  was.seal();

  let total = 0;
  const write = (r: EntityRecord, key: string, listedAt: string): void => {
    input.active.write(period(r, list, listedAt, null));
    input.activeKeys?.write([key, listedAt]);
  };
  // Keys of the new version the committed one does not hold (those it holds are `was.kept`).
  const added = new Set<string>();
  await eachKeyed(input.next, ready, (r, k) => {
    const prior = was.slot(k);
    total++;
    if (prior !== undefined) {
      write(r, k, was.listedAt[prior] ?? at);
      was.kept[prior] = 1;
      return;
    }
    write(r, k, at);
    if (added.has(k)) return;
    added.add(k);
    if (previous) emit(endedKeys.has(k) ? 'relisted' : 'listed', k, period(r, list, at, null));
  });
  const inNext = (k: string) => {
    const slot = was.slot(k);
    return slot === undefined ? added.has(k) : was.kept[slot] === 1;
  };

  // Keys leaving now (in the committed version, not in the new one); their periods end with this version.
  let leavingRecords = 0;
  for (let slot = 0; slot < was.keys.length; slot++) if (was.kept[slot] === 0) leavingRecords += was.records[slot];

  // Earlier periods, oldest end first: past the cut-off or over the cap they go.
  let excess = Math.max(0, endedKept + leavingRecords - input.maxPeriods);
  let droppedUntil: string | null = null;
  let periods = 0;
  if (previous) {
    let i = 0;
    await eachRecord(previous.ended(), ready, (r) => {
      const k = endedOrder[i++];
      const removed = r.removed_at ?? at;
      if (removed < input.cutoff || excess > 0) {
        if (removed >= input.cutoff) excess--;
        if (droppedUntil === null || removed > droppedUntil) droppedUntil = removed;
        return;
      }
      const slot = was.slot(k);
      const leaving = slot !== undefined && was.kept[slot] === 0;
      input.ended.write(period(r, list, r.listed_at, removed, r.superseded === true || inNext(k) || leaving));
      periods++;
    });
    // Only the records leaving are read: the reader skips the others unparsed.
    const leavesAt = (index: number) => was.kept[activeSlots[index]] === 0;
    let j = 0;
    await eachRecord(previous.active(leavesAt), ready, (r) => {
      while (!leavesAt(j)) j++;
      const slot = activeSlots[j++];
      const ended = period(r, list, r.listed_at, at);
      input.ended.write(ended);
      periods++;
      if (was.delisted[slot] === 1) return;
      was.delisted[slot] = 1;
      emit('delisted', was.keys[slot], ended);
    });
  }
  return { total, periods, ...counts, lastSeq: seq - 1, droppedUntil };
}

/** A version label: a checksum of the published content, so an identical re-publication is no new version. */
export function contentVersion(records: Iterable<EntityRecord>): string {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify([r.entity_type, r.value, r.metadata, r.source_url]) + '\n');
  return h.digest('hex').slice(0, 16);
}
