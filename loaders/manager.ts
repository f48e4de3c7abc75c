import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { EntityRecord, ListSnapshotInfo } from '../engine/model.js';
import { cleanRecords } from './clean.js';
import { mixerFromConfig, NotConfiguredError, type MixerRole, type MixerScanner } from './chain/mixer.js';
import { diffVersion, type ChangeSink } from './diff.js';
import { fetchOptionsFromConfig, fetchSourceFiles } from './fetch.js';
import { LISTS } from './registry.js';
import { isDue, nextCheckAt, PrimarySchedule, systemClock, type Clock } from './schedule.js';
import { emptyState, ListStore, type ListStateFile } from './store.js';
import type { ListDefinition, LoaderSettings, ParseContext } from './types.js';

/**
 * Keeps every enabled list fresh and the engine fed.
 *
 * Leader (default): at start the committed snapshots go to the engine at once (no source is
 * parsed), then each list due is checked, then a timer per list follows its cadence. A check
 * fetches (conditional GET), parses the whole version into memory, and only then diffs it against
 * the committed state, commits snapshot + history (see store.ts), hands the changes to the sinks
 * and rebuilds the engine generation from all lists (active records plus delisted ones with
 * `removed_at`), which the engine swaps in atomically. Any failure before the commit leaves the
 * previous version live and is recorded as `last_error`; nothing half-parsed is ever served.
 * Changes are part of the commit (a changes file), so a sink failure or a crash only delays them:
 * they are redelivered at the next check, and sinks dedupe on deterministic ids.
 *
 * Follower (`follower: true`): never fetches; it polls the leader's committed `state.json` files
 * in the shared DATA_DIR and reloads the engine when one moved.
 *
 * `LIST_REFRESH_ENABLED=false`: no timers, and only lists without any committed version are
 * ingested at start (so a fresh node still gets data; `lists fetch` updates the rest).
 *
 * The mixer-pool lists need MIXER_RPC_URL and MIXER_POOLS; without them they report a
 * "not configured" `last_error`, which counts as a failed attempt, so readiness does not wait.
 */

export interface EngineLoader {
  load(gen: { lists: ListSnapshotInfo[]; records: AsyncIterable<EntityRecord> }): Promise<{ entities: number; ms: number }>;
}

export interface ListStatus {
  loaded: boolean;
  version: string | null;
  last_updated: string | null;
  last_error: string | null;
  last_checked: string | null;
  total: number;
}

export interface RefreshOutcome {
  slug: string;
  result: 'new_version' | 'unchanged' | 'failed' | 'not_configured' | 'reloaded';
  version: string | null;
  changes: number;
  error?: string;
}

export type ProgressEvent = { slug: string; phase: 'download' | 'parse'; file?: string; done: number; total?: number };

export interface ListManagerOptions {
  config: LoaderSettings;
  /** Null for tools that only ingest (the CLI): snapshots are written, nothing is served. */
  engine: EngineLoader | null;
  sinks?: ChangeSink[];
  log: Logger;
  now?: Clock;
  /** The list registry (default: loaders/registry.ts). */
  lists?: readonly ListDefinition[];
  follower?: boolean;
  /** Follower poll interval of the committed states. */
  followerPollMs?: number;
  /** The mixer scanner (default: from MIXER_* configuration). */
  mixer?: MixerScanner;
  progress?: (e: ProgressEvent) => void;
}

const CHAIN_ROLES: Record<'depositor_relayer' | 'recipient', MixerRole[]> = {
  depositor_relayer: ['depositor', 'relayer'],
  recipient: ['recipient'],
};

export class ListManager {
  private readonly config: LoaderSettings;
  private readonly engine: EngineLoader | null;
  private readonly sinks: ChangeSink[];
  private readonly log: Logger;
  private readonly now: Clock;
  private readonly defs: ListDefinition[];
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

  constructor(private readonly opts: ListManagerOptions) {
    this.config = opts.config;
    this.engine = opts.engine;
    this.sinks = opts.sinks ?? [];
    this.log = opts.log;
    this.now = opts.now ?? systemClock;
    this.defs = (opts.lists ?? LISTS).filter((d) => d.enabled);
    this.store = new ListStore(opts.config.DATA_DIR);
    this.schedule = new PrimarySchedule(opts.config.PRIMARY_CHECK_MINUTES_UTC, this.now);
    this.mixer = opts.mixer ?? mixerFromConfig(opts.config);
  }

  /** Reads the committed states from disk (no engine, no fetching): what `lists show` needs. */
  async open(): Promise<void> {
    this.opened = true;
    for (const d of this.defs) {
      const s = (await this.store.readState(d.slug)) ?? emptyState(d.slug);
      this.states.set(d.slug, s);
      if (s.last_attempt && d.cadence !== 'static') this.attempts.set(d.slug, new Date(s.last_attempt));
    }
  }

  /** Loads the stored snapshots into the engine, then starts refreshing (see the class comment). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
    if ([...this.states.values()].some((s) => s.seq !== null)) {
      // An unreadable snapshot must not keep the service down: the next check retries the load.
      await this.exclusive(() => this.rebuild()).catch((err: unknown) => this.log.error({ err }, 'loading the stored snapshots failed'));
    }
    if (this.opts.follower) {
      this.pollFollower();
      return;
    }
    const due = this.config.LIST_REFRESH_ENABLED
      ? this.defs.filter((d) => this.isDue(d))
      : this.defs.filter((d) => this.states.get(d.slug)!.seq === null);
    const initial = this.exclusive(() => this.refreshMany(due));
    initial
      .catch((err: unknown) => this.log.error({ err }, 'initial list refresh failed'))
      .finally(() => {
        if (this.config.LIST_REFRESH_ENABLED && !this.stopped) for (const d of this.defs) this.arm(d);
      });
  }

  /** Checks one list (or every enabled list) now; in follower mode, reloads committed states. */
  async refresh(slug?: string): Promise<RefreshOutcome[]> {
    if (!this.opened) await this.open();
    const defs = slug === undefined ? this.defs : this.defs.filter((d) => d.slug === slug);
    if (slug !== undefined && defs.length === 0) throw new Error(`unknown or disabled list: ${slug}`);
    return this.exclusive(() => (this.opts.follower ? this.reloadCommitted() : this.refreshMany(defs)));
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
    for (const d of this.defs) {
      const s = this.states.get(d.slug) ?? emptyState(d.slug);
      out[d.slug] = {
        loaded: s.seq !== null,
        version: s.version,
        last_updated: s.last_updated,
        last_error: s.last_error,
        last_checked: s.last_checked,
        total: s.total,
      };
    }
    return out;
  }

  /** True when every enabled list is loaded or has failed at least once. */
  /**
   * Every enabled list has loaded or failed at least once, and the engine serves the committed
   * version of each loaded list (a list committed but not yet in the engine is not ready).
   */
  ready(): boolean {
    return this.opened && this.defs.every((d) => {
      const s = this.states.get(d.slug);
      if (s === undefined || (s.seq === null && s.last_error === null)) return false;
      return this.engine === null || s.seq === null || this.engineSeqs.get(d.slug) === s.seq;
    });
  }

  primaryRefresh(): { check_minutes_utc: number[]; next_check_at: string } {
    return { check_minutes_utc: [...this.schedule.checkMinutesUtc], next_check_at: this.schedule.nextCheckAt().toISOString() };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.idle();
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
    const at = nextCheckAt(d.cadence, this.attempts.get(d.slug) ?? null, this.now(), this.config.PRIMARY_CHECK_MINUTES_UTC);
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
    }, this.opts.followerPollMs ?? 30_000);
    timer.unref();
    this.timers.set('follower', timer);
  }

  private async reloadCommitted(): Promise<RefreshOutcome[]> {
    const out: RefreshOutcome[] = [];
    for (const d of this.defs) {
      const s = (await this.store.readState(d.slug)) ?? emptyState(d.slug);
      const before = this.states.get(d.slug);
      this.states.set(d.slug, s);
      if (before?.seq !== s.seq) out.push({ slug: d.slug, result: 'reloaded', version: s.version, changes: 0 });
    }
    if (out.length > 0) await this.rebuild();
    return out;
  }

  private async refreshMany(defs: ListDefinition[]): Promise<RefreshOutcome[]> {
    const out: RefreshOutcome[] = [];
    for (const d of defs) out.push(await this.refreshOne(d));
    if (this.engineStale || out.some((o) => o.result === 'new_version')) await this.rebuild();
    return out;
  }

  private async refreshOne(def: ListDefinition): Promise<RefreshOutcome> {
    const started = this.now();
    const at = started.toISOString();
    this.attempts.set(def.slug, started);
    // Another process (the CLI, a former leader) may have committed since: the disk is the truth.
    let state = (await this.store.readState(def.slug)) ?? emptyState(def.slug);
    this.states.set(def.slug, state);
    try {
      state = await this.deliverPending(state);
      const fetched = await this.collect(def, state);
      if (fetched === 'unchanged-source') {
        state = await this.saveStatus({ ...state, last_checked: at, last_attempt: at, last_error: null });
        return { slug: def.slug, result: 'unchanged', version: state.version, changes: 0 };
      }
      const { records, dropped } = cleanRecords(fetched.records);
      if (dropped.length > 0) {
        this.log.warn({ list: def.slug, dropped: dropped.length, examples: dropped.slice(0, 5).map((r) => `${r.entity_type}: ${r.value}`) }, 'published values that are not of their type left out');
      }
      const version = contentVersion(records);
      if (state.seq !== null && state.version === version) {
        state = await this.saveStatus({ ...state, last_checked: at, last_attempt: at, last_error: null, source_digest: fetched.digest });
        return { slug: def.slug, result: 'unchanged', version, changes: 0 };
      }
      const previous = state.seq === null ? null : await this.store.readListState(state);
      const next = diffVersion({ list: def.slug, version, at, previous, next: records });
      const info: ListSnapshotInfo = { slug: def.slug, list_type: def.list_type, version, last_updated: at };
      state = await this.store.commit(state, { info, state: next, changes: next.changes, checked_at: at, source_digest: fetched.digest });
      this.states.set(def.slug, state);
      this.log.info(
        { list: def.slug, version, total: next.active.length, delisted: next.delisted.length, changes: next.changes.length },
        'list version committed',
      );
      state = await this.deliverPending(state);
      return { slug: def.slug, result: 'new_version', version, changes: next.changes.length };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const unconfigured = err instanceof NotConfiguredError;
      this.log[unconfigured ? 'info' : 'warn']({ list: def.slug, error: message }, 'list check failed; the previous version stays live');
      state = await this.saveStatus({ ...state, last_attempt: at, last_error: message });
      return { slug: def.slug, result: unconfigured ? 'not_configured' : 'failed', version: state.version, changes: 0, error: message };
    }
  }

  private async collect(def: ListDefinition, state: ListStateFile): Promise<'unchanged-source' | { records: EntityRecord[]; digest: string | null }> {
    const progress = this.opts.progress;
    const ctx: ParseContext = { progress: progress && ((done, total) => progress({ slug: def.slug, phase: 'parse', done, total })) };
    const src = def.source;
    switch (src.type) {
      case 'files': {
        const fetched = await fetchSourceFiles(def.slug, src.files, {
          ...fetchOptionsFromConfig(this.config),
          progress: progress && ((done, total, file) => progress({ slug: def.slug, phase: 'download', file, done, total })),
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
    }
  }

  /** Never throws: undelivered changes stay pending in the committed state for the next check. */
  private async deliverPending(state: ListStateFile): Promise<ListStateFile> {
    if (this.sinks.length === 0 || state.pending_changes.length === 0) return state;
    const files = [...state.pending_changes];
    try {
      for (const file of files) {
        const changes = await this.store.readChanges(state.slug, file);
        for (const sink of this.sinks) await sink.write(changes);
      }
      const next = await this.store.delivered(state, files);
      this.states.set(state.slug, next);
      return next;
    } catch (err) {
      this.log.warn({ list: state.slug, error: (err as Error).message, pending: files.length }, 'list changes not delivered; kept for the next check');
      return state;
    }
  }

  private async saveStatus(state: ListStateFile): Promise<ListStateFile> {
    await this.store.writeState(state);
    this.states.set(state.slug, state);
    return state;
  }

  private async rebuild(): Promise<void> {
    if (!this.engine) return;
    const loaded = this.defs.map((d) => ({ def: d, state: this.states.get(d.slug) })).filter((x) => x.state && x.state.seq !== null);
    const lists: ListSnapshotInfo[] = loaded.map(({ def, state }) => ({
      slug: def.slug,
      list_type: def.list_type,
      version: state!.version!,
      last_updated: state!.last_updated,
    }));
    const store = this.store;
    async function* records(): AsyncIterable<EntityRecord> {
      for (const { state } of loaded) yield* store.records(state!);
    }
    // Until a load succeeds the engine serves an older generation than the committed one.
    this.engineStale = true;
    const { entities, ms } = await this.engine.load({ lists, records: records() });
    this.engineStale = false;
    this.engineSeqs = new Map(loaded.map(({ def, state }) => [def.slug, state!.seq!]));
    this.log.info({ lists: lists.length, entities, ms: Math.round(ms) }, 'engine generation loaded');
  }
}

/** Reads a parser's whole output before anything is committed, stamping the list slug. */
async function drain(records: AsyncIterable<EntityRecord>, slug: string): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of records) out.push({ ...r, list: slug, listed_at: null, removed_at: null });
  return out;
}

/** A version label: a checksum of the published content, so an identical re-publication is no new version. */
function contentVersion(records: EntityRecord[]): string {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify([r.entity_type, r.value, r.metadata, r.source_url]) + '\n');
  return h.digest('hex').slice(0, 16);
}
