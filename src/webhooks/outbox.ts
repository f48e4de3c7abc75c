import type { Queryable } from '../store/db.js';
import type { EventRow } from './events.js';

/**
 * Writes one event into the outbox and queues its deliveries, inside the caller's transaction.
 * The event id is deterministic, so a second write of the same event changes nothing (and queues
 * nothing): deliveries are created only with the event, for the customer's endpoints enabled at
 * that moment (or the one endpoint given, for test events). A monitored entity deleted meanwhile
 * gives the event a null `monitored_entity_id`, as its deletion would have. Returns whether the
 * event was new.
 */
export async function insertEvent(
  tx: Queryable,
  customerId: number,
  event: EventRow,
  dueAt: Date,
  onlyEndpoint?: number,
): Promise<boolean> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO webhook_events (id, customer_id, type, created_at, monitored_entity_id, entity_type, value, label, listing, change_id,
       subject)
     VALUES ($1, $2, $3, $4, (SELECT id FROM monitored_entities WHERE id = $5::int), $6, $7, $8, $9, $10, $11)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      event.id,
      customerId,
      event.type,
      event.created_at,
      event.monitored_entity_id,
      event.entity_type,
      event.value,
      event.label,
      event.listing,
      event.change_id,
      event.subject ?? null,
    ],
  );
  if (rows.length === 0) return false;
  await tx.query(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
     SELECT $1, e.id, $2 FROM webhook_endpoints e
     WHERE e.customer_id = $3 AND e.enabled AND ($4::int IS NULL OR e.id = $4::int)
     ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
    [event.id, dueAt.toISOString(), customerId, onlyEndpoint ?? null],
  );
  return true;
}
