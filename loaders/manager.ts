import type { Logger } from 'pino';
import type { EntityRecord, ListSnapshotInfo } from '../engine/model.js';
import { cleanRecords } from './clean.js';
import { mixerFromConfig, NotConfiguredError, type MixerRole, type MixerScanner } from './chain/mixer.js';
import { contentVersion, type ChangeSink, type RecordBatches } from './diff.js';
import { fetchOptionsFromConfig, fetchSourceFiles } from './fetch.js';
import { LISTS } from './registry.js';
import { cadenceIntervalMs, isDue, nextCheckAt, PrimarySchedule, systemClock, type Clock } from './schedule.js';
import { RecordFeed } from './record-feed.js';
import {
  changeFileSeq,
  emptyState,
  historyReach,
  ListStore,
  type ListStateFile,
  type StoredDefinition,
  type VersionEntry,
} from './store.js';
import type { ListDefinition, LoaderSettings, ParseContext } from './types.js';

/**
 * Keeps every list fresh and the engine fed.
 *
 * Leader (default): at start the committed snapshots go to the engine at once (no source is
 * parsed), the change files a previous run left undelivered go to the sinks, then each list due
 * is checked, then a timer per list follows its cadence. A check fetches (conditional GET),
 * parses the whole version, and only then diffs it against the committed state and commits
 * snapshot + history (see store.ts), rebuilds the engine generation from all lists (active
 * records plus the listing history), which the engine swaps in atomically, and then hands the
 * changes to the sinks (the new version serves before its changes are delivered). Any failure before the commit leaves the previous version live and is recorded as
 * `last_error`; nothing half-parsed is ever served. Changes are part of the commit (a changes
 * file), so a sink failure or a crash only delays them: they are delivered in sequence order
 * across lists, retried every few seconds while a sink fails and at the next start, and sinks
 * dedupe on deterministic ids.
 *
 * Uploaded lists (operator and private lists, `source.type` 'upload') are created, replaced by
 * upload and deleted through this manager too, so their versions go through the same commit,
 * history and sinks. Their definitions live beside their state (`definition.json`).
 *
 * Follower (`follower: true`): never fetches or commits; it polls the leader's committed
 * `state.json` files in the shared DATA_DIR (every `followerPollMs`, and at once on `reload()`,
 * which the service calls when the leader announces a commit) and reloads the engine when one moved.
 *
 * `LIST_REFRESH_ENABLED=false`: no timers, and only lists without any committed version are
 * ingested at start (so a fresh node still gets data; `lists fetch` updates the rest).
 *
 * The mixer-pool lists need MIXER_RPC_URL and MIXER_POOLS; without them they report a
 * "not configured" `last_error`, which counts as a failed attempt, so readiness does not wait.
 */

export interface EngineLoader {
  load(gen: {
    lists: ListSnapshotInfo[];
    records: AsyncIterable<EntityRecord>;
  }): Promise<{ entities: number; ms: number }>;
}

export interface ListStatus {
  loaded: boolean;
  version: string | null;
  last_updated: string | null;
  last_error: string | null;
  last_checked: string | null;
  total: number;
  /**
   * The source has been failing for longer than the list's cadence allows: no successful check
   * within one interval of it (or none ever). A list that is not configured is not stale.
   */
  stale: boolean;
}

/** How far back screening as of a past date reaches for one list, and its version log. */
export interface ListHistory {
  /** The earliest time an as-of answer can be given for (null: no version yet). */
  reach: string | null;
  /** Compaction dropped older history: before `reach` the list existed, but its answers would be incomplete. */
  compacted: boolean;
  versions: readonly VersionEntry[];
}

export interface RefreshOutcome {
  slug: string;
  result: 'new_version' | 'unchanged' | 'failed' | 'not_configured' | 'reloaded';
  version: string | null;
  changes: number;
  /** A new version's changes by kind. */
  listed?: number;
  delisted?: number;
  relisted?: number;
  /** Active entities of the version now served. */
  total?: number;
  /** An upload's rows merged into an earlier row of the same value (see loaders/upload.ts). */
  duplicates?: number;
  error?: string;
}

/** An operation on uploaded lists that cannot be done as asked: `code` says why. */
export class ListOperationError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

/** A new content of a list: its records (read once, in batches) and its content version. */
export interface UploadedVersion {
  records: RecordBatches;
  version: string;
}

export type ProgressEvent = { slug: string; phase: 'download' | 'parse'; file?: string; done: number; total?: number };

/**
 * A sink of the delivery queue. One that works its changes off in the background (the book sink
 * records a run and screens the books later, so the next sinks do not wait for it) is started by
 * the leader's manager, to resume the work a previous run left, and stopped with it.
 */
export interface DeliverySink extends ChangeSink {
  start?(): void;
  stop?(): Promise<void>;
}

export interface ListManagerOptions {
  config: LoaderSettings;
  /** Null for tools that only ingest (the CLI): snapshots are written, nothing is served. */
  engine: EngineLoader | null;
  sinks?: DeliverySink[];
  log: Logger;
  now?: Clock;
  /** The list registry (default: loaders/registry.ts). Uploaded lists are found on disk. */
  lists?: readonly ListDefinition[];
  follower?: boolean;
  /** Follower poll interval of the committed states. */
  followerPollMs?: number;
  /** Wait before undelivered changes are offered to the sinks again. */
  redeliverMs?: number;
  /** The mixer scanner (default: from MIXER_* configuration). */
  mixer?: MixerScanner;
  progress?: (e: ProgressEvent) => void;
  /** Called after each commit of a new version (the service tells the other nodes). */
  committed?: (slug: string) => void;
}

const CHAIN_ROLES: Record<'depositor_relayer' | 'recipient', MixerRole[]> = {
  depositor_relayer: ['depositor', 'relayer'],
  recipient: ['recipient'],
};

/** Changes handed to the sinks at a time. */
const DELIVERY_BATCH = 50_000;
const DAY_MS = 86_400_000;

export class ListManager {
  private readonly config: LoaderSettings;
  private readonly engine: EngineLoader | null;
  private readonly sinks: DeliverySink[];
  private readonly log: Logger;
  private readonly now: Clock;
  private readonly registry: ListDefinition[];
  /** The registry's enabled lists, then the uploaded lists in slug order (deleted ones too). */
  private defs: ListDefinition[];
  private readonly store: ListStore;
  private readonly schedule: PrimarySchedule;
  private readonly mixer: MixerScanner | NotConfiguredError;
  private readonly states = new Map<string, ListStateFile>();
  /** Last attempt in this process; static lists start unset so they are read once per start. */
  private readonly attempts = new Map<string, Date>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private opened = false;
  private engineStale = false;
  /** The committed version (seq) of each list in the engine's current generation. */
  private engineSeqs = new Map<string, number>();
  private redelivery: NodeJS.Timeout | null = null;
  /** Lists whose last check found them not configured (the mixer lists without MIXER_*). */
  private readonly unconfigured = new Set<string>();

  constructor(private readonly opts: ListManagerOptions) {
    this.config = opts.config;
    this.engine = opts.engine;
    this.sinks = opts.sinks ?? [];
    this.log = opts.log;
    this.now = opts.now ?? systemClock;
    this.registry = (opts.lists ?? LISTS).filter((d) => d.enabled);
    this.defs = [...this.registry];
    this.store = new ListStore(opts.config.DATA_DIR);
    this.schedule = new PrimarySchedule(opts.config.PRIMARY_CHECK_MINUTES_UTC, this.now);
    this.mixer = opts.mixer ?? mixerFromConfig(opts.config);
  }

  /** Reads the uploaded lists' definitions and the committed states from disk (no engine, no fetching). */
  async open(): Promise<void> {
    this.opened = true;
    await this.readDefinitions();
    for (const d of this.defs) {
      const s = (await this.store.readState(d.slug)) ?? emptyState(d.slug);
      this.states.set(d.slug, s);
      if (s.last_attempt && d.cadence !== 'static') this.attempts.set(d.slug, new Date(s.last_attempt));
    }
  }

  private async readDefinitions(): Promise<void> {
    const taken = new Set(this.registry.map((d) => d.slug));
    const uploaded = (await this.store.readDefinitions())
      .filter((d) => !taken.has(d.slug))
      .map((d): ListDefinition => ({ ...d, source: { type: 'upload' } }));
    this.defs = [...this.registry, ...uploaded];
  }

  /** Every list this manager knows: the registry's enabled lists and the uploaded lists (deleted ones with `deleted_at`). */
  definitions(): readonly ListDefinition[] {
    return this.defs;
  }

  /** Loads the stored snapshots into the engine, then starts refreshing (see the class comment). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
    if ([...this.states.values()].some((s) => s.seq !== null)) {
      // An unreadable snapshot must not keep the service down: the next check retries the load.
      await this.exclusive(() => this.rebuild()).catch((err: unknown) =>
        this.log.error({ err }, 'loading the stored snapshots failed'),
      );
    }
    if (this.opts.follower) {
      this.pollFollower();
      return;
    }
    for (const sink of this.sinks) sink.start?.();
    void this.exclusive(() => this.deliverPending());
    const checked = this.defs.filter((d) => d.source.type !== 'upload');
    const due = this.config.LIST_REFRESH_ENABLED
      ? checked.filter((d) => this.isDue(d))
      : checked.filter((d) => this.states.get(d.slug)!.seq === null);
    const initial = this.exclusive(() => this.refreshMany(due));
    initial
      .catch((err: unknown) => this.log.error({ err }, 'initial list refresh failed'))
      .finally(() => {
        if (this.config.LIST_REFRESH_ENABLED && !this.stopped) for (const d of checked) this.arm(d);
      });
  }

  /**
   * Checks one list (or every enabled list with a source) now; in follower mode, reloads the
   * committed states. `sourceDir` reads the files from that directory (laid out like
   * ../shared/data) instead of the configured source.
   */
  async refresh(slug?: string, opts: { sourceDir?: string } = {}): Promise<RefreshOutcome[]> {
    if (!this.opened) await this.open();
    if (this.opts.follower) return this.exclusive(() => this.reloadCommitted());
    const checked = this.defs.filter((d) => d.source.type !== 'upload');
    if (slug === undefined) return this.exclusive(() => this.refreshMany(checked, opts.sourceDir));
    const def = this.defs.find((d) => d.slug === slug && !d.deleted_at);
    if (!def) throw new ListOperationError('not_found', `unknown or disabled list: ${slug}`);
    if (def.source.type === 'upload')
      throw new ListOperationError('invalid', `list ${slug} is filled by upload: it has no source to check`);
    return this.exclusive(() => this.refreshMany([def], opts.sourceDir));
  }

  /** Follower: reads the committed states now (the leader announced a commit). */
  reload(): Promise<RefreshOutcome[]> {
    return this.exclusive(() => this.reloadCommitted());
  }

  /**
   * Creates an uploaded list, empty: its first version, from which every upload is a diff (so
   * the first upload's values are `listed`). A deleted list of the same owner comes back with
   * its history.
   */
  async createList(def: StoredDefinition): Promise<RefreshOutcome> {
    this.leaderOnly();
    return this.exclusive(async () => {
      await this.readDefinitions();
      const existing = this.defs.find((d) => d.slug === def.slug);
      if (
        existing &&
        (existing.source.type !== 'upload' || !existing.deleted_at || (existing.owner ?? 0) !== (def.owner ?? 0))
      ) {
        throw new ListOperationError('conflict', `list ${def.slug} already exists`);
      }
      const stored: StoredDefinition = {
        ...def,
        created_at: existing?.created_at ?? def.created_at ?? this.now().toISOString(),
        deleted_at: null,
      };
      await this.store.writeDefinition(stored);
      await this.readDefinitions();
      const full = this.defs.find((d) => d.slug === def.slug)!;
      const state = (await this.store.readState(def.slug)) ?? emptyState(def.slug);
      this.states.set(def.slug, state);
      let outcome: RefreshOutcome = {
        slug: def.slug,
        result: 'unchanged',
        version: state.version,
        changes: 0,
        total: state.total,
      };
      if (state.seq === null)
        outcome = await this.commitVersion(full, state, { records: [], version: contentVersion([]) }, null);
      await this.rebuild();
      return outcome;
    });
  }

  /** Replaces an uploaded list's content: a new version, diffed, committed, served. */
  async uploadList(slug: string, upload: UploadedVersion): Promise<RefreshOutcome> {
    this.leaderOnly();
    return this.exclusive(async () => {
      const def = await this.uploadedList(slug);
      const state = (await this.store.readState(slug)) ?? emptyState(slug);
      this.states.set(slug, state);
      if (state.seq !== null && state.version === upload.version) {
        const at = this.now().toISOString();
        await this.saveStatus({ ...state, last_checked: at, last_attempt: at, last_error: null });
        return { slug, result: 'unchanged', version: state.version, changes: 0, total: state.total };
      }
      const outcome = await this.commitAndServe(def, state, upload);
      await this.deliverPending();
      return outcome;
    });
  }

  /**
   * Commits a version of one list and serves it: the engine loads the new generation while the
   * version is diffed and written, taking the list's records from the diff rather than parsing
   * its new files again, and swaps it in once the version is committed (not before: a failed
   * commit leaves the engine as it was).
   */
  private async commitAndServe(
    def: ListDefinition,
    state: ListStateFile,
    next: UploadedVersion,
  ): Promise<RefreshOutcome> {
    if (!this.engine) return this.commitVersion(def, state, next, null);
    const started = this.now();
    const stale = this.engineStale;
    const feed = new RecordFeed();
    const served = this.rebuild({
      slug: def.slug,
      info: { slug: def.slug, list_type: def.list_type, version: next.version, last_updated: started.toISOString() },
      records: feed.records(),
    });
    // Marked handled at once: a failed load surfaces below, after the commit has finished.
    served.catch(() => undefined);
    let outcome: RefreshOutcome;
    try {
      outcome = await this.commitVersion(def, state, next, null, started, feed);
      feed.end();
    } catch (err) {
      feed.fail(err);
      await served.catch(() => undefined);
      // The load gave up with the commit: the engine still serves what is committed.
      this.engineStale = stale;
      throw err;
    }
    await served;
    return outcome;
  }

  /**
   * Deletes an uploaded list: a last, empty version delists every value (so monitors learn of
   * it), the history stays, and the list is no longer served.
   */
  async deleteList(slug: string): Promise<RefreshOutcome> {
    this.leaderOnly();
    return this.exclusive(async () => {
      const def = await this.uploadedList(slug);
      const state = (await this.store.readState(slug)) ?? emptyState(slug);
      this.states.set(slug, state);
      const outcome =
        state.total > 0
          ? await this.commitVersion(def, state, { records: [], version: contentVersion([]) }, null)
          : { slug, result: 'unchanged' as const, version: state.version, changes: 0, total: 0 };
      const { source: _source, ...stored } = def;
      await this.store.writeDefinition({ ...stored, deleted_at: this.now().toISOString() });
      await this.readDefinitions();
      await this.rebuild();
      await this.deliverPending();
      return outcome;
    });
  }

  private leaderOnly(): void {
    if (this.opts.follower) throw new Error('a follower node does not commit list versions');
  }

  private async uploadedList(slug: string): Promise<ListDefinition> {
    await this.readDefinitions();
    const def = this.defs.find((d) => d.slug === slug && !d.deleted_at);
    if (!def || def.source.type !== 'upload') throw new ListOperationError('not_found', `no uploaded list ${slug}`);
    return def;
  }

  /** Resolves when every queued refresh and reload has finished. */
  async idle(): Promise<void> {
    let q: Promise<unknown>;
    do {
      q = this.queue;
      await q.catch(() => undefined);
    } while (q !== this.queue);
  }

  status(): Record<string, ListStatus> {
    const out: Record<string, ListStatus> = {};
    const now = this.now().getTime();
    for (const d of this.defs) {
      const s = this.states.get(d.slug) ?? emptyState(d.slug);
      const interval = cadenceIntervalMs(d.cadence, this.config.PRIMARY_CHECK_MINUTES_UTC);
      out[d.slug] = {
        loaded: s.seq !== null,
        version: s.version,
        last_updated: s.last_updated,
        last_error: s.last_error,
        last_checked: s.last_checked,
        total: s.total,
        stale:
          s.last_error !== null &&
          interval !== null &&
          !this.unconfigured.has(d.slug) &&
          (s.last_checked === null || now - Date.parse(s.last_checked) > interval),
      };
    }
    return out;
  }

  history(slug: string): ListHistory {
    const s = this.states.get(slug) ?? emptyState(slug);
    return { reach: historyReach(s), compacted: s.history_from !== null, versions: s.versions };
  }

  /**
   * Every enabled list of the registry has been served by the engine in some version, or has
   * failed at least once. A newer version committed and not yet loaded does not make the node
   * unready: the previous one serves until the swap. Uploaded lists are loaded with the rest at
   * start and never wait for a source.
   */
  ready(): boolean {
    return (
      this.opened &&
      this.registry.every((d) => {
        const s = this.states.get(d.slug);
        if (s === undefined || (s.seq === null && s.last_error === null)) return false;
        return this.engine === null || s.seq === null || this.engineSeqs.has(d.slug);
      })
    );
  }

  primaryRefresh(): { check_minutes_utc: number[]; next_check_at: string } {
    return {
      check_minutes_utc: [...this.schedule.checkMinutesUtc],
      next_check_at: this.schedule.nextCheckAt().toISOString(),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    if (this.redelivery) clearTimeout(this.redelivery);
    this.redelivery = null;
    await this.idle();
    for (const sink of this.sinks) await sink.stop?.();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private isDue(d: ListDefinition): boolean {
    return isDue(d.cadence, this.attempts.get(d.slug) ?? null, this.now(), this.config.PRIMARY_CHECK_MINUTES_UTC);
  }

  private arm(d: ListDefinition): void {
    const at = nextCheckAt(
      d.cadence,
      this.attempts.get(d.slug) ?? null,
      this.now(),
      this.config.PRIMARY_CHECK_MINUTES_UTC,
    );
    if (at === null || this.stopped) return;
    // setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); a longer wait re-arms on expiry.
    const delay = Math.min(Math.max(0, at.getTime() - this.now().getTime()), 2 ** 31 - 1);
    const timer = setTimeout(() => {
      this.timers.delete(d.slug);
      const run = this.isDue(d) ? this.exclusive(() => this.refreshMany([d])) : Promise.resolve();
      run
        .catch((err: unknown) => this.log.error({ err, list: d.slug }, 'list refresh failed'))
        .finally(() => this.arm(d));
    }, delay);
    timer.unref();
    this.timers.set(d.slug, timer);
  }

  private pollFollower(): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete('follower');
      this.exclusive(() => this.reloadCommitted())
        .catch((err: unknown) => this.log.error({ err }, 'follower reload failed'))
        .finally(() => this.pollFollower());
    }, this.opts.followerPollMs ?? 2_000);
    timer.unref();
    this.timers.set('follower', timer);
  }

  private async reloadCommitted(): Promise<RefreshOutcome[]> {
    const before = new Set(this.defs.map((d) => `${d.slug}\u0000${d.deleted_at ?? ''}`));
    await this.readDefinitions();
    let moved = this.defs.some((d) => !before.has(`${d.slug}\u0000${d.deleted_at ?? ''}`));
    const out: RefreshOutcome[] = [];
    for (const d of this.defs) {
      const s = (await this.store.readState(d.slug)) ?? emptyState(d.slug);
      const was = this.states.get(d.slug);
      this.states.set(d.slug, s);
      if (was?.seq !== s.seq) {
        moved = true;
        out.push({ slug: d.slug, result: 'reloaded', version: s.version, changes: 0 });
      }
    }
    if (moved || this.engineStale) await this.rebuild();
    return out;
  }

  private async refreshMany(defs: ListDefinition[], sourceDir?: string): Promise<RefreshOutcome[]> {
    const out: RefreshOutcome[] = [];
    for (const d of defs) out.push(await this.refreshOne(d, sourceDir));
    if (this.engineStale || out.some((o) => o.result === 'new_version')) await this.rebuild();
    if (out.some((o) => o.result === 'new_version')) await this.deliverPending();
    return out;
  }

  private async refreshOne(def: ListDefinition, sourceDir: string | undefined): Promise<RefreshOutcome> {
    const started = this.now();
    const at = started.toISOString();
    this.attempts.set(def.slug, started);
    // Another process (the CLI, a former leader) may have committed since: the disk is the truth,
    // and a version the engine does not serve yet is loaded with this check's rebuild.
    let state = (await this.store.readState(def.slug)) ?? emptyState(def.slug);
    this.states.set(def.slug, state);
    if (this.engine !== null && state.seq !== null && this.engineSeqs.get(def.slug) !== state.seq)
      this.engineStale = true;
    try {
      this.unconfigured.delete(def.slug);
      const fetched = await this.collect(def, state, sourceDir);
      if (fetched === 'unchanged-source') {
        state = await this.saveStatus({ ...state, last_checked: at, last_attempt: at, last_error: null });
        return { slug: def.slug, result: 'unchanged', version: state.version, changes: 0, total: state.total };
      }
      const { records, dropped } = cleanRecords(fetched.records);
      if (dropped.length > 0) {
        this.log.warn(
          {
            list: def.slug,
            dropped: dropped.length,
            examples: dropped.slice(0, 5).map((r) => `${r.entity_type}: ${r.value}`),
          },
          'published values that are not of their type left out',
        );
      }
      const version = contentVersion(records);
      if (state.seq !== null && state.version === version) {
        state = await this.saveStatus({
          ...state,
          last_checked: at,
          last_attempt: at,
          last_error: null,
          source_digest: fetched.digest,
        });
        return { slug: def.slug, result: 'unchanged', version, changes: 0, total: state.total };
      }
      return await this.commitVersion(def, state, { records: [{ records }], version }, fetched.digest, started);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const unconfigured = err instanceof NotConfiguredError;
      if (unconfigured) this.unconfigured.add(def.slug);
      else this.unconfigured.delete(def.slug);
      this.log[unconfigured ? 'info' : 'warn'](
        { list: def.slug, error: message },
        'list check failed; the previous version stays live',
      );
      state = await this.saveStatus({ ...state, last_attempt: at, last_error: message });
      return {
        slug: def.slug,
        result: unconfigured ? 'not_configured' : 'failed',
        version: state.version,
        changes: 0,
        error: message,
      };
    }
  }

  /** Commits a new version of a list (its changes become pending for the sinks); the caller rebuilds the engine. */
  private async commitVersion(
    def: ListDefinition,
    state: ListStateFile,
    next: UploadedVersion,
    digest: string | null,
    started = this.now(),
    feed?: RecordFeed,
  ): Promise<RefreshOutcome> {
    const at = started.toISOString();
    const info: ListSnapshotInfo = {
      slug: def.slug,
      list_type: def.list_type,
      version: next.version,
      last_updated: at,
    };
    const t0 = performance.now();
    const committed = await this.store.commit(state, {
      info,
      owner: def.owner ?? 0,
      records: next.records,
      checked_at: at,
      source_digest: digest,
      cutoff: new Date(started.getTime() - this.config.LIST_HISTORY_DAYS * DAY_MS).toISOString(),
      maxPeriods: this.config.LIST_HISTORY_MAX_PERIODS,
      feed,
    });
    this.states.set(def.slug, committed.state);
    const changes = committed.listed + committed.delisted + committed.relisted;
    this.log.info(
      {
        list: def.slug,
        version: next.version,
        total: committed.total,
        periods: committed.periods,
        changes,
        ms: Math.round(performance.now() - t0),
      },
      'list version committed',
    );
    this.opts.committed?.(def.slug);
    return {
      slug: def.slug,
      result: 'new_version',
      version: next.version,
      changes,
      listed: committed.listed,
      delisted: committed.delisted,
      relisted: committed.relisted,
      total: committed.total,
    };
  }

  private async collect(
    def: ListDefinition,
    state: ListStateFile,
    sourceDir: string | undefined,
  ): Promise<'unchanged-source' | { records: EntityRecord[]; digest: string | null }> {
    const progress = this.opts.progress;
    const ctx: ParseContext = {
      progress: progress && ((done, total) => progress({ slug: def.slug, phase: 'parse', done, total })),
    };
    const src = def.source;
    switch (src.type) {
      case 'files': {
        const fetched = await fetchSourceFiles(def.slug, src.files, {
          ...fetchOptionsFromConfig(sourceDir ? { ...this.config, SOURCE_DIR: sourceDir } : this.config),
          progress:
            progress && ((done, total, file) => progress({ slug: def.slug, phase: 'download', file, done, total })),
        });
        if (state.seq !== null && state.source_digest === fetched.digest) return 'unchanged-source';
        return { records: await drain(src.parse(fetched.files, ctx), def.slug), digest: fetched.digest };
      }
      case 'bundled':
        return { records: await drain(src.load(ctx), def.slug), digest: null };
      case 'chain': {
        if (this.mixer instanceof NotConfiguredError) throw this.mixer;
        await this.mixer.scan();
        return { records: await this.mixer.records(def.slug, CHAIN_ROLES[src.role]), digest: null };
      }
      case 'upload':
        throw new ListOperationError('invalid', `list ${def.slug} is filled by upload: it has no source to check`);
    }
  }

  /**
   * Offers every undelivered change file to the sinks, in change sequence order across lists,
   * so what a sink holds is always a prefix of the sequence (the changes feed pages through it).
   * The first failure stops the round; it is retried `redeliverMs` later. Never throws.
   */
  private async deliverPending(): Promise<void> {
    if (this.sinks.length === 0) return;
    const t0 = performance.now();
    let delivered = 0;
    const pending = [...this.states.values()]
      .flatMap((s) => s.pending_changes.map((file) => ({ slug: s.slug, file, seq: changeFileSeq(file) })))
      .sort((a, b) => a.seq - b.seq);
    for (const p of pending) {
      try {
        for await (const batch of this.store.readChanges(p.slug, p.file, DELIVERY_BATCH)) {
          for (const sink of this.sinks) await sink.write(batch);
          delivered += batch.length;
        }
        this.states.set(p.slug, await this.store.delivered(this.states.get(p.slug)!, p.file));
      } catch (err) {
        this.log.warn(
          { list: p.slug, file: p.file, error: (err as Error).message },
          'list changes not delivered; retried shortly',
        );
        this.scheduleRedelivery();
        return;
      }
    }
    if (delivered > 0)
      this.log.info({ changes: delivered, ms: Math.round(performance.now() - t0) }, 'list changes delivered');
  }

  private scheduleRedelivery(): void {
    if (this.redelivery || this.stopped) return;
    this.redelivery = setTimeout(() => {
      this.redelivery = null;
      void this.exclusive(() => this.deliverPending());
    }, this.opts.redeliverMs ?? 5_000);
    this.redelivery.unref();
  }

  private async saveStatus(state: ListStateFile): Promise<ListStateFile> {
    await this.store.writeState(state);
    this.states.set(state.slug, state);
    return state;
  }

  /**
   * Loads every committed list into the engine from its files; with `being`, that list's version
   * being committed instead, its records taken from the commit (see commitAndServe).
   */
  private async rebuild(being?: {
    slug: string;
    info: ListSnapshotInfo;
    records: AsyncIterable<EntityRecord>;
  }): Promise<void> {
    if (!this.engine) return;
    const loaded = this.defs.filter((d) => d.slug === being?.slug || this.states.get(d.slug)?.seq != null);
    const lists: ListSnapshotInfo[] = loaded.map((def) => {
      if (def.slug === being?.slug) return being.info;
      const state = this.states.get(def.slug)!;
      return { slug: def.slug, list_type: def.list_type, version: state.version!, last_updated: state.last_updated };
    });
    const store = this.store;
    const states = this.states;
    async function* records(): AsyncIterable<EntityRecord> {
      for (const def of loaded) {
        if (def.slug === being?.slug) yield* being.records;
        else for await (const batch of store.records(states.get(def.slug)!)) yield* batch;
      }
    }
    // Until a load succeeds the engine serves an older generation than the committed one.
    this.engineStale = true;
    const { entities, ms } = await this.engine.load({ lists, records: records() });
    this.engineStale = false;
    this.engineSeqs = new Map(loaded.map((def) => [def.slug, this.states.get(def.slug)!.seq!]));
    this.log.info({ lists: lists.length, entities, ms: Math.round(ms) }, 'engine generation loaded');
  }
}

/** Reads a parser's whole output before anything is committed, stamping the list slug. */
async function drain(records: AsyncIterable<EntityRecord>, slug: string): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of records) out.push({ ...r, list: slug, listed_at: null, removed_at: null });
  return out;
}
