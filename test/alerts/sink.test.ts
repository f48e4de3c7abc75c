import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import { CustomerService } from '../../src/billing/customers.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import { AlertStore } from '../../src/alerts/store.js';
import { alertingAuditSink } from '../../src/alerts/sink.js';
import type { Db } from '../../src/store/db.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';

/**
 * The audit sink that feeds alerts, on the real chDB audit store and PGlite: a 10,000-row batch
 * reaches the audit trail whole and costs the alert store one statement.
 */
after(closeBackends);
const audit = fileAuditStore('alerts-sink-');
const log = pino({ level: 'silent' });

/** The database, counting the statements that touch `alerts`. */
function counted(db: Db): { db: Db; inserts: () => number } {
  let n = 0;
  const wrapped: Db = Object.create(db) as Db;
  wrapped.query = ((sql: string, params?: unknown[]) => {
    if (/INSERT INTO alerts/.test(sql)) n++;
    return db.query(sql, params);
  }) as Db['query'];
  return { db: wrapped, inserts: () => n };
}

test('a 10,000-row push is one alert statement; the audit trail gets every row', async () => {
  const { db } = await BACKENDS[0].database();
  const customer = await new CustomerService(db, 1000).createCustomer({ name: 'sink' });
  const { db: countingDb, inserts } = counted(db);
  const sink = alertingAuditSink(audit().matches, new AlertStore(countingDb), log);
  const time = Date.parse('2026-11-02T00:00:00.000Z');
  const rows: AuditMatchRow[] = Array.from({ length: 10_000 }, (_, i) => ({
    time,
    customer_id: customer.id,
    payer: '',
    request_id: 'batch-1',
    endpoint: 'screen.batch',
    screened_value: `value ${i % 2500}`,
    matched_value: `listed ${i % 2500}`,
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'fuzzy',
    list_version: 'v1',
    as_of: null,
  }));
  sink.push(rows);
  await sink.idle();
  assert.equal(inserts(), 1);
  const { rows: stored } = await db.query<{ n: number; total: number }>(
    'SELECT count(*)::int AS n, sum(occurrences)::int AS total FROM alerts WHERE customer_id = $1',
    [customer.id],
  );
  assert.deepEqual(stored[0], { n: 2500, total: 10_000 });
  await audit().matches.flush();
  const range = { from: time, to: time + 1 };
  const trail = await audit().queries.auditTrail(customer.id, range, { limit: 1, offset: 0 });
  assert.equal(trail.total, 10_000);
});
