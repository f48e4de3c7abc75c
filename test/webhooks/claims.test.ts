import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimDueDeliveries,
  deliveryToSend,
  INTERRUPTED_ERROR,
  recordAttemptOutcome,
  recordAttemptStart,
} from '../../src/webhooks/claims.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { BACKENDS, closeBackends } from '../store/backends.js';

/**
 * The outbox's statements on their own, against real databases: what a claim takes and leases,
 * how an attempt left without an outcome becomes interrupted, and that a delivery no longer
 * pending is not moved. The worker that strings them together: delivery.test.ts.
 */

after(closeBackends);

const LEASE_MS = 40_000;

for (const backend of BACKENDS)
  describe(`webhook claims on ${backend.name}`, () => {
    /** A customer with one endpoint and one due test delivery; the claim limits around it. */
    async function oneDelivery(name: string) {
      const { db } = await backend.database();
      const store = new WebhookStore(db, { policy: { allowLoopback: true, allowPrivate: false } });
      const { rows } = await db.query<{ id: number }>(
        'INSERT INTO customers (name, monthly_quota) VALUES ($1, 1000) RETURNING id',
        [name],
      );
      const ep = await store.createEndpoint(rows[0].id, { url: 'http://127.0.0.1:9/hook' });
      const sent = (await store.sendTest(rows[0].id, ep.id))!;
      const limits = (at: Date, inFlight = new Map<number, number>()) => ({
        at,
        capacity: 10,
        perEndpoint: 1,
        leaseMs: LEASE_MS,
        inFlight,
      });
      return { db, endpointId: ep.id, deliveryId: sent.delivery_id, eventId: sent.event.id, limits };
    }

    test('a claim leases what is due, once, within the per-endpoint limit', async () => {
      const { db, endpointId, deliveryId, limits } = await oneDelivery('claim');
      const at = new Date(Date.now() + 1000);
      const mine = (claimed: { id: number }[]) => claimed.filter((c) => c.id === deliveryId);
      assert.deepEqual(mine(await claimDueDeliveries(db, limits(at, new Map([[endpointId, 1]])))), []);
      assert.deepEqual(mine(await claimDueDeliveries(db, limits(at))), [{ id: deliveryId, endpoint_id: endpointId }]);
      assert.deepEqual(mine(await claimDueDeliveries(db, limits(at))), [], 'leased: not claimed twice');
      const expired = new Date(at.getTime() + LEASE_MS + 1);
      assert.deepEqual(mine(await claimDueDeliveries(db, limits(expired))), [
        { id: deliveryId, endpoint_id: endpointId },
      ]);
    });

    test('an attempt without an outcome is interrupted by the next start; after the last one the delivery fails', async () => {
      const { db, deliveryId, eventId } = await oneDelivery('interrupted');
      assert.equal((await deliveryToSend(db, deliveryId))?.event.id, eventId);
      const at = new Date().toISOString();
      assert.deepEqual(await recordAttemptStart(db, deliveryId, at, 2), { interrupted: [], attempt: 1, failed: false });
      assert.deepEqual(await recordAttemptStart(db, deliveryId, at, 2), {
        interrupted: [1],
        attempt: 2,
        failed: false,
      });
      assert.deepEqual(await recordAttemptStart(db, deliveryId, at, 2), {
        interrupted: [2],
        attempt: null,
        failed: true,
      });
      const { rows } = await db.query<{ status: string; last_error: string }>(
        'SELECT status, last_error FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.deepEqual(rows, [{ status: 'failed', last_error: INTERRUPTED_ERROR }]);
      assert.equal(await deliveryToSend(db, deliveryId), undefined, 'nothing to send once failed');
      const out = { ok: true, status: 200, error: null, latencyMs: 5, kind: 'success' as const };
      const next = { status: 'delivered' as const, nextAttemptAt: at, completedAt: at };
      assert.equal(await recordAttemptOutcome(db, deliveryId, 2, out, next), false, 'a failed delivery stays failed');
    });
  });
