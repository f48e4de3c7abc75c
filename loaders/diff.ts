import { createHash } from 'node:crypto';
import { canonicalKey } from '../engine/normalize/index.js';
import type { EntityRecord } from '../engine/model.js';

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
 * The diff streams: the new version's records are read once, the committed files twice each, and
 * only keys are held in memory, so a version of millions of rows costs memory per key, not per
 * record.
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
  return `${r.entity_type}\u0000${canonicalKey(r.entity_type, r.value) ?? r.value.trim()}`;
}

/**
 * `chg_` + 32 hex digits of SHA-256 over the list, the version with its ingestion time (versions
 * are content hashes, so a list returning to an earlier content repeats one), the kind and the
 * entity's identity. A re-run of the same commit gives the same ids.
 */
export function changeId(list: string, version: string, at: string, kind: ListChangeKind, key: string): string {
  return `chg_${createHash('sha256')
    .update(JSON.stringify([list, version, at, kind, key]))
    .digest('hex')
    .slice(0, 32)}`;
}

interface RecordOut {
  write(r: EntityRecord): Promise<void>;
}

interface ChangeOut {
  write(c: ListChange): Promise<void>;
}

type Records = AsyncIterable<EntityRecord> | Iterable<EntityRecord>;

export interface DiffInput {
  list: string;
  owner: number;
  version: string;
  at: string;
  /** The new version's records, read once. */
  next: Records;
  /** The committed version: its active records and its ended periods, each readable twice; null for the first version. */
  previous: { active: () => Records; ended: () => Records } | null;
  /** Sequence number of the first change. */
  firstSeq: number;
  /** Ended periods that ended before this time (ISO 8601) are dropped. */
  cutoff: string;
  /** Ended periods kept at most (the oldest dropped first; this version's own delistings always stay). */
  maxPeriods: number;
  /** The new version's files: active records, then ended periods oldest first, then the changes. */
  active: RecordOut;
  ended: RecordOut;
  changes: ChangeOut;
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
function period(r: EntityRecord, list: string, listedAt: string | null, removedAt: string | null, superseded = false): EntityRecord {
  const out: EntityRecord = { list, entity_type: r.entity_type, value: r.value, metadata: r.metadata, source_url: r.source_url, listed_at: listedAt, removed_at: removedAt };
  if (superseded) out.superseded = true;
  return out;
}

interface Listed {
  listedAt: string | null;
  records: number;
}

export async function diffVersion(input: DiffInput): Promise<DiffResult> {
  const { list, owner, version, at, previous } = input;
  let seq = input.firstSeq;
  const counts = { listed: 0, delisted: 0, relisted: 0 };
  const emit = async (kind: ListChangeKind, key: string, record: EntityRecord) => {
    counts[kind]++;
    await input.changes.write({ seq: seq++, change_id: changeId(list, version, at, kind, key), list, owner, version, kind, at, record });
  };

  // The committed version's keys, in file order (read again below without normalizing twice).
  const wasListed = new Map<string, Listed>();
  const activeKeys: string[] = [];
  const endedKeys = new Set<string>();
  const endedOrder: string[] = [];
  let endedKept = 0;
  if (previous) {
    for await (const r of previous.active()) {
      const k = entityKey(r);
      activeKeys.push(k);
      const seen = wasListed.get(k);
      if (seen) seen.records++;
      else wasListed.set(k, { listedAt: r.listed_at, records: 1 });
    }
    for await (const r of previous.ended()) {
      const k = entityKey(r);
      endedOrder.push(k);
      endedKeys.add(k);
      if (r.removed_at === null || r.removed_at >= input.cutoff) endedKept++;
    }
  }

  let total = 0;
  const seen = new Set<string>();
  for await (const r of input.next) {
    const k = entityKey(r);
    const prior = wasListed.get(k);
    await input.active.write(period(r, list, prior ? (prior.listedAt ?? at) : at, null));
    total++;
    if (seen.has(k)) continue;
    seen.add(k);
    if (previous && !prior) await emit(endedKeys.has(k) ? 'relisted' : 'listed', k, period(r, list, at, null));
  }

  // Keys leaving now; their periods end with this version.
  const leaving = new Set<string>();
  let leavingRecords = 0;
  for (const [k, v] of wasListed) {
    if (seen.has(k)) continue;
    leaving.add(k);
    leavingRecords += v.records;
  }

  // Earlier periods, oldest end first: past the cut-off or over the cap they go.
  let excess = Math.max(0, endedKept + leavingRecords - input.maxPeriods);
  let droppedUntil: string | null = null;
  let periods = 0;
  if (previous) {
    let i = 0;
    for await (const r of previous.ended()) {
      const k = endedOrder[i++];
      const removed = r.removed_at ?? at;
      if (removed < input.cutoff || excess > 0) {
        if (removed >= input.cutoff) excess--;
        if (droppedUntil === null || removed > droppedUntil) droppedUntil = removed;
        continue;
      }
      await input.ended.write(period(r, list, r.listed_at, removed, r.superseded === true || seen.has(k) || leaving.has(k)));
      periods++;
    }
    let j = 0;
    const delisted = new Set<string>();
    for await (const r of previous.active()) {
      const k = activeKeys[j++];
      if (!leaving.has(k)) continue;
      const ended = period(r, list, r.listed_at, at);
      await input.ended.write(ended);
      periods++;
      if (delisted.has(k)) continue;
      delisted.add(k);
      await emit('delisted', k, ended);
    }
  }
  return { total, periods, ...counts, lastSeq: seq - 1, droppedUntil };
}

/** A version label: a checksum of the published content, so an identical re-publication is no new version. */
export function contentVersion(records: Iterable<EntityRecord>): string {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify([r.entity_type, r.value, r.metadata, r.source_url]) + '\n');
  return h.digest('hex').slice(0, 16);
}
