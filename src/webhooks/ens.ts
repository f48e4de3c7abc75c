import type { Logger } from 'pino';
import type { EntityRecord } from '../../engine/model.js';
import { matchOne } from '../../engine/match-one.js';
import { canonicalKey } from '../../engine/normalize/index.js';
import { LISTS } from '../../loaders/registry.js';
import type { ListDefinition } from '../../loaders/types.js';
import type { EnsResolver } from '../ens/resolver.js';
import { ValidationFailed } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { eventId, type EventRow } from './events.js';
import { insertEvent } from './outbox.js';
import { listingJson } from './sink.js';
import type { NameResolver } from './store.js';

/**
 * Monitored ENS names. A name is matched through the address it last resolved to; names are
 * re-resolved every `intervalSeconds` (default ENS_RECHECK_SECONDS). When a resolution differs
 * from the stored one, the new address is checked against the lists as they are now, like a
 * newly monitored value: each current listing it matches gives an `entity.listed` event
 * (`created_at` = the time of the check, `listing.value` the listed address). A name that stops
 * resolving, or moves away from a listed address, gives no event: no listing changed.
 *
 * The address is stored and its events queued in one transaction; the resolution's sequence
 * number (`ens_seq`) is part of the event ids, so a name that moves A → B → A reports A's listing
 * again, and a check re-run after a crash does not.
 */

/** Default re-resolution interval of monitored ENS names (s): ENS_CACHE_TTL_SECONDS's default. */
const ENS_RECHECK_SECONDS = 300;

export interface EnsMonitorOptions {
  db: Db;
  log: Logger;
  names: NameResolver;
  /** The current active listings (all enabled lists) that a screening of this address matches. */
  listings: (address: string) => EntityRecord[] | Promise<EntityRecord[]>;
  lists?: readonly ListDefinition[];
  intervalSeconds?: number;
  now?: () => number;
  /** Names resolved per run. */
  batch?: number;
}

export interface EnsMonitor {
  start(): void;
  stop(): Promise<void>;
  /** Re-resolves the names due; returns the number of events queued. */
  runOnce(): Promise<number>;
}

/** A NameResolver over the service's EnsResolver (with its TTL cache). */
export function ensNameResolver(ens: Pick<EnsResolver, 'resolve'>): NameResolver {
  return {
    async resolve(name) {
      try {
        return await ens.resolve(name, ['value']);
      } catch (err) {
        // A definite "no address" (or a name viem refuses) is a 422 there; an outage is not.
        if (err instanceof ValidationFailed) return null;
        throw err;
      }
    },
  };
}

export function createEnsMonitor(opts: EnsMonitorOptions): EnsMonitor {
  const { db, log } = opts;
  const now = opts.now ?? Date.now;
  const intervalMs = (opts.intervalSeconds ?? ENS_RECHECK_SECONDS) * 1000;
  const defs = new Map((opts.lists ?? LISTS).map((d) => [d.slug, d]));
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;

  async function check(m: {
    id: number;
    customer_id: number;
    value: string;
    label: string | null;
    ens_address: string | null;
    ens_seq: number;
  }): Promise<number> {
    let address: string | null;
    try {
      address = await opts.names.resolve(m.value);
    } catch (err) {
      log.warn(
        { monitored_entity: m.id, error: (err as Error).message },
        'ENS re-resolution failed; kept the last address',
      );
      return 0;
    }
    const at = new Date(now());
    if (address === m.ens_address) {
      await db.query('UPDATE monitored_entities SET ens_checked_at = $2 WHERE id = $1', [m.id, at.toISOString()]);
      return 0;
    }
    const hits = address ? (await opts.listings(address)).filter((r) => matchOne('crypto', address!, r) !== null) : [];
    return db.transaction(async (tx) => {
      const upd = await tx.query<{ ens_seq: number }>(
        `UPDATE monitored_entities SET ens_address = $2, ens_seq = ens_seq + 1, ens_checked_at = $3
         WHERE id = $1 AND ens_seq = $4 RETURNING ens_seq`,
        [m.id, address, at.toISOString(), m.ens_seq],
      );
      // Deleted, or another node got there first.
      if (upd.rows.length === 0) return 0;
      const seq = upd.rows[0].ens_seq;
      let n = 0;
      for (const r of hits) {
        const def = defs.get(r.list);
        if (!def) continue;
        const row: EventRow = {
          id: eventId({
            customerId: m.customer_id,
            monitoredEntityId: m.id,
            list: r.list,
            entityType: r.entity_type,
            canonicalValue: canonicalKey(r.entity_type, r.value)!,
            kind: 'listed',
            version: `ens:${seq}`,
            at: '',
          }),
          type: 'entity.listed',
          created_at: at.toISOString(),
          change_id: null,
          monitored_entity_id: m.id,
          entity_type: 'onchain_address',
          value: m.value,
          label: m.label,
          listing: listingJson(def, r),
        };
        if (await insertEvent(tx, m.customer_id, row, at)) n++;
      }
      return n;
    });
  }

  async function runOnce(): Promise<number> {
    const due = new Date(now() - intervalMs).toISOString();
    const { rows } = await db.query<{
      id: number;
      customer_id: number;
      value: string;
      label: string | null;
      ens_address: string | null;
      ens_seq: number;
    }>(
      `SELECT id, customer_id, value, label, ens_address, ens_seq FROM monitored_entities
       WHERE entity_type = 'onchain_address' AND position('.' in value) > 0
         AND (ens_checked_at IS NULL OR ens_checked_at <= $1)
       ORDER BY ens_checked_at NULLS FIRST, id LIMIT $2`,
      [due, opts.batch ?? 500],
    );
    let events = 0;
    for (const m of rows) events += await check(m);
    if (events > 0) log.info({ names: rows.length, events }, 'ENS re-resolution queued webhook events');
    return events;
  }

  function schedule(): void {
    if (stopped) return;
    // Poll at a fraction of the interval so each name is re-resolved close to its due time.
    timer = setTimeout(
      () => {
        running = runOnce()
          .catch((err: unknown) => {
            log.error({ err }, 'ENS monitor run failed');
            return 0;
          })
          .finally(() => {
            running = null;
            schedule();
          });
      },
      Math.max(1000, Math.min(intervalMs / 10, 60_000)),
    );
    timer.unref();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
    runOnce,
  };
}
