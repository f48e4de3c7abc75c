import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { AlertQueries } from '../../src/alerts/queries.js';
import { AlertStore } from '../../src/alerts/store.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import { CustomerService } from '../../src/billing/customers.js';
import { SubjectInput, subjectRecord, type SubjectRecord } from '../../src/subjects/model.js';
import { SubjectLimitExceeded, SubjectStore } from '../../src/subjects/store.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';

after(closeBackends);
const audit = fileAuditStore('subjects-store-');

const subject = (externalId: string, input: Record<string, unknown>): SubjectRecord =>
  subjectRecord(externalId, SubjectInput.parse(input));

function match(customerId: number, externalId: string | undefined, time: number): AuditMatchRow {
  return {
    time,
    customer_id: customerId,
    payer: '',
    request_id: `req-${time}`,
    endpoint: 'subjects.put',
    screened_value: 'Ivan Petrov',
    matched_value: 'PETROV, Ivan',
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'fuzzy',
    list_version: 'v1',
    as_of: null,
    evidence: { metadata: { id: 'OFAC-1', score: 0.91 } },
    ...(externalId === undefined
      ? {}
      : { subject: { external_id: externalId, type: 'person', names: ['Ivan Petrov'] } }),
  };
}

for (const backend of BACKENDS) {
  describe(`subject store on ${backend.name}`, () => {
    test('upserts by external id: created, changed, unchanged; get, count, delete', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'book-upsert' });
      const store = new SubjectStore(db, { maxPerCustomer: 100 });
      const a = subject('A-1', { type: 'person', names: ['Ivan Petrov'], birth_date: '1970', countries: ['Russia'] });
      const b = subject('B-2', { type: 'organization', names: ['Acme Trading LLC'] });
      const first = await store.upsertMany(c.id, [a, b]);
      assert.deepEqual(
        first.map((r) => [r.external_id, r.created, r.changed]),
        [
          ['A-1', true, true],
          ['B-2', true, true],
        ],
      );
      const a2 = subject('A-1', { type: 'person', names: ['Ivan Petrov', 'Ivan Petroff'], birth_date: '1970' });
      const second = await store.upsertMany(c.id, [b, a2, subject('C-3', { names: ['Jane Roe'] })]);
      assert.deepEqual(
        second.map((r) => [r.external_id, r.created, r.changed]),
        [
          ['B-2', false, false],
          ['A-1', false, true],
          ['C-3', true, true],
        ],
      );
      assert.equal(second[0].id, first[1].id);
      assert.equal(second[1].id, first[0].id);
      assert.equal(await store.count(c.id), 3);
      const got = (await store.get(c.id, 'A-1'))!;
      assert.deepEqual(
        { ...got, created_at: '', updated_at: '' },
        {
          id: first[0].id,
          customer_id: c.id,
          external_id: 'A-1',
          type: 'person',
          names: ['Ivan Petrov', 'Ivan Petroff'],
          birth_date: '1970',
          countries: [],
          identifiers: [],
          values: { crypto: [], email: [], website: [] },
          created_at: '',
          updated_at: '',
          screened_at: null,
        },
      );
      await store.markScreened([got.id], new Date('2026-11-28T08:00:00.000Z'));
      assert.equal((await store.get(c.id, 'A-1'))!.screened_at, '2026-11-28T08:00:00.000Z');
      assert.equal(await store.delete(c.id, 'A-1'), true);
      assert.equal(await store.delete(c.id, 'A-1'), false);
      assert.equal(await store.get(c.id, 'A-1'), null);
      assert.equal(await store.count(c.id), 2);
    });

    test('a batch that would exceed the limit is refused whole; updates still pass at the limit', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'book-limit' });
      const store = new SubjectStore(db, { maxPerCustomer: 3 });
      await store.upsertMany(c.id, [subject('1', { names: ['Ab Cd'] }), subject('2', { names: ['Ef Gh'] })]);
      await assert.rejects(
        store.upsertMany(c.id, [subject('3', { names: ['Ij Kl'] }), subject('4', { names: ['Mn Op'] })]),
        (err: unknown) => err instanceof SubjectLimitExceeded && err.held === 2 && err.adding === 2,
      );
      assert.equal(await store.count(c.id), 2);
      assert.equal(await store.get(c.id, '3'), null);
      await store.upsertMany(c.id, [subject('3', { names: ['Ij Kl'] })]);
      const up = await store.upsertMany(c.id, [subject('1', { names: ['Ab Cd', 'Ab Ce'] })]);
      assert.deepEqual([up[0].created, up[0].changed], [false, true]);
      assert.equal(await store.count(c.id), 3);
    });

    test('list filters, searches and pages newest first; page streams every book by id', async () => {
      const { db } = await backend.database();
      const customers = new CustomerService(db, 1000);
      const c = await customers.createCustomer({ name: 'book-list' });
      const other = await customers.createCustomer({ name: 'book-list-other' });
      const store = new SubjectStore(db, { maxPerCustomer: 100 });
      const ids = await store.upsertMany(c.id, [
        subject('P-1', { type: 'person', names: ['Maria 50% Lopez'], countries: ['ES'] }),
        subject('P-2', { type: 'person', names: ['John Smith'], countries: ['GB', 'US'] }),
        subject('O-1', { type: 'organization', names: ['Smith & Sons'], countries: ['US'] }),
      ]);
      await store.upsertMany(other.id, [subject('X-1', { names: ['John Smith'] })]);
      const alerts = new AlertStore(db, { decisions: audit().alertDecisions, log: pino({ level: 'silent' }) });
      await alerts.record([match(c.id, 'P-2', 1000), match(c.id, undefined, 1000)]);

      const names = (r: { subjects: { external_id: string }[] }) => r.subjects.map((s) => s.external_id);
      assert.deepEqual(names(await store.list(c.id, { limit: 10 })), ['O-1', 'P-2', 'P-1']);
      assert.deepEqual(names(await store.list(c.id, { limit: 10, q: 'SMITH' })), ['O-1', 'P-2']);
      assert.deepEqual(names(await store.list(c.id, { limit: 10, q: '50%' })), ['P-1']);
      assert.deepEqual(names(await store.list(c.id, { limit: 10, q: '5_%' })), []);
      assert.deepEqual(names(await store.list(c.id, { limit: 10, type: 'person', country: 'US' })), ['P-2']);
      const alerted = await store.list(c.id, { limit: 10, has_alerts: true });
      assert.deepEqual(
        alerted.subjects.map((s) => [s.external_id, s.open_alerts]),
        [['P-2', 1]],
      );
      assert.deepEqual(names(await store.list(c.id, { limit: 10, has_alerts: false })), ['O-1', 'P-1']);

      const p1 = await store.list(c.id, { limit: 2 });
      assert.deepEqual(names(p1), ['O-1', 'P-2']);
      const p2 = await store.list(c.id, { limit: 2, cursor: p1.next_cursor! });
      assert.deepEqual([names(p2), p2.next_cursor], [['P-1'], null]);

      const mine = await store.page(0, 10, c.id);
      assert.deepEqual(
        mine.map((s) => s.id),
        ids.map((r) => r.id),
      );
      const after = await store.page(ids[0].id, 2);
      assert.deepEqual(
        after.map((s) => s.external_id),
        ['P-2', 'O-1'],
      );

      const queries = new AlertQueries(db);
      const page = await queries.list(c.id, { limit: 10 });
      assert.deepEqual(page.items.map((a) => a.subject?.external_id ?? null).sort(), ['P-2', null].sort());
    });
  });
}
