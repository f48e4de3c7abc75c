import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LineFile, lineBatches, readSnapshot, SnapshotWriter } from '../engine/snapshot.js';
import type { EntityRecord, ListSnapshotInfo } from '../engine/model.js';
import {
  diffVersion,
  type ActiveKey,
  type DiffResult,
  type ListChange,
  type PreviousVersion,
  type RecordBatch,
  type RecordBatches,
} from './diff.js';
import type { ListDefinition } from './types.js';
import type { RecordFeed } from './record-feed.js';

/**
 * Per-list files under `DATA_DIR/lists/<slug>/`:
 * - `snapshot-<seq>.ndjson`: the entities the version publishes (engine snapshot format), with
 *   their `listed_at`;
 * - `keys-<seq>.ndjson`: beside it, each of those entities' identity and `listed_at` as a JSON
 *   pair, in the same order: the next version's diff reads these instead of the snapshot (a
 *   version committed before this file existed is read the longer way);
 * - `history-<seq>.ndjson`: the ended listing periods (same format, `removed_at` set), oldest
 *   end first, compacted at each version (see loaders/diff.ts);
 * - `changes-<first change seq>.ndjson`: a version's ListChanges until every sink has taken them;
 * - `definition.json`: an uploaded list's definition (operator and private lists; the registry's
 *   lists are declared in code);
 * - `state.json`: the commit point. It names the current files and carries the check status and
 *   the version log. Version files are written first under a new sequence number and
 *   `state.json` is replaced by rename, so a reader (this process after a crash, or a follower
 *   node) sees either the old version or the new one, never a mix. The previous generation's
 *   files are kept one round so a follower that read the old state.json can still open them.
 * `DATA_DIR/lists/sequence.json` holds the last change sequence number handed out (see
 * ListChange.seq); it is advanced before the state that uses the numbers is committed.
 */

export interface VersionEntry {
  seq: number;
  version: string;
  /** Ingestion time of the version (ISO 8601). */
  at: string;
}

export interface ListStateFile {
  slug: string;
  /** Sequence number of the committed version; null when no version was ever committed. */
  seq: number | null;
  version: string | null;
  /** Ingestion time of the current version (when the data last changed). */
  last_updated: string | null;
  /** Last check that succeeded, whether or not it brought a new version. */
  last_checked: string | null;
  /** Last attempt, successful or not (drives the schedule). */
  last_attempt: string | null;
  last_error: string | null;
  /** Checksum of the source files the current version was parsed from (skips identical re-parses). */
  source_digest: string | null;
  total: number;
  /** Ended listing periods in the history file (records). */
  delisted: number;
  snapshot: string | null;
  history: string | null;
  /** Change files not yet delivered to the sinks, oldest first. */
  pending_changes: string[];
  /** The versions the history reaches back to, oldest first (compacted with the history). */
  versions: VersionEntry[];
  /** Screening as of a time before this could miss a period compaction dropped; null when nothing was dropped. */
  history_from: string | null;
}

export function emptyState(slug: string): ListStateFile {
  return {
    slug,
    seq: null,
    version: null,
    last_updated: null,
    last_checked: null,
    last_attempt: null,
    last_error: null,
    source_digest: null,
    total: 0,
    delisted: 0,
    snapshot: null,
    history: null,
    pending_changes: [],
    versions: [],
    history_from: null,
  };
}

/** Definition of an uploaded list as stored in `definition.json`. */
export type StoredDefinition = Omit<ListDefinition, 'source'>;

/** The first change sequence number of a pending change file (its name). */
export function changeFileSeq(file: string): number {
  const m = /^changes-(\d+)\.ndjson$/.exec(file);
  return m ? Number(m[1]) : 0;
}

export interface CommitInput {
  info: ListSnapshotInfo;
  owner: number;
  /** The new version's records, read once. */
  records: RecordBatches;
  checked_at: string;
  source_digest: string | null;
  /** Ended periods that ended before this time (ISO 8601) are dropped. */
  cutoff: string;
  maxPeriods: number;
  /**
   * Also hands every record written to the version's files to this feed, in file order: the
   * active records, then the ended periods (the diff writes every active record first).
   */
  feed?: RecordFeed;
}

export type CommitResult = { state: ListStateFile } & DiffResult;

async function readJson<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  return JSON.parse(text) as T;
}

async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, path);
}

export class ListStore {
  constructor(readonly dataDir: string) {}

  root(): string {
    return join(this.dataDir, 'lists');
  }

  dir(slug: string): string {
    return join(this.root(), slug);
  }

  async readState(slug: string): Promise<ListStateFile | null> {
    const stored = await readJson<Partial<ListStateFile>>(join(this.dir(slug), 'state.json'));
    if (stored === null) return null;
    const state = { ...emptyState(slug), ...stored, slug };
    // A state written before the version log existed: its current version is the log.
    if (state.versions.length === 0 && state.seq !== null && state.version !== null && state.last_updated !== null) {
      state.versions = [{ seq: state.seq, version: state.version, at: state.last_updated }];
    }
    return state;
  }

  async writeState(state: ListStateFile): Promise<void> {
    const dir = this.dir(state.slug);
    await mkdir(dir, { recursive: true });
    await writeJsonAtomic(join(dir, 'state.json'), state);
  }

  /** Uploaded lists' definitions found on disk (deleted ones included). */
  async readDefinitions(): Promise<StoredDefinition[]> {
    let names: string[];
    try {
      names = await readdir(this.root());
    } catch {
      return [];
    }
    const out: StoredDefinition[] = [];
    for (const name of names.sort()) {
      const def = await readJson<StoredDefinition>(join(this.root(), name, 'definition.json'));
      if (def && def.slug === name) out.push(def);
    }
    return out;
  }

  async writeDefinition(def: StoredDefinition): Promise<void> {
    const dir = this.dir(def.slug);
    await mkdir(dir, { recursive: true });
    await writeJsonAtomic(join(dir, 'definition.json'), def);
  }

  /** The last change sequence number handed out, by any list. */
  async lastChangeSeq(): Promise<number> {
    return (await readJson<{ last: number }>(join(this.root(), 'sequence.json')))?.last ?? 0;
  }

  private async advanceChangeSeq(last: number): Promise<void> {
    await mkdir(this.root(), { recursive: true });
    await writeJsonAtomic(join(this.root(), 'sequence.json'), { last });
  }

  /** Streams the committed version for the engine, in batches: active records, then the ended periods. */
  async *records(state: ListStateFile): AsyncIterable<EntityRecord[]> {
    for (const file of [state.snapshot, state.history]) {
      if (!file) continue;
      yield* (await readSnapshot(join(this.dir(state.slug), file))).batches;
    }
  }

  private async *file(
    state: ListStateFile,
    file: string | null,
    only?: (index: number) => boolean,
  ): AsyncIterable<RecordBatch> {
    if (!file) return;
    for await (const records of (await readSnapshot(join(this.dir(state.slug), file), only)).batches) yield { records };
  }

  /** The committed version as the diff reads it: with its keys file when the version has one. */
  private async previous(state: ListStateFile): Promise<PreviousVersion | null> {
    if (state.seq === null) return null;
    const keysPath = join(this.dir(state.slug), keysFile(state.seq));
    const hasKeys = await access(keysPath).then(
      () => true,
      () => false,
    );
    return {
      active: (only) => this.file(state, state.snapshot, only),
      ended: () => this.file(state, state.history),
      activeKeys: hasKeys ? () => readKeys(keysPath, state.total) : undefined,
    };
  }

  /**
   * Diffs a new version against the committed one while writing its files, then commits it by
   * replacing state.json. Nothing is visible until that rename: a failure before it (a bad
   * record, a full disk) leaves the committed version as it was.
   */
  async commit(previous: ListStateFile, next: CommitInput): Promise<CommitResult> {
    const slug = previous.slug;
    const dir = this.dir(slug);
    await mkdir(dir, { recursive: true });
    const seq = (previous.seq ?? 0) + 1;
    const snapshot = `snapshot-${seq}.ndjson`;
    const history = `history-${seq}.ndjson`;
    const firstSeq = (await this.lastChangeSeq()) + 1;
    const changesFile = `changes-${firstSeq}.ndjson`;
    const active = await SnapshotWriter.open(join(dir, snapshot), next.info);
    const ended = await SnapshotWriter.open(join(dir, history), next.info);
    const changes = new LineFile(join(dir, changesFile));
    const keys = new LineFile(join(dir, keysFile(seq)));
    const feed = next.feed;
    /** A file's writer that also hands its records to the feed. */
    const fed = (file: SnapshotWriter) =>
      feed
        ? {
            write: (r: EntityRecord) => {
              file.write(r);
              feed.push(r);
            },
            ready: async () => {
              await file.ready();
              await feed.ready();
            },
          }
        : file;
    let result: DiffResult;
    try {
      result = await diffVersion({
        list: slug,
        owner: next.owner,
        version: next.info.version,
        at: next.info.last_updated ?? next.checked_at,
        next: next.records,
        previous: await this.previous(previous),
        firstSeq,
        cutoff: next.cutoff,
        maxPeriods: next.maxPeriods,
        active: fed(active),
        activeKeys: { write: (k: ActiveKey) => keys.write(JSON.stringify(k)), ready: () => keys.ready() },
        ended: fed(ended),
        changes: { write: (c: ListChange) => changes.write(JSON.stringify(c)), ready: () => changes.ready() },
      });
      await active.close();
      await keys.close();
      await ended.close();
      if (changes.lines > 0) await changes.close();
      else await changes.abort();
    } catch (err) {
      await Promise.all([active.abort(), keys.abort(), ended.abort(), changes.abort()]);
      throw err;
    }
    if (result.lastSeq >= firstSeq) await this.advanceChangeSeq(result.lastSeq);
    const at = next.info.last_updated ?? next.checked_at;
    let historyFrom = latest(previous.history_from, result.droppedUntil);
    const versions = compactVersions([...previous.versions, { seq, version: next.info.version, at }], historyFrom);
    // Versions the log dropped for its size take the history's reach with them.
    if (versions.length === MAX_VERSIONS && previous.versions.length >= MAX_VERSIONS)
      historyFrom = latest(historyFrom, versions[0].at);
    const state: ListStateFile = {
      ...previous,
      seq,
      version: next.info.version,
      last_updated: at,
      last_checked: next.checked_at,
      last_attempt: next.checked_at,
      last_error: null,
      source_digest: next.source_digest,
      total: result.total,
      delisted: result.periods,
      snapshot,
      history,
      pending_changes:
        result.lastSeq >= firstSeq ? [...previous.pending_changes, changesFile] : [...previous.pending_changes],
      versions,
      history_from: historyFrom,
    };
    await this.writeState(state);
    await this.prune(state);
    return { state, ...result };
  }

  /** Reads a change file in batches of at most `size` changes. */
  async *readChanges(slug: string, file: string, size: number): AsyncIterable<ListChange[]> {
    let batch: ListChange[] = [];
    for await (const lines of lineBatches(join(this.dir(slug), file))) {
      for (const line of lines) {
        if (!line) continue;
        batch.push(JSON.parse(line) as ListChange);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Marks a change file as delivered: drops it from state.json, then deletes it. */
  async delivered(state: ListStateFile, file: string): Promise<ListStateFile> {
    const next = { ...state, pending_changes: state.pending_changes.filter((f) => f !== file) };
    await this.writeState(next);
    await rm(join(this.dir(state.slug), file), { force: true });
    return next;
  }

  private async prune(state: ListStateFile): Promise<void> {
    const keep = state.seq! - 1;
    for (const name of await readdir(this.dir(state.slug))) {
      const m = /^(snapshot|history|keys)-(\d+)\.ndjson$/.exec(name);
      if (m && Number(m[2]) < keep) await rm(join(this.dir(state.slug), name), { force: true });
    }
  }
}

function keysFile(seq: number): string {
  return `keys-${seq}.ndjson`;
}

/** A keys file in batches; throws unless it holds `count` keys (it is renamed into place whole, so only damage makes it short). */
async function* readKeys(path: string, count: number): AsyncIterable<ActiveKey[]> {
  let n = 0;
  for await (const lines of lineBatches(path)) {
    const batch: ActiveKey[] = [];
    for (const line of lines) if (line !== '') batch.push(JSON.parse(line) as ActiveKey);
    n += batch.length;
    yield batch;
  }
  if (n !== count)
    throw new Error(
      `${path}: ${n} keys for ${count} records (remove the file: the next commit reads the snapshot instead)`,
    );
}

function latest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

/** Most versions a list's log keeps; older ones go, and the history's reach moves with them. */
const MAX_VERSIONS = 10_000;

/**
 * The versions as-of screening can still name: those current at or after `from` (the one current
 * at `from` included), at most MAX_VERSIONS.
 */
function compactVersions(versions: VersionEntry[], from: string | null): VersionEntry[] {
  let start = 0;
  if (from !== null) while (start + 1 < versions.length && versions[start + 1].at <= from) start++;
  start = Math.max(start, versions.length - MAX_VERSIONS);
  return versions.slice(start);
}

/**
 * The earliest time screening as of a past date can answer for: the first version the log still
 * holds, or later when compaction dropped a period ending after it. Null before any version.
 */
export function historyReach(state: Pick<ListStateFile, 'versions' | 'history_from'>): string | null {
  const first = state.versions[0]?.at ?? null;
  if (first === null) return null;
  return latest(first, state.history_from);
}
