import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { CustomerService } from '../../src/billing/customers.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import type { AlertOrder } from '../../src/alerts/cursor.js';
import { AlertQueries, type AlertFilter } from '../../src/alerts/queries.js';
import { AlertStore } from '../../src/alerts/store.js';
import type { Db } from '../../src/store/db.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';

/**
 * The list's `text` filter answers from a sample of the order's next alerts, from the order's walk,
 * from the trigram index asked for the text's rare words, or as one plain statement: every page,
 * id and cursor is the same whichever path answers, and the same as a filter of all the alerts here.
 */
after(closeBackends);
const audit = fileAuditStore('alerts-text-');
const trail = () => ({ decisions: audit().alertDecisions, log: pino({ level: 'silent' }) });

const T0 = Date.parse('2026-11-01T10:00:00.000Z');

/** Alert `i`: "Listed Party i" matched; pairs of alerts seen in the same second; scores tied in 500s. */
function match(customerId: number, i: number, n: number): AuditMatchRow {
  const screened = i % 14 === 7 ? `Anna Berg ${i}` : i % 250 === 3 ? `rate_${i}%` : `name ${i}`;
  const score = 0.5 + ((i * 37) % 500) / 1000;
  return {
    time: T0 + Math.floor(((i * 7919) % n) / 2) * 1000,
    customer_id: customerId,
    payer: '',
    request_id: `req-${i}`,
    endpoint: 'screen.name',
    screened_value: screened,
    matched_value: `Listed Party ${i}`,
    list: i % 3 === 0 ? 'un_sc' : 'ofac_sdn',
    list_type: 'sanctions',
    match: 'fuzzy',
    list_version: 'v1',
    as_of: null,
    evidence: { value: `Listed Party ${i}`, metadata: { id: `party:${i}`, score } },
  };
}

interface Stored {
  id: number;
  screened_value: string;
  matched_value: string;
  list: string;
  score: number;
  last_seen: Date;
}

/** The ids of `text`'s alerts in the request's order, filtered and sorted here. */
function expected(all: Stored[], r: AlertFilter & Partial<AlertOrder>): number[] {
  const text = r.text!.toLowerCase();
  const keys = (a: Stored) => [...(r.sort === 'score' ? [a.score] : []), a.last_seen.getTime(), a.id];
  const sign = r.order === 'asc' ? 1 : -1;
  return all
    .filter((a) => r.list === undefined || a.list === r.list)
    .filter((a) => a.screened_value.toLowerCase().includes(text) || a.matched_value.toLowerCase().includes(text))
    .sort((a, b) => {
      const [ka, kb] = [keys(a), keys(b)];
      const i = ka.findIndex((k, j) => k !== kb[j]);
      return i < 0 ? 0 : sign * (ka[i] - kb[i]);
    })
    .map((a) => a.id);
}

/** The database, keeping the text of every statement it runs. */
function recorded(db: Db): { db: Db; statements: string[] } {
  const statements: string[] = [];
  const wrapped: Db = Object.create(db) as Db;
  wrapped.query = ((sql: string, params?: unknown[]) => {
    statements.push(sql);
    return db.query(sql, params);
  }) as Db['query'];
  return { db: wrapped, statements };
}

for (const backend of BACKENDS) {
  describe(`alert text search on ${backend.name}`, () => {
    test('every path of a text search answers the pages, ids and cursors of one statement', async () => {
      const { db } = await backend.database();
      const customers = new CustomerService(db, 1000);
      const big = (await customers.createCustomer({ name: 'text search' })).id;
      const small = (await customers.createCustomer({ name: 'text search, small' })).id;
      const n = 3000;
      const store = new AlertStore(db, trail());
      await store.record(Array.from({ length: n }, (_, i) => match(big, i, n)));
      await store.record(Array.from({ length: 200 }, (_, i) => match(small, i, 200)));
      const stored = async (customerId: number) =>
        (
          await db.query<Stored>(
            'SELECT id, screened_value, matched_value, list, score, last_seen FROM alerts WHERE customer_id = $1',
            [customerId],
          )
        ).rows.map((a) => ({ ...a, last_seen: new Date(a.last_seen) }));
      const all = { [big]: await stored(big), [small]: await stored(small) };

      const { db: watched, statements } = recorded(db);
      const paths = new AlertQueries(watched);
      const planner = new AlertQueries(db, false);
      const walk = async (q: AlertQueries, customerId: number, r: AlertFilter & Partial<AlertOrder>) => {
        const ids: number[] = [];
        const cursors: (string | null)[] = [];
        let cursor: string | undefined;
        do {
          const page = await q.list(customerId, { ...r, limit: 50, cursor });
          ids.push(...page.items.map((a) => a.id));
          cursors.push(page.next_cursor);
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        return { ids, cursors };
      };

      // A page first reads the next 500 alerts of the order (of the big customer's 3,000): "party 1"
      // (1,111 alerts) and "ar" (all) fill it there; "anna berg" (1 in 14) is found in 36 or so of
      // them, enough for the order's walk to fill a page within its 1,000 alerts; "party 123" (11)
      // and "zzz" (none) go to the trigram index, "party 123" asked for its rare word "123" alone in
      // the matched values, "zzz" for itself; the small customer's 200 alerts are all read at once.
      type Path = 'sample' | 'walk' | 'pieces' | 'plain' | 'any';
      const cases: [number, AlertFilter & Partial<AlertOrder>, number, Path][] = [
        [big, { text: 'party 1' }, 1111, 'sample'],
        [big, { text: 'party 1', sort: 'score', order: 'asc' }, 1111, 'sample'],
        [big, { text: 'ar' }, n, 'sample'],
        [big, { text: 'anna berg' }, 214, 'walk'],
        [big, { text: 'Anna Berg', sort: 'score' }, 214, 'walk'],
        [big, { text: 'PARTY 123' }, 11, 'pieces'],
        [big, { text: 'party 123', sort: 'score' }, 11, 'pieces'],
        [big, { text: 'zzz' }, 0, 'plain'],
        [big, { text: 'party 12', list: 'un_sc' }, 39, 'any'],
        [big, { text: 'rate_1' }, 3, 'any'],
        [big, { text: '3%' }, 11, 'any'],
        [small, { text: 'party 12' }, 11, 'sample'],
      ];
      const pieced = (sql: string) => sql.includes(" || '') ILIKE");
      for (const [customerId, r, count, path] of cases) {
        const name = JSON.stringify(r);
        statements.length = 0;
        const got = await walk(paths, customerId, r);
        assert.equal(got.ids.length, count, name);
        assert.deepEqual(got.ids, expected(all[customerId], r), name);
        assert.deepEqual(got, await walk(planner, customerId, r), name);
        const samples = statements.filter((s) => s.startsWith('WITH sample AS'));
        const walks = statements.filter((s) => s.startsWith('SELECT * FROM ('));
        const plain = statements.filter((s) => s.startsWith('SELECT id,'));
        assert.equal(samples.length, got.cursors.length, name);
        if (path === 'sample') assert.equal(walks.length + plain.length, 0, name);
        if (path === 'walk') assert.ok(walks.length > 0 && plain.length === 0, name);
        if (path === 'pieces') assert.ok(plain.length > 0 && plain.every(pieced), name);
        if (path === 'plain') assert.ok(plain.length > 0 && !plain.some(pieced), name);
      }
    });
  });
}
