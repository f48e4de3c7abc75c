import type { Logger } from 'pino';
import type { EntityRecord } from '../../engine/model.js';
import { matchOne, screenProbes } from '../../engine/match-one.js';
import { canonicalKey, normalizeGovernmentId } from '../../engine/normalize/index.js';
import type { ChangeSink, ListChange } from '../../loaders/diff.js';
import type { ListDefinition } from '../../loaders/types.js';
import type { Db, Queryable } from '../store/db.js';
import { KINDS, type ScreeningKinds } from '../core/kinds.js';
import type { KindRule } from '../../engine/kinds.js';
import { eventId, type EventRow, type MonitoredEntityType } from './events.js';
import { insertEvent } from './outbox.js';
import { isEnsName } from './store.js';

/**
 * The webhook outbox as a sink of list changes. For each change it finds the monitored values a
 * screening would match to the changed entity (engine/match-one.ts: same normalizers and match
 * kinds), and writes one event per (customer, monitored entity, change) — one transaction per
 * list version and customer, so a customer's events of a version appear together or not at all.
 *
 * Monitored values are indexed by the exact-index keys their screening probes (canonical key,
 * e-mail and website parent domains, regions of a country and a region's country); a change looks
 * up its own canonical key and each candidate is confirmed by `matchOne`. Government IDs also
 * match fuzzily: candidates come from one-deletion neighbourhoods (see MonitorIndex). An ENS name is matched
 * through its last resolution (see ens.ts).
 *
 * The loaders deliver changes at least once; event ids are deterministic and inserted with
 * ON CONFLICT DO NOTHING, so a redelivered change neither duplicates an event nor re-queues it.
 * A change of a customer's private list makes events for that customer's monitored values only.
 */

export interface Monitor {
  id: number;
  customer_id: number;
  entity_type: MonitoredEntityType;
  value: string;
  label: string | null;
  /** The value screened: the value itself, or an ENS name's resolved address. */
  screened: string;
}

export interface WebhookSinkOptions {
  db: Db;
  log: Logger;
  /** A list's definition (registry or uploaded), for `list_name`, `list_type` and a private list's owner. */
  list: (slug: string) => Pick<ListDefinition, 'slug' | 'display_name' | 'list_type' | 'owner'> | undefined;
  /** Clock (ms) for the first attempt time of new deliveries. */
  now?: () => number;
  /** Called with the number of events created by each write (metrics). */
  onEvents?: (created: number) => void;
  /** The kinds values are monitored as (default: the service's own). */
  kinds?: ScreeningKinds;
}

/**
 * A fuzzy ID match allows one edit below 20 characters (`idSimilarity` ≥ 0.9 is at most
 * max(length, 10) / 10 edits): pairs of shorter IDs are found through their one-deletion
 * neighbourhoods (two strings within one substitution, insertion, deletion or transposition share
 * a string of the neighbourhoods); longer IDs are compared one by one.
 */
const ID_SHORT = 20;

function deletions(key: string): string[] {
  const out = [key];
  for (let i = 0; i < key.length; i++) out.push(key.slice(0, i) + key.slice(i + 1));
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, v: V): void {
  const list = map.get(key);
  if (list) list.push(v);
  else map.set(key, [v]);
}

export class MonitorIndex {
  private readonly byKey = new Map<string, Monitor[]>();
  private readonly idNeighbours = new Map<string, Monitor[]>();
  private readonly longIds: Monitor[] = [];
  private readonly allIds: Monitor[] = [];

  private readonly kindOf = new Map<Monitor, KindRule>();

  /** Monitors of a type no kind of `kinds` has (stored by a service with more kinds) are left out. */
  constructor(monitors: Monitor[], kinds: ScreeningKinds = KINDS) {
    for (const m of monitors) {
      const kind = kinds.monitored(m.entity_type)?.rule;
      if (!kind) continue;
      this.kindOf.set(m, kind);
      for (const p of screenProbes(kind, m.screened)) push(this.byKey, `${p.entity_type}\u0000${p.key}`, m);
      if (!kind.fuzzyIds) continue;
      const key = normalizeGovernmentId(m.screened);
      if (!key) continue;
      this.allIds.push(m);
      if (key.length >= ID_SHORT) this.longIds.push(m);
      else for (const d of new Set(deletions(key))) push(this.idNeighbours, d, m);
    }
  }

  /** Monitored values a screening of which matches `record`. */
  matching(record: EntityRecord): Monitor[] {
    const key = canonicalKey(record.entity_type, record.value);
    if (key === null) return [];
    const candidates = new Set(this.byKey.get(`${record.entity_type}\u0000${key}`) ?? []);
    if (record.entity_type === 'government_id') {
      if (key.length >= ID_SHORT) for (const m of this.allIds) candidates.add(m);
      else {
        for (const d of deletions(key)) for (const m of this.idNeighbours.get(d) ?? []) candidates.add(m);
        for (const m of this.longIds) candidates.add(m);
      }
    }
    return [...candidates].filter((m) => matchOne(this.kindOf.get(m)!, m.screened, record) !== null);
  }
}

/** Every monitored value of every customer, ENS names through their resolution (unresolved ones left out). */
async function loadMonitors(db: Queryable, where = 'TRUE', params: unknown[] = []): Promise<Monitor[]> {
  const { rows } = await db.query<Omit<Monitor, 'screened'> & { ens_address: string | null }>(
    `SELECT id, customer_id, entity_type, value, label, ens_address FROM monitored_entities WHERE ${where}`,
    params,
  );
  const out: Monitor[] = [];
  for (const r of rows) {
    const ens = isEnsName(r.entity_type, r.value);
    if (ens && !r.ens_address) continue;
    out.push({
      id: r.id,
      customer_id: r.customer_id,
      entity_type: r.entity_type,
      value: r.value,
      label: r.label,
      screened: ens ? r.ens_address! : r.value,
    });
  }
  return out;
}

export function listingJson(
  def: Pick<ListDefinition, 'slug' | 'display_name' | 'list_type'>,
  record: EntityRecord,
): string {
  return JSON.stringify({
    list: def.slug,
    list_name: def.display_name,
    list_type: def.list_type,
    value: record.value,
    source_url: record.source_url,
    metadata: record.metadata,
  });
}

const TYPE = { listed: 'entity.listed', delisted: 'entity.delisted', relisted: 'entity.relisted' } as const;

export function createWebhookSink(opts: WebhookSinkOptions): ChangeSink {
  const { db, log } = opts;
  const now = opts.now ?? Date.now;
  return {
    async write(changes: ListChange[]): Promise<void> {
      if (changes.length === 0) return;
      const index = new MonitorIndex(await loadMonitors(db), opts.kinds);
      // (list, version, customer) → events, in change order.
      const groups = new Map<string, { customerId: number; events: EventRow[] }>();
      for (const change of changes) {
        const def = opts.list(change.list);
        if (!def) {
          log.warn({ list: change.list }, 'list change of an unknown list: no webhook events');
          continue;
        }
        // A private list's changes reach its owner's monitored values only.
        const matches = index
          .matching(change.record)
          .filter((m) => def.owner === undefined || m.customer_id === def.owner);
        if (matches.length === 0) continue;
        const canonical = canonicalKey(change.record.entity_type, change.record.value)!;
        const listing = listingJson(def, change.record);
        for (const m of matches) {
          const group = `${change.list}\u0000${change.version}\u0000${m.customer_id}`;
          let g = groups.get(group);
          if (!g) groups.set(group, (g = { customerId: m.customer_id, events: [] }));
          g.events.push({
            id: eventId({
              customerId: m.customer_id,
              monitoredEntityId: m.id,
              list: change.list,
              entityType: change.record.entity_type,
              canonicalValue: canonical,
              kind: change.kind,
              version: change.version,
              at: change.at,
            }),
            type: TYPE[change.kind],
            created_at: change.at,
            change_id: change.change_id,
            monitored_entity_id: m.id,
            entity_type: m.entity_type,
            value: m.value,
            label: m.label,
            listing,
          });
        }
      }
      let created = 0;
      const due = new Date(now());
      for (const { customerId, events } of groups.values()) {
        created += await db.transaction(async (tx) => {
          let n = 0;
          for (const e of events) if (await insertEvent(tx, customerId, e, due)) n++;
          return n;
        });
      }
      if (created > 0) log.info({ changes: changes.length, events: created }, 'webhook events queued');
      opts.onEvents?.(created);
    },
  };
}
