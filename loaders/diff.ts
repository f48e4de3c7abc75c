import { canonicalKey } from '../engine/normalize/index.js';
import type { EntityRecord } from '../engine/model.js';

/**
 * Listing history: what changed between a list's previous state and a newly parsed version.
 *
 * Identity is (entity_type, canonical key), so a re-cased or re-formatted value is the same entity
 * and several records sharing a key (two parties with the same name, an address that is both a
 * depositor and a relayer) move together: one change per key, carrying the key's first record.
 *
 * - A key that appears is `listed`, or `relisted` when the history holds it as removed.
 * - A key that disappears is `delisted`; its records go to the history with `removed_at`.
 * - The very first version of a list is the baseline: it emits no changes (nothing was "added" to
 *   a list we had never seen) and its entities get `listed_at` = the ingestion time.
 * - `listed_at` is the start of the current listing period: kept across versions while the key
 *   stays listed, and reset to the relisting time when a removed key comes back.
 * All timestamps are the ingestion time `at` of the version, the only time we can vouch for.
 */

type ListChangeKind = 'listed' | 'delisted' | 'relisted';

export type ListChange = {
  list: string;
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

/** A list's state: the entities it currently publishes and those it has removed. */
export interface ListState {
  active: EntityRecord[];
  /** Records of removed keys, each with `removed_at`. */
  delisted: EntityRecord[];
}

export function entityKey(r: Pick<EntityRecord, 'entity_type' | 'value'>): string {
  return `${r.entity_type}\u0000${canonicalKey(r.entity_type, r.value) ?? r.value.trim()}`;
}

function byKey(records: EntityRecord[]): Map<string, EntityRecord[]> {
  const m = new Map<string, EntityRecord[]>();
  for (const r of records) {
    const k = entityKey(r);
    const group = m.get(k);
    if (group) group.push(r);
    else m.set(k, [r]);
  }
  return m;
}

export function diffVersion(input: {
  list: string;
  version: string;
  at: string;
  /** Null for the first version of the list (the baseline). */
  previous: ListState | null;
  next: EntityRecord[];
}): ListState & { changes: ListChange[] } {
  const { list, version, at, previous } = input;
  const wasActive = byKey(previous?.active ?? []);
  const wasRemoved = byKey(previous?.delisted ?? []);
  const changes: ListChange[] = [];
  const active: EntityRecord[] = [];
  const seen = new Set<string>();

  for (const r of input.next) {
    const k = entityKey(r);
    const prior = wasActive.get(k);
    const listedAt = prior ? (prior[0].listed_at ?? at) : at;
    const record: EntityRecord = { ...r, list, listed_at: listedAt, removed_at: null };
    active.push(record);
    if (seen.has(k)) continue;
    seen.add(k);
    if (previous && !prior) changes.push({ list, version, kind: wasRemoved.has(k) ? 'relisted' : 'listed', at, record });
  }

  const delisted: EntityRecord[] = [];
  for (const [k, group] of wasRemoved) {
    if (!seen.has(k) && !wasActive.has(k)) delisted.push(...group);
  }
  for (const [k, group] of wasActive) {
    if (seen.has(k)) continue;
    const removed = group.map((r) => ({ ...r, removed_at: at }));
    delisted.push(...removed);
    changes.push({ list, version, kind: 'delisted', at, record: removed[0] });
  }
  return { active, delisted, changes };
}
