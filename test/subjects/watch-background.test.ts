import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import type { ListChange } from '../../loaders/diff.js';
import { AlertStore } from '../../src/alerts/store.js';
import type { AlertDecisionRow } from '../../src/audit/rows.js';
import { CustomerService } from '../../src/billing/customers.js';
import type { Db } from '../../src/store/db.js';
import type { SubjectRecord } from '../../src/subjects/model.js';
import { SubjectStore } from '../../src/subjects/store.js';
import { createBookSink } from '../../src/subjects/watch.js';
import { BACKENDS, closeBackends } from '../store/backends.js';

/**
 * The book sink must not hold the list manager's delivery queue (loaders/manager.ts delivers to
 * its sinks in order) for a run over the books: `write` records the run with its changes and
 * returns; the started sink (the leader's) screens it in the background, and a sink started later
 * (a restart) resumes what was recorded and screens a finished run no more.
 */

const LISTED = 'Quendolyn Marisol Vantablack';
const log = pino({ level: 'silent' });
const trail = { decisions: { push: (_: AlertDecisionRow[]) => undefined, write: async () => undefined }, log };

const subject = (i: number): SubjectRecord => ({
  external_id: `S-${i}`,
  type: 'person',
  names: [i === 50 ? LISTED : `Filler Person ${String.fromCharCode(65 + (i % 26))}${i}`],
  birth_date: null,
  countries: [],
  identifiers: [],
  values: { crypto: [], email: [], website: [] },
});

const change: ListChange = {
  seq: 7,
  change_id: 'chg_background',
  list: 'bg_ops',
  owner: 0,
  version: 'v2',
  kind: 'listed',
  at: '2026-11-28T07:00:00.000Z',
  record: {
    list: 'bg_ops',
    entity_type: 'name',
    value: LISTED,
    metadata: {},
    source_url: null,
    listed_at: '2026-11-28T07:00:00.000Z',
    removed_at: null,
  },
};

function sink(db: Db) {
  return createBookSink({
    db,
    subjects: new SubjectStore(db, { maxPerCustomer: 1000 }),
    alerts: new AlertStore(db, trail),
    log,
    list: () => ({ slug: 'bg_ops', display_name: 'Background ops', list_type: 'sanctions', owner: undefined }),
    pageSize: 10,
  });
}

async function state(db: Db) {
  const run = await db.query<{ state: string; after_id: string; alerts_opened: string; recorded: boolean }>(
    `SELECT state, after_id, alerts_opened, changes IS NOT NULL AS recorded FROM book_runs WHERE list = 'bg_ops'`,
  );
  const alerts = await db.query<{ subject_key: string; occurrences: number }>(
    `SELECT subject_key, occurrences FROM alerts WHERE list = 'bg_ops' ORDER BY id`,
  );
  return {
    runs: run.rows.map((r) => [r.state, Number(r.after_id), Number(r.alerts_opened), r.recorded]),
    alerts: alerts.rows.map((r) => [r.subject_key, Number(r.occurrences)]),
  };
}

after(closeBackends);

for (const backend of BACKENDS) {
  describe(`book sink on ${backend.name}`, () => {
    test('records the run and returns; the started sink screens it, once across a restart', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'book-background' });
      const ids = await new SubjectStore(db, { maxPerCustomer: 1000 }).upsertMany(
        c.id,
        Array.from({ length: 60 }, (_, i) => subject(i)),
      );
      const last = Math.max(...ids.map((r) => r.id));

      // Not started (a delivery it takes before the leader starts it): recorded, nothing screened.
      const first = sink(db);
      await first.write([change]);
      assert.deepEqual(await state(db), { runs: [['running', 0, 0, true]], alerts: [] });

      first.start();
      await first.idle();
      await first.stop();
      assert.deepEqual(await state(db), { runs: [['done', last, 1, true]], alerts: [['S-50', 1]] });

      // A restart, and the batch delivered again: the finished run is not screened twice.
      const second = sink(db);
      second.start();
      await second.write([change]);
      await second.idle();
      await second.stop();
      assert.deepEqual(await state(db), { runs: [['done', last, 1, true]], alerts: [['S-50', 1]] });
    });
  });
}
