import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { readSnapshot, writeSnapshot } from '../engine/snapshot.js';
import type { EntityRecord, ListSnapshotInfo } from '../engine/model.js';
import type { ListChange, ListState } from './diff.js';

/**
 * Per-list files under `DATA_DIR/lists/<slug>/`:
 * - `snapshot-<seq>.ndjson`: the entities the version publishes (engine snapshot format), with
 *   their `listed_at`;
 * - `history-<seq>.ndjson`: every entity that has left the list, its last published record with
 *   `listed_at` and `removed_at` (same format), so delisted entities survive restarts;
 * - `changes-<seq>.ndjson`: the version's ListChanges until every sink has taken them;
 * - `state.json`: the commit point. It names the current files and carries the check status.
 *   Version files are written first under a new sequence number and `state.json` is replaced by
 *   rename, so a reader (this process after a crash, or a follower node) sees either the old
 *   version or the new one, never a mix. The previous generation's files are kept one round so a
 *   follower that read the old state.json can still open them.
 */

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
  delisted: number;
  snapshot: string | null;
  history: string | null;
  /** Change files not yet delivered to the sinks, oldest first. */
  pending_changes: string[];
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
  };
}

export class ListStore {
  constructor(readonly dataDir: string) {}

  dir(slug: string): string {
    return join(this.dataDir, 'lists', slug);
  }

  async readState(slug: string): Promise<ListStateFile | null> {
    let text: string;
    try {
      text = await readFile(join(this.dir(slug), 'state.json'), 'utf8');
    } catch {
      return null;
    }
    return { ...emptyState(slug), ...(JSON.parse(text) as Partial<ListStateFile>), slug };
  }

  async writeState(state: ListStateFile): Promise<void> {
    const dir = this.dir(state.slug);
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `state.json.tmp-${process.pid}`);
    await writeFile(tmp, JSON.stringify(state, null, 2) + '\n');
    await rename(tmp, join(dir, 'state.json'));
  }

  /** The committed version's active and delisted records, fully read (for diffing). */
  async readListState(state: ListStateFile): Promise<ListState> {
    const active: EntityRecord[] = [];
    const delisted: EntityRecord[] = [];
    if (state.snapshot) for await (const r of (await readSnapshot(join(this.dir(state.slug), state.snapshot))).records) active.push(r);
    if (state.history) for await (const r of (await readSnapshot(join(this.dir(state.slug), state.history))).records) delisted.push(r);
    return { active, delisted };
  }

  /** Streams the committed version for the engine: active records, then delisted ones. */
  async *records(state: ListStateFile): AsyncIterable<EntityRecord> {
    for (const file of [state.snapshot, state.history]) {
      if (!file) continue;
      yield* (await readSnapshot(join(this.dir(state.slug), file))).records;
    }
  }

  /** Writes a new version's files, then commits it by replacing state.json. */
  async commit(
    previous: ListStateFile,
    next: { info: ListSnapshotInfo; state: ListState; changes: ListChange[]; checked_at: string; source_digest: string | null },
  ): Promise<ListStateFile> {
    const slug = previous.slug;
    const dir = this.dir(slug);
    const seq = (previous.seq ?? 0) + 1;
    const snapshot = `snapshot-${seq}.ndjson`;
    const history = `history-${seq}.ndjson`;
    await writeSnapshot(join(dir, snapshot), next.info, next.state.active);
    await writeSnapshot(join(dir, history), next.info, next.state.delisted);
    const pending = [...previous.pending_changes];
    if (next.changes.length > 0) {
      const file = `changes-${seq}.ndjson`;
      const tmp = join(dir, `${file}.tmp-${process.pid}`);
      await writeFile(tmp, next.changes.map((c) => JSON.stringify(c)).join('\n') + '\n');
      await rename(tmp, join(dir, file));
      pending.push(file);
    }
    const state: ListStateFile = {
      ...previous,
      seq,
      version: next.info.version,
      last_updated: next.info.last_updated,
      last_checked: next.checked_at,
      last_attempt: next.checked_at,
      last_error: null,
      source_digest: next.source_digest,
      total: next.state.active.length,
      delisted: next.state.delisted.length,
      snapshot,
      history,
      pending_changes: pending,
    };
    await this.writeState(state);
    await this.prune(state);
    return state;
  }

  async readChanges(slug: string, file: string): Promise<ListChange[]> {
    const out: ListChange[] = [];
    const lines = createInterface({ input: createReadStream(join(this.dir(slug), file)), crlfDelay: Infinity });
    for await (const line of lines) if (line) out.push(JSON.parse(line) as ListChange);
    return out;
  }

  /** Marks change files as delivered: drops them from state.json, then deletes them. */
  async delivered(state: ListStateFile, files: string[]): Promise<ListStateFile> {
    const next = { ...state, pending_changes: state.pending_changes.filter((f) => !files.includes(f)) };
    await this.writeState(next);
    for (const f of files) await rm(join(this.dir(state.slug), f), { force: true });
    return next;
  }

  private async prune(state: ListStateFile): Promise<void> {
    const keep = state.seq! - 1;
    for (const name of await readdir(this.dir(state.slug))) {
      const m = /^(snapshot|history)-(\d+)\.ndjson$/.exec(name);
      if (m && Number(m[2]) < keep) await rm(join(this.dir(state.slug), name), { force: true });
    }
  }
}
