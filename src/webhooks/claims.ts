import type { Db } from '../store/db.js';
import type { AttemptOutcome } from './attempt.js';
import type { EventRow } from './events.js';

/**
 * The outbox's SQL, one statement group per step of a delivery: claim the due ones, read what to
 * send, log the attempt as started, record its outcome. Transport-free and metric-free: the
 * worker in delivery.ts decides, counts and logs.
 */

/**
 * The error of an attempt that never got an outcome: the node running it stopped (killed,
 * crashed) while its POST was out, so the receiver may have got it.
 */
export const INTERRUPTED_ERROR = 'interrupted: the service stopped during the attempt';

export interface ClaimedDelivery {
  id: number;
  endpoint_id: number;
}

export interface ClaimLimits {
  at: Date;
  /** Deliveries this node may still start. */
  capacity: number;
  perEndpoint: number;
  leaseMs: number;
  /** Attempts in flight on this node per endpoint, beside the leases other nodes hold. */
  inFlight: ReadonlyMap<number, number>;
}

/**
 * Claims the due deliveries within the limits (`FOR UPDATE SKIP LOCKED`, so nodes never claim one
 * twice) and leases them for `leaseMs`.
 */
export async function claimDueDeliveries(db: Db, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const { at, capacity, perEndpoint } = limits;
  const nowIso = at.toISOString();
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<ClaimedDelivery>(
      `SELECT d.id, d.endpoint_id FROM webhook_deliveries d
       WHERE d.id IN (
         SELECT r.id FROM (
           SELECT x.id, row_number() OVER (PARTITION BY x.endpoint_id ORDER BY x.next_attempt_at, x.id) AS rn
           FROM webhook_deliveries x JOIN webhook_endpoints e ON e.id = x.endpoint_id
           WHERE x.status = 'pending' AND e.enabled AND x.next_attempt_at <= $1
             AND (x.locked_until IS NULL OR x.locked_until <= $1)
         ) r WHERE r.rn <= $2)
       ORDER BY d.next_attempt_at, d.id
       LIMIT $3
       FOR UPDATE OF d SKIP LOCKED`,
      [nowIso, perEndpoint, capacity],
    );
    if (rows.length === 0) return [];
    const endpoints = [...new Set(rows.map((r) => r.endpoint_id))];
    const leased = await tx.query<{ endpoint_id: number; n: number }>(
      `SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries
       WHERE status = 'pending' AND locked_until > $1 AND endpoint_id = ANY($2::int[]) GROUP BY endpoint_id`,
      [nowIso, endpoints],
    );
    const busy = new Map<number, number>(leased.rows.map((r) => [r.endpoint_id, r.n]));
    for (const [ep, n] of limits.inFlight) busy.set(ep, Math.max(busy.get(ep) ?? 0, n));
    const taken = rows.filter((r) => {
      const n = busy.get(r.endpoint_id) ?? 0;
      if (n >= perEndpoint) return false;
      busy.set(r.endpoint_id, n + 1);
      return true;
    });
    if (taken.length > 0) {
      await tx.query('UPDATE webhook_deliveries SET locked_until = $2 WHERE id = ANY($1::int[])', [
        taken.map((r) => r.id),
        new Date(at.getTime() + limits.leaseMs).toISOString(),
      ]);
    }
    return taken;
  });
}

/** What a pending delivery sends, with its endpoint's current URL and secret (a rotation takes effect at once). */
export async function deliveryToSend(
  db: Db,
  deliveryId: number,
): Promise<{ url: string; secret: string; event: EventRow } | undefined> {
  const { rows } = await db.query<EventRow & { url: string; secret: string }>(
    `SELECT ev.id, ev.type, ev.created_at, ev.change_id, ev.monitored_entity_id, ev.entity_type, ev.value, ev.label,
       ev.listing, ev.subject::text AS subject, e.url, e.secret
     FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.id = $1 AND d.status = 'pending'`,
    [deliveryId],
  );
  if (!rows[0]) return undefined;
  const { url, secret, ...event } = rows[0];
  return { url, secret, event };
}

/**
 * How logging an attempt as started went: `attempt` is its number, null when the delivery is no
 * longer pending or the interrupted attempt was its last (`failed`: this call failed it).
 */
export interface AttemptStart {
  /** Earlier attempts left without an outcome by a node that stopped, now marked interrupted. */
  interrupted: number[];
  attempt: number | null;
  failed: boolean;
}

/**
 * Logs the next attempt as started, with no outcome yet, before its POST leaves, so that a node
 * killed during the attempt leaves it in the log. An earlier attempt still without an outcome was
 * interrupted that way (its lease expired, hence this claim): it is marked so and counts as a
 * failed attempt, which may have been the last of `maxAttempts`.
 */
export async function recordAttemptStart(
  db: Db,
  deliveryId: number,
  startedAt: string,
  maxAttempts: number,
): Promise<AttemptStart> {
  return db.transaction(async (tx) => {
    const cut = await tx.query<{ attempt: number }>(
      `UPDATE webhook_attempts SET error = $2 WHERE delivery_id = $1 AND status_code IS NULL AND error IS NULL
       RETURNING attempt`,
      [deliveryId, INTERRUPTED_ERROR],
    );
    const interrupted = cut.rows.map((r) => r.attempt);
    const next = await tx.query<{ attempts: number }>(
      `UPDATE webhook_deliveries SET attempts = attempts + 1
       WHERE id = $1 AND status = 'pending' AND attempts < $2 RETURNING attempts`,
      [deliveryId, maxAttempts],
    );
    const attempt = next.rows[0]?.attempts;
    if (attempt === undefined) {
      const failed = await tx.query(
        `UPDATE webhook_deliveries SET status = 'failed', locked_until = NULL, last_status_code = NULL, last_error = $2,
           last_latency_ms = NULL, completed_at = $3
         WHERE id = $1 AND status = 'pending' RETURNING 1`,
        [deliveryId, INTERRUPTED_ERROR, startedAt],
      );
      return { interrupted, attempt: null, failed: failed.rows.length > 0 };
    }
    await tx.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
       VALUES ($1, $2, $3, NULL, 0, NULL)`,
      [deliveryId, attempt, startedAt],
    );
    return { interrupted, attempt, failed: false };
  });
}

/** Where an attempt leaves its delivery: `completedAt` null while it stays pending. */
export interface DeliveryNext {
  status: 'delivered' | 'failed' | 'pending';
  nextAttemptAt: string;
  completedAt: string | null;
}

/**
 * Records attempt `attempt`'s outcome and moves its delivery on; false when the delivery was no
 * longer pending (nothing moved).
 */
export async function recordAttemptOutcome(
  db: Db,
  deliveryId: number,
  attempt: number,
  out: AttemptOutcome,
  next: DeliveryNext,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query(
      'UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, error = $5 WHERE delivery_id = $1 AND attempt = $2',
      [deliveryId, attempt, out.status, out.latencyMs, out.error],
    );
    const updated = await tx.query(
      `UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, locked_until = NULL, last_status_code = $4,
         last_error = $5, last_latency_ms = $6, completed_at = $7 WHERE id = $1 AND status = 'pending' RETURNING 1`,
      [deliveryId, next.status, next.nextAttemptAt, out.status, out.error, out.latencyMs, next.completedAt],
    );
    return updated.rows.length > 0;
  });
}
