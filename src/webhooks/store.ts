import { randomUUID } from 'node:crypto';
import { valueProblem } from '../../engine/normalize/validate.js';
import { getList, PRIMARY_LIST } from '../../loaders/registry.js';
import type { Db } from '../store/db.js';
import { KINDS, type ScreeningKinds } from '../core/kinds.js';
import {
  eventFromRow,
  type EventRow,
  type MonitoredEntityType,
  type WebhookEvent,
  type WebhookEventType,
} from './events.js';
import { INTERRUPTED_ERROR } from './claims.js';
import { insertEvent } from './outbox.js';
import { newSigningSecret } from './signature.js';
import { resolveWebhookTarget, type Lookup, type UrlPolicy } from './ssrf.js';

/**
 * The customer's monitoring configuration (dashboard API and CLI): monitored values, webhook
 * endpoints with their signing secrets, test events, and the delivery log. Transport-free: the
 * errors below are turned into HTTP answers by src/api/endpoints/monitoring.ts.
 */

/** A value that cannot be monitored as the given type (422 on `value`). */
export class MonitorValueError extends Error {}
/** A refused webhook URL (422 on `url`). */
export { WebhookUrlError } from './ssrf.js';
/** The operation does not apply in the endpoint's state (409). */
export class WebhookStateError extends Error {}

/**
 * ENS names → addresses for monitored names: the lower-case address, null when the name has no
 * address (yet); throws when resolution is unavailable.
 */
export interface NameResolver {
  resolve(name: string): Promise<string | null>;
}

export interface MonitoredEntityView {
  id: number;
  entity_type: MonitoredEntityType;
  value: string;
  label: string | null;
  /** For an ENS name: the address of its last resolution (null while it has none); else null. */
  resolved_address: string | null;
  created_at: string;
  /** The latest listing change of the value (its last event), null while none happened since it was added. */
  last_event: { type: WebhookEventType; list: string; at: string } | null;
}

export interface WebhookEndpointView {
  id: number;
  url: string;
  enabled: boolean;
  /** The secret's first characters (`whsec_` and 4 more), to tell secrets apart. */
  secret_prefix: string;
  secret_rotated_at: string;
  created_at: string;
}

interface WebhookAttemptView {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  event_id: string;
  event_type: WebhookEventType;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  created_at: string;
  completed_at: string | null;
  attempt_log: WebhookAttemptView[];
}

/** The error shown for an attempt whose POST is out, without an outcome yet. */
const IN_FLIGHT = 'in flight';

/**
 * The error shown for an attempt. One without an outcome (no status, no error) is in flight while
 * its delivery's lease holds; after that its node stopped during it: it was interrupted (the
 * worker stores that when it claims the delivery again).
 */
function attemptError(attempt: Record<string, unknown>, delivery: Record<string, unknown>, now: number): string | null {
  if (attempt.status_code !== null || attempt.error !== null) return (attempt.error as string | null) ?? null;
  const lease = delivery.locked_until;
  const leased = delivery.status === 'pending' && lease !== null && new Date(lease as string | Date).getTime() > now;
  return leased ? IN_FLIGHT : INTERRUPTED_ERROR;
}

/** True for an `onchain_address` value that is an ENS name (it has a dot), as screening decides. */
export function isEnsName(entityType: string, value: string): boolean {
  return entityType === 'onchain_address' && value.includes('.');
}

const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));

type MonitorRow = {
  id: number;
  entity_type: MonitoredEntityType;
  value: string;
  label: string | null;
  ens_address: string | null;
  created_at: unknown;
  last_type?: WebhookEventType | null;
  last_list?: string | null;
  last_at?: string | null;
};
type EndpointRow = {
  id: number;
  url: string;
  enabled: boolean;
  secret: string;
  secret_rotated_at: unknown;
  created_at: unknown;
};

function monitorView(r: MonitorRow): MonitoredEntityView {
  const last = r.last_type && r.last_list && r.last_at ? { type: r.last_type, list: r.last_list, at: r.last_at } : null;
  return {
    id: r.id,
    entity_type: r.entity_type,
    value: r.value,
    label: r.label,
    resolved_address: r.ens_address,
    created_at: iso(r.created_at),
    last_event: last,
  };
}

function endpointView(r: EndpointRow): WebhookEndpointView {
  return {
    id: r.id,
    url: r.url,
    enabled: r.enabled,
    secret_prefix: r.secret.slice(0, 10),
    secret_rotated_at: iso(r.secret_rotated_at),
    created_at: iso(r.created_at),
  };
}

/** Throws MonitorValueError unless the type is a kind's and the value passes the validator screening applies to it. */
function checkValue(kinds: ScreeningKinds, type: MonitoredEntityType, value: string): void {
  const kind = kinds.monitored(type);
  if (!kind) throw new MonitorValueError(`not a monitored entity type: use one of ${kinds.monitorTypes.join(', ')}`);
  const problem = valueProblem(kind.rule, value);
  if (problem !== null) throw new MonitorValueError(problem);
}

export interface WebhookStoreOptions {
  policy: UrlPolicy;
  /** ENS resolution of monitored names; without it a name is stored unresolved (the ENS monitor resolves it later). */
  names?: NameResolver;
  lookup?: Lookup;
  now?: () => number;
  /** The kinds a value may be monitored as (default: the service's own). */
  kinds?: ScreeningKinds;
}

const TEST_ADDRESS = '0x0000000000000000000000000000000000000000';

export class WebhookStore {
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly opts: WebhookStoreOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  async createMonitor(
    customerId: number,
    input: { entity_type: MonitoredEntityType; value: string; label?: string | null },
  ): Promise<MonitoredEntityView> {
    const value = input.value.trim();
    checkValue(this.opts.kinds ?? KINDS, input.entity_type, value);
    let ens: string | null = null;
    let checked: string | null = null;
    if (isEnsName(input.entity_type, value) && this.opts.names) {
      try {
        ens = await this.opts.names.resolve(value);
        checked = new Date(this.now()).toISOString();
      } catch {
        // Resolution unavailable: stored unresolved; the ENS monitor's first resolution follows.
      }
    }
    const { rows } = await this.db.query<MonitorRow>(
      `INSERT INTO monitored_entities (customer_id, entity_type, value, label, ens_address, ens_checked_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING id, entity_type, value, label, ens_address, created_at`,
      [customerId, input.entity_type, value, input.label ?? null, ens, checked, new Date(this.now()).toISOString()],
    );
    return monitorView(rows[0]);
  }

  async listMonitors(customerId: number): Promise<MonitoredEntityView[]> {
    const { rows } = await this.db.query<MonitorRow>(
      `SELECT m.id, m.entity_type, m.value, m.label, m.ens_address, m.created_at,
              e.type AS last_type, e.listing::json->>'list' AS last_list, e.created_at AS last_at
         FROM monitored_entities m
         LEFT JOIN LATERAL (
           SELECT type, listing, created_at FROM webhook_events
            WHERE monitored_entity_id = m.id ORDER BY inserted_at DESC, id DESC LIMIT 1
         ) e ON true
        WHERE m.customer_id = $1 ORDER BY m.id`,
      [customerId],
    );
    return rows.map(monitorView);
  }

  /** Deletes a monitored value; its queued events stay and are delivered with `monitored_entity.id` null. */
  async deleteMonitor(customerId: number, id: number): Promise<MonitoredEntityView | null> {
    const { rows } = await this.db.query<MonitorRow>(
      `DELETE FROM monitored_entities WHERE id = $1 AND customer_id = $2
       RETURNING id, entity_type, value, label, ens_address, created_at`,
      [id, customerId],
    );
    return rows[0] ? monitorView(rows[0]) : null;
  }

  /** Creates an endpoint after the SSRF check; the secret is returned only here. */
  async createEndpoint(
    customerId: number,
    input: { url: string; enabled?: boolean },
  ): Promise<WebhookEndpointView & { secret: string }> {
    await resolveWebhookTarget(input.url, this.opts.policy, this.opts.lookup);
    const secret = newSigningSecret();
    const at = new Date(this.now()).toISOString();
    const { rows } = await this.db.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (customer_id, url, enabled, secret, secret_rotated_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       RETURNING id, url, enabled, secret, secret_rotated_at, created_at`,
      [customerId, input.url, input.enabled ?? true, secret, at],
    );
    return { ...endpointView(rows[0]), secret };
  }

  async listEndpoints(customerId: number): Promise<WebhookEndpointView[]> {
    const { rows } = await this.db.query<EndpointRow>(
      'SELECT id, url, enabled, secret, secret_rotated_at, created_at FROM webhook_endpoints WHERE customer_id = $1 ORDER BY id',
      [customerId],
    );
    return rows.map(endpointView);
  }

  async updateEndpoint(
    customerId: number,
    id: number,
    change: { url?: string; enabled?: boolean },
  ): Promise<WebhookEndpointView | null> {
    if (change.url !== undefined) await resolveWebhookTarget(change.url, this.opts.policy, this.opts.lookup);
    const { rows } = await this.db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET url = COALESCE($3, url), enabled = COALESCE($4, enabled)
       WHERE id = $1 AND customer_id = $2
       RETURNING id, url, enabled, secret, secret_rotated_at, created_at`,
      [id, customerId, change.url ?? null, change.enabled ?? null],
    );
    return rows[0] ? endpointView(rows[0]) : null;
  }

  /** Deletes an endpoint with its pending deliveries and delivery log. */
  async deleteEndpoint(customerId: number, id: number): Promise<WebhookEndpointView | null> {
    const { rows } = await this.db.query<EndpointRow>(
      `DELETE FROM webhook_endpoints WHERE id = $1 AND customer_id = $2
       RETURNING id, url, enabled, secret, secret_rotated_at, created_at`,
      [id, customerId],
    );
    return rows[0] ? endpointView(rows[0]) : null;
  }

  /**
   * Replaces the signing secret. Attempts read the secret when they sign, so from this commit on
   * nothing is signed with the old one, retries of earlier events included.
   */
  async rotateSecret(customerId: number, id: number): Promise<(WebhookEndpointView & { secret: string }) | null> {
    const secret = newSigningSecret();
    const { rows } = await this.db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET secret = $3, secret_rotated_at = $4 WHERE id = $1 AND customer_id = $2
       RETURNING id, url, enabled, secret, secret_rotated_at, created_at`,
      [id, customerId, secret, new Date(this.now()).toISOString()],
    );
    return rows[0] ? { ...endpointView(rows[0]), secret } : null;
  }

  /**
   * Queues a `test` event for one endpoint, delivered (signed, retried, logged) like any other.
   * Its monitored entity and listing are samples: `monitored_entity.id` is null and the listing
   * names the primary sanctions list with the zero address.
   */
  async sendTest(customerId: number, endpointId: number): Promise<{ event: WebhookEvent; delivery_id: number } | null> {
    const { rows } = await this.db.query<{ enabled: boolean }>(
      'SELECT enabled FROM webhook_endpoints WHERE id = $1 AND customer_id = $2',
      [endpointId, customerId],
    );
    if (!rows[0]) return null;
    if (!rows[0].enabled) throw new WebhookStateError('the endpoint is disabled: enable it to send a test event');
    const primary = getList(PRIMARY_LIST)!;
    const at = new Date(this.now());
    const row: EventRow = {
      id: `evt_test_${randomUUID()}`,
      type: 'test',
      created_at: at.toISOString(),
      change_id: null,
      monitored_entity_id: null,
      entity_type: 'onchain_address',
      value: TEST_ADDRESS,
      label: 'Test event',
      listing: JSON.stringify({
        list: primary.slug,
        list_name: primary.display_name,
        list_type: primary.list_type,
        value: TEST_ADDRESS,
        source_url: null,
        metadata: {},
      }),
    };
    const deliveryId = await this.db.transaction(async (tx) => {
      await insertEvent(tx, customerId, row, at, endpointId);
      const d = await tx.query<{ id: number }>(
        'SELECT id FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2',
        [row.id, endpointId],
      );
      return d.rows[0].id;
    });
    return { event: eventFromRow(row), delivery_id: deliveryId };
  }

  /** The endpoint's deliveries, newest first, each with its attempts; null for an unknown endpoint. */
  async deliveries(
    customerId: number,
    endpointId: number,
    page: { status?: 'pending' | 'delivered' | 'failed'; limit: number; offset: number },
  ): Promise<{ total: number; items: WebhookDeliveryView[] } | null> {
    const owner = await this.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND customer_id = $2', [
      endpointId,
      customerId,
    ]);
    if (owner.rows.length === 0) return null;
    const status = page.status ?? null;
    const count = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND ($2::text IS NULL OR status = $2::text)',
      [endpointId, status],
    );
    const { rows } = await this.db.query<Record<string, unknown>>(
      `SELECT d.id, d.event_id, ev.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
              d.last_error, d.last_latency_ms, d.created_at, d.completed_at, d.locked_until
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2::text)
       ORDER BY d.id DESC LIMIT $3 OFFSET $4`,
      [endpointId, status, page.limit, page.offset],
    );
    const ids = rows.map((r) => r.id as number);
    const attempts = ids.length
      ? (
          await this.db.query<Record<string, unknown>>(
            `SELECT delivery_id, attempt, started_at, status_code, latency_ms, error FROM webhook_attempts
             WHERE delivery_id = ANY($1::int[]) ORDER BY delivery_id, attempt`,
            [ids],
          )
        ).rows
      : [];
    const at = this.now();
    const items = rows.map((r): WebhookDeliveryView => ({
      id: r.id as number,
      event_id: r.event_id as string,
      event_type: r.event_type as WebhookEventType,
      status: r.status as WebhookDeliveryView['status'],
      attempts: r.attempts as number,
      next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
      last_status_code: (r.last_status_code as number | null) ?? null,
      last_error: (r.last_error as string | null) ?? null,
      last_latency_ms: (r.last_latency_ms as number | null) ?? null,
      created_at: iso(r.created_at),
      completed_at: isoOrNull(r.completed_at),
      attempt_log: attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({
          attempt: a.attempt as number,
          started_at: iso(a.started_at),
          status_code: (a.status_code as number | null) ?? null,
          latency_ms: a.latency_ms as number,
          error: attemptError(a, r, at),
        })),
    }));
    return { total: count.rows[0].n, items };
  }
}
