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
 * reaches the audit trail whole and costs the alert store one statement per 500 alerts; pushes of
 * one match, however many, are merged into one row of one statement; a strict write is stored
 * when it resolves.
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

test('a 10,000-row push of 2,500 alerts is 5 statements; the audit trail gets every row', async () => {
  const { db } = await BACKENDS[0].database();
  const customer = await new CustomerService(db, 1000).createCustomer({ name: 'sink' });
  const { db: countingDb, inserts } = counted(db);
  const sink = alertingAuditSink(
    audit().matches,
    new AlertStore(countingDb, { decisions: audit().alertDecisions, log }),
    log,
  );
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
    evidence: {},
  }));
  sink.push(rows);
  await sink.idle();
  assert.equal(inserts(), 5);
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

test('1,000 pushes of one match are one statement; a write resolves once its alert is stored', async () => {
  const { db } = await BACKENDS[0].database();
  const customer = await new CustomerService(db, 1000).createCustomer({ name: 'sink-merge' });
  const { db: countingDb, inserts } = counted(db);
  const sink = alertingAuditSink(
    audit().matches,
    new AlertStore(countingDb, { decisions: audit().alertDecisions, log }),
    log,
  );
  const time = Date.parse('2026-11-03T00:00:00.000Z');
  const match = (i: number): AuditMatchRow => ({
    time: time + i,
    customer_id: customer.id,
    payer: '',
    request_id: `single-${i}`,
    endpoint: 'screen.crypto',
    screened_value: '0xfeed',
    matched_value: '0xfeed',
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'exact',
    list_version: 'v1',
    as_of: null,
    evidence: { value: '0xfeed', request: i },
  });
  for (let i = 0; i < 1000; i++) sink.push([match(i)]);
  await sink.idle();
  assert.equal(inserts(), 1);
  const stored = async () =>
    (
      await db.query<{ occurrences: number; last_seen: Date | string; evidence: { request: number } }>(
        'SELECT occurrences, last_seen, evidence FROM alerts WHERE customer_id = $1',
        [customer.id],
      )
    ).rows.map((r) => [r.occurrences, new Date(r.last_seen).toISOString(), r.evidence.request]);
  assert.deepEqual(await stored(), [[1000, new Date(time + 999).toISOString(), 999]]);
  await sink.write([match(5000)]);
  assert.equal(inserts(), 2);
  assert.deepEqual(await stored(), [[1001, new Date(time + 5000).toISOString(), 5000]]);
});
