import type { Logger } from 'pino';
import type { EntityRecord } from '../../engine/model.js';
import { canonicalKey } from '../../engine/normalize/index.js';
import type { ChangeSink, ListChange } from '../../loaders/diff.js';
import type { ListDefinition } from '../../loaders/types.js';
import type { AuditMatchRow } from '../audit/rows.js';
import type { AlertStore, Upsert } from '../alerts/store.js';
import type { Db, Queryable } from '../store/db.js';
import { eventId, type EventRow } from '../webhooks/events.js';
import { insertEvent } from '../webhooks/outbox.js';
import { listingJson } from '../webhooks/sink.js';
import { DeltaIndex, type DeltaHit } from './delta.js';
import type { SubjectStore, WatchedSubject } from './store.js';

/**
 * Watching the books (issue #39, docs/monitoring.md "Watching"): each list version's changes,
 * as the list manager delivers them to its sinks, are screened against every customer's subjects.
 * Only what changed is indexed (DeltaIndex); the books stream through it from the control-plane
 * database by keyset pages, so memory follows the change and a page, not the books.
 *
 * Exactly once: a run is one delivery batch of one version (`book_runs`, named by list, version
 * and the batch's first change). `write` records the run with its changes and returns, so the list
 * manager's other sinks do not wait for the books; the run goes on in the background, one at a
 * time in the order recorded. Each page's alerts, webhook events and the run's progress
 * (`after_id`) commit in one transaction, so a crash loses at most the page in flight, and the
 * leader's next start (the list manager starts its sinks) resumes every unfinished run after its
 * last committed page; a redelivered batch finds its run recorded. Only the leader's list manager
 * delivers. A delisting marks the open and escalated subject alerts of the entity `delisted`.
 */

export interface BookWatchOptions {
  db: Db;
  subjects: SubjectStore;
  alerts: AlertStore;
  log: Logger;
  /** A list's definition, for its name, type and a private list's owner. */
  list: (slug: string) => Pick<ListDefinition, 'slug' | 'display_name' | 'list_type' | 'owner'> | undefined;
  /** Subjects read and screened per transaction. */
  pageSize: number;
  now?: () => number;
  /** Called after each committed page (progress, tests). */
  onPage?: (run: { list: string; version: string; afterId: number }) => void;
}

/** The key an alert of a listed record is filed under (alerts.listed_key): the party, else the value. */
function listedKeyOfRecord(r: EntityRecord): string {
  const id = r.metadata.id;
  if (typeof id === 'string') return id;
  const party = r.metadata.party_id;
  if (r.entity_type !== 'party' && typeof party === 'string' && party !== '') return party;
  return r.value;
}

/** Keys a delisted record's alerts may be filed under: its party, its value, its name. */
function delistedKeys(r: EntityRecord): string[] {
  const keys = new Set([listedKeyOfRecord(r), r.value]);
  for (const k of [r.metadata.party_id, r.metadata.name]) if (typeof k === 'string' && k !== '') keys.add(k);
  return [...keys];
}

interface Run {
  list: string;
  version: string;
  firstSeq: number;
  at: string;
  changes: ListChange[];
}

function runsOf(changes: readonly ListChange[]): Run[] {
  const runs = new Map<string, Run>();
  for (const c of changes) {
    const k = `${c.list}\u0000${c.version}`;
    let run = runs.get(k);
    if (!run) runs.set(k, (run = { list: c.list, version: c.version, firstSeq: c.seq, at: c.at, changes: [] }));
    run.changes.push(c);
  }
  return [...runs.values()];
}

/** Wait before runs that failed (the database away) are tried again. */
const RETRY_MS = 5_000;

export interface BookSink extends ChangeSink {
  /** Screens the recorded runs not finished, and each one recorded from now on (the leader). */
  start(): void;
  /** Stops after the page in flight; an unfinished run resumes at the next start. */
  stop(): Promise<void>;
  /** Resolves once no recorded run is left to screen (or the sink stopped). */
  idle(): Promise<void>;
}

export function createBookSink(opts: BookWatchOptions): BookSink {
  const { db, log } = opts;
  const now = opts.now ?? Date.now;
  let started = false;
  let working: Promise<void> | null = null;
  let again = false;
  let retry: NodeJS.Timeout | null = null;

  /** The oldest recorded run not finished, one at a time, until none is left. */
  const drain = async (): Promise<void> => {
    while (started) {
      const { rows } = await db.query<{ list: string; version: string; first_seq: string; changes: string }>(
        `SELECT list, version, first_seq, changes::text AS changes FROM book_runs
         WHERE state = 'running' AND changes IS NOT NULL ORDER BY started_at, first_seq LIMIT 1`,
      );
      if (rows.length === 0) return;
      const r = rows[0];
      const changes = JSON.parse(r.changes) as ListChange[];
      const run: Run = { list: r.list, version: r.version, firstSeq: Number(r.first_seq), at: changes[0].at, changes };
      const def = opts.list(run.list);
      if (def) await screenRun(opts, def, run, now, () => started);
      else {
        log.warn({ list: run.list, version: run.version }, 'list no longer defined: its run is closed unscreened');
        await db.query(
          `UPDATE book_runs SET state = 'done', finished_at = now() WHERE list = $1 AND version = $2 AND first_seq = $3`,
          [run.list, run.version, run.firstSeq],
        );
      }
    }
  };
  const kick = (): void => {
    if (!started) return;
    if (working) {
      again = true;
      return;
    }
    again = false;
    working = drain()
      .catch((err: unknown) => {
        log.error({ err }, 'screening the books against a list version failed; retried shortly');
        retry ??= setTimeout(() => {
          retry = null;
          kick();
        }, RETRY_MS).unref();
      })
      .finally(() => {
        working = null;
        if (again) kick();
      });
  };

  return {
    async write(changes) {
      for (const run of runsOf(changes)) {
        if (!opts.list(run.list)) {
          log.warn({ list: run.list }, 'list change of an unknown list: books not screened');
          continue;
        }
        // A redelivered batch finds its run; one recorded before migration 084 gets its changes.
        await db.query(
          `INSERT INTO book_runs (list, version, first_seq, parties, changes) VALUES ($1, $2, $3, $4, $5::jsonb)
           ON CONFLICT (list, version, first_seq) DO UPDATE SET changes = EXCLUDED.changes
           WHERE book_runs.changes IS NULL`,
          [run.list, run.version, run.firstSeq, new DeltaIndex(run.changes).size, JSON.stringify(run.changes)],
        );
      }
      kick();
    },
    start() {
      started = true;
      kick();
    },
    async stop() {
      started = false;
      if (retry) clearTimeout(retry);
      retry = null;
      await working;
    },
    async idle() {
      while (working) await working;
    },
  };
}

async function screenRun(
  opts: BookWatchOptions,
  def: NonNullable<ReturnType<BookWatchOptions['list']>>,
  run: Run,
  now: () => number,
  going: () => boolean,
): Promise<void> {
  const { db, log } = opts;
  const index = new DeltaIndex(run.changes);
  const delisted = run.changes.filter((c) => c.kind === 'delisted').map((c) => c.record);
  const { rows } = await db.query<{ state: string; after_id: string }>(
    'SELECT state, after_id FROM book_runs WHERE list = $1 AND version = $2 AND first_seq = $3',
    [run.list, run.version, run.firstSeq],
  );
  if (rows[0]?.state === 'done') return;
  let afterId = Number(rows[0]?.after_id ?? 0);
  const owner = def.owner;
  const t0 = performance.now();
  if (delisted.length > 0) await markDelisted(db, run, delisted, owner);
  const thresholds = await customerThresholds(db, owner);
  let opened = 0;
  for (;;) {
    if (index.size === 0) break;
    const page = await opts.subjects.watchPage(afterId, opts.pageSize, owner, index.hasValues);
    if (page.length === 0) break;
    const hits: { subject: WatchedSubject; hit: DeltaHit }[] = [];
    for (const s of page) {
      const threshold = thresholds.get(s.customer_id);
      if (threshold === undefined) continue;
      for (const hit of index.match(s, threshold)) hits.push({ subject: s, hit });
    }
    afterId = page[page.length - 1].id;
    const last = afterId;
    opened += await db.transaction(async (tx) => {
      const n = hits.length > 0 ? await openAlerts(tx, opts.alerts, def, run, hits, new Date(now())) : 0;
      await tx.query(
        `UPDATE book_runs SET after_id = $4, alerts_opened = alerts_opened + $5
         WHERE list = $1 AND version = $2 AND first_seq = $3`,
        [run.list, run.version, run.firstSeq, last, n],
      );
      return n;
    });
    opts.onPage?.({ list: run.list, version: run.version, afterId });
    // An embedded database answers on this thread through microtasks: without a turn of the
    // event loop between pages, requests would wait for the whole run.
    await new Promise((resolve) => setImmediate(resolve));
    if (!going()) return;
  }
  await db.transaction(async (tx) => {
    await tx.query(
      `UPDATE book_runs SET state = 'done', finished_at = now() WHERE list = $1 AND version = $2 AND first_seq = $3`,
      [run.list, run.version, run.firstSeq],
    );
    await tx.query(
      `INSERT INTO book_versions (customer_id, list, version)
       SELECT id, $1, $2 FROM customers WHERE $3::int IS NULL OR id = $3::int
       ON CONFLICT (customer_id, list) DO UPDATE SET version = EXCLUDED.version, screened_at = now()`,
      [run.list, run.version, owner ?? null],
    );
  });
  log.info(
    {
      list: run.list,
      version: run.version,
      parties: index.size,
      alerts: opened,
      ms: Math.round(performance.now() - t0),
    },
    'list version screened against the books',
  );
}

/** Each customer's name threshold (only the private list's owner for a private list). */
async function customerThresholds(db: Queryable, owner: number | undefined): Promise<Map<number, number>> {
  const { rows } = await db.query<{ id: number; name_threshold: number }>(
    'SELECT id, name_threshold FROM customers WHERE $1::int IS NULL OR id = $1::int',
    [owner ?? null],
  );
  return new Map(rows.map((r) => [r.id, Number(r.name_threshold)]));
}

function alertKey(customerId: number, externalId: string, screened: string, listedKey: string): string {
  return `${customerId}\u0000${externalId}\u0000${screened}\u0000${listedKey}`;
}

function matchRow(
  def: NonNullable<ReturnType<BookWatchOptions['list']>>,
  run: Run,
  subject: WatchedSubject,
  hit: DeltaHit,
  time: number,
): AuditMatchRow {
  const r = hit.record;
  const metadata =
    hit.explanation === null
      ? { ...r.metadata, id: listedKeyOfRecord(r) }
      : { ...r.metadata, id: listedKeyOfRecord(r), score: hit.score, explanation: hit.explanation };
  return {
    time,
    customer_id: subject.customer_id,
    payer: '',
    request_id: `book:${run.list}:${run.version}`,
    endpoint: 'subjects.watch',
    screened_value: hit.screened,
    matched_value: hit.matched,
    list: def.slug,
    list_type: def.list_type,
    match: hit.match,
    list_version: run.version,
    as_of: null,
    evidence: {
      list: def.slug,
      entity_type: r.entity_type,
      value: r.value,
      match: hit.match,
      score: hit.score,
      metadata,
      source_url: r.source_url,
      listed_at: r.listed_at,
    },
    subject: { external_id: subject.external_id, type: subject.type, names: subject.names },
  };
}

/** Opens (or updates) one page's alerts and queues a `subject.alert` event per alert; returns the alerts. */
async function openAlerts(
  tx: Queryable,
  alerts: AlertStore,
  def: NonNullable<ReturnType<BookWatchOptions['list']>>,
  run: Run,
  hits: { subject: WatchedSubject; hit: DeltaHit }[],
  at: Date,
): Promise<number> {
  // One alert per subject, screened value and listed entity (the alerts' unique key).
  const byAlert = new Map<string, { row: AuditMatchRow; record: EntityRecord }>();
  for (const { subject, hit } of hits) {
    const k = alertKey(subject.customer_id, subject.external_id, hit.screened, listedKeyOfRecord(hit.record));
    if (!byAlert.has(k)) byAlert.set(k, { row: matchRow(def, run, subject, hit, at.getTime()), record: hit.record });
  }
  const found = [...byAlert.values()];
  await alerts.upsert(
    found.map(({ row }): Upsert => ({ row, count: 1, first: row.time })),
    tx,
  );
  const { rows: ids } = await tx.query<{
    id: number;
    customer_id: number;
    subject_key: string;
    screened_value: string;
    listed_key: string;
  }>(
    `SELECT a.id, a.customer_id, a.subject_key, a.screened_value, a.listed_key
     FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS i(customer_id, subject_key, screened_value, listed_key)
     JOIN alerts a ON (a.customer_id, a.subject_key, a.screened_value, a.list, a.listed_key)
       = (i.customer_id, i.subject_key, i.screened_value, $5, i.listed_key)`,
    [
      found.map(({ row }) => row.customer_id),
      found.map(({ row }) => row.subject!.external_id),
      found.map(({ row }) => row.screened_value),
      found.map(({ record }) => listedKeyOfRecord(record)),
      def.slug,
    ],
  );
  const alertId = new Map(
    ids.map((r) => [alertKey(r.customer_id, r.subject_key, r.screened_value, r.listed_key), r.id]),
  );
  for (const [k, { row, record }] of byAlert) {
    const subject = row.subject!;
    const id = alertId.get(k) ?? 0;
    const event: EventRow = {
      id: eventId({
        customerId: row.customer_id,
        monitoredEntityId: 0,
        list: run.list,
        entityType: record.entity_type,
        canonicalValue: `${subject.external_id}\u0000${canonicalKey(record.entity_type, record.value) ?? record.value}`,
        kind: 'subject.alert',
        version: run.version,
        at: run.at,
      }),
      type: 'subject.alert',
      created_at: run.at,
      change_id: null,
      monitored_entity_id: null,
      entity_type: record.entity_type,
      value: row.screened_value,
      label: null,
      listing: listingJson(def, record),
      subject: JSON.stringify({
        ...subject,
        alert_id: id,
        screened_value: row.screened_value,
        score: row.evidence.score,
      }),
    };
    await insertEvent(tx, row.customer_id, event, at);
  }
  return found.length;
}

/** Marks the open and escalated subject alerts of delisted entities `delisted`, with the system's history event. */
async function markDelisted(db: Db, run: Run, records: EntityRecord[], owner: number | undefined): Promise<void> {
  const keys = [...new Set(records.flatMap(delistedKeys))];
  await db.query(
    `WITH marked AS (
       UPDATE alerts SET status = 'delisted', version = version + 1
       WHERE list = $1 AND listed_key = ANY($2::text[]) AND subject_key <> '' AND status IN ('open', 'escalated')
         AND ($4::int IS NULL OR customer_id = $4::int)
       RETURNING id, status, version
     )
     INSERT INTO alert_events (alert_id, kind, status, comment, on_version, token_id, token_label)
     SELECT id, 'delisted', status, 'The listed entity was removed from the list in version ' || $3, version - 1, 0, 'system'
     FROM marked`,
    [run.list, keys, run.version, owner ?? null],
  );
}
