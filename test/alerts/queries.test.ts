import pino from 'pino';
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CustomerService } from '../../src/billing/customers.js';
import { TokenService } from '../../src/billing/tokens.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import { AlertCursorError, type AlertOrder } from '../../src/alerts/cursor.js';
import { AlertQueries, type AlertFilter } from '../../src/alerts/queries.js';
import { AlertStore } from '../../src/alerts/store.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';
import type { Db } from '../../src/store/db.js';

after(closeBackends);
const audit = fileAuditStore('alerts-queries-');
const trail = () => ({ decisions: audit().alertDecisions, log: pino({ level: 'silent' }) });

const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A name match of `screened` against party `party` (`matched` its listed name), scored. */
function match(customerId: number, screened: string, matched: string, s: number, o: Partial<AuditMatchRow> = {}) {
  const score = (o.evidence as { score?: number } | undefined)?.score ?? 1;
  return {
    time: T0 + s * 1000,
    customer_id: customerId,
    payer: '',
    request_id: `req-${screened}`,
    endpoint: 'screen.name',
    screened_value: screened,
    matched_value: matched,
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'fuzzy',
    list_version: 'v1',
    as_of: null,
    ...o,
    evidence: { value: matched, metadata: { id: `party:${screened}`, score } },
  } satisfies AuditMatchRow;
}

const scored = (score: number) => ({ evidence: { score } });

/**
 * Seven alerts of one customer, named by their screened value: two share a score and a time (the
 * id breaks the tie), three share a score; and a "John Smith" of another customer.
 */
async function seed(db: Db, name: string) {
  const c = await new CustomerService(db, 1000).createCustomer({ name });
  const other = await new CustomerService(db, 1000).createCustomer({ name: `${name}, other` });
  const tokens = new TokenService(db, { cacheSeconds: 5 });
  const analyst = (await tokens.create(c.id, 'alice')).record.id;
  await tokens.close();
  const store = new AlertStore(db, trail());
  await store.record([
    match(c.id, 'Anna Berg', 'BERG, Anna', 1, scored(0.72)),
    match(c.id, 'John Smith', 'SMITH, John', 2, { list: 'un_sc', ...scored(0.91) }),
    match(c.id, '0xabc', '0xabc', 3, { list: 'ofac_crypto', match: 'exact' }),
    match(c.id, 'Jon Smyth', 'SMITH, John', 4, scored(0.91)),
    match(c.id, 'Joan Smith', 'SMITH, Joan', 4, { list: 'un_sc', ...scored(0.91) }),
    match(c.id, 'evil.example', 'evil.example', 5, { list: 'phishing', match: 'domain' }),
    match(c.id, 'Ivan Petrov', 'PETROV, Ivan', 6, { list: 'eu_fsf', ...scored(0.8) }),
    match(other.id, 'John Smith', 'SMITH, John', 7, scored(0.99)),
  ]);
  const queries = new AlertQueries(db);
  const all = (await queries.list(c.id, { limit: 100 })).items;
  const id = (screened: string) => all.find((a) => a.screened_value === screened)!.id;
  await store.decide(c.id, id('John Smith'), { status: 'escalated', version: 1 }, { tokenId: analyst });
  await store.decide(
    c.id,
    id('Ivan Petrov'),
    { status: 'false_positive', comment: 'born 1950, not 1985', version: 1 },
    { tokenId: analyst },
  );
  await store.comment(c.id, id('Ivan Petrov'), 'checked the passport', { tokenId: analyst });
  return { customerId: c.id, otherId: other.id, queries, id, analyst };
}

for (const backend of BACKENDS) {
  describe(`alert list and export on ${backend.name}`, () => {
    test('each filter and sort returns exactly its alerts, in order', async () => {
      const { db } = await backend.database();
      const { customerId, otherId, queries, id } = await seed(db, 'filters');
      const ids = async (f: AlertFilter & Partial<AlertOrder>) =>
        (await queries.list(customerId, { limit: 100, ...f })).items.map((a) => a.id);
      const expect = (...names: string[]) => names.map(id);

      const byTime = expect(
        'Ivan Petrov',
        'evil.example',
        'Joan Smith',
        'Jon Smyth',
        '0xabc',
        'John Smith',
        'Anna Berg',
      );
      assert.deepEqual(await ids({}), byTime);
      assert.deepEqual(await ids({ sort: 'time', order: 'asc' }), [...byTime].reverse());
      const byScore = expect(
        'evil.example',
        '0xabc',
        'Joan Smith',
        'Jon Smyth',
        'John Smith',
        'Ivan Petrov',
        'Anna Berg',
      );
      assert.deepEqual(await ids({ sort: 'score' }), byScore);
      assert.deepEqual(await ids({ sort: 'score', order: 'asc' }), [...byScore].reverse());

      assert.deepEqual(await ids({ status: 'escalated' }), expect('John Smith'));
      assert.deepEqual(await ids({ status: 'false_positive' }), expect('Ivan Petrov'));
      assert.deepEqual(await ids({ list: 'un_sc' }), expect('Joan Smith', 'John Smith'));
      assert.deepEqual(await ids({ kind: 'exact' }), expect('0xabc'));
      assert.deepEqual(await ids({ kind: 'domain' }), expect('evil.example'));
      assert.deepEqual(
        await ids({ min_score: 0.91 }),
        expect('evil.example', 'Joan Smith', 'Jon Smyth', '0xabc', 'John Smith'),
      );
      assert.deepEqual(await ids({ max_score: 0.8 }), expect('Ivan Petrov', 'Anna Berg'));
      assert.deepEqual(
        await ids({ min_score: 0.8, max_score: 0.91 }),
        expect('Ivan Petrov', 'Joan Smith', 'Jon Smyth', 'John Smith'),
      );
      assert.deepEqual(await ids({ since: at(3), until: at(5) }), expect('Joan Smith', 'Jon Smyth', '0xabc'));
      assert.deepEqual(await ids({ text: 'smith' }), expect('Joan Smith', 'Jon Smyth', 'John Smith'));
      assert.deepEqual(await ids({ text: 'SMYTH' }), expect('Jon Smyth'));
      assert.deepEqual(await ids({ text: 'h, jo' }), expect('Joan Smith', 'Jon Smyth', 'John Smith'));
      assert.deepEqual(await ids({ text: 'x' }), expect('evil.example', '0xabc'));
      assert.deepEqual(await ids({ text: 'Smith%' }), [], 'LIKE wildcards in the text are literal');
      assert.deepEqual(await ids({ text: 'n_S' }), []);
      assert.deepEqual(
        await ids({ list: 'un_sc', min_score: 0.9, text: 'jo', sort: 'score', order: 'asc' }),
        expect('John Smith', 'Joan Smith'),
      );

      const others = (await queries.list(otherId, { limit: 100, text: 'smith' })).items;
      assert.deepEqual(
        others.map((a) => [a.screened_value, a.score]),
        [['John Smith', 0.99]],
      );
    });

    test('the subject filter returns exactly that subject’s alerts, in the list and the export', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'subject filter' });
      const other = await new CustomerService(db, 1000).createCustomer({ name: 'subject filter, other' });
      const subject = (external_id: string) => ({ subject: { external_id, type: 'person', names: ['Jon Smith'] } });
      await new AlertStore(db, trail()).record([
        match(c.id, 'Jon Smith', 'SMITH, John', 1, subject('C-1')),
        match(c.id, 'Jon Smith', 'SMITH, John', 2, subject('C-2')),
        match(c.id, 'Jon Smith', 'SMITH, John', 3, { list: 'un_sc', ...subject('C-1') }),
        match(c.id, 'Jon Smith', 'SMITH, John', 4),
        match(other.id, 'Jon Smith', 'SMITH, John', 5, subject('C-1')),
      ]);
      const queries = new AlertQueries(db);
      const of = async (id: number, f: AlertFilter) =>
        (await queries.list(id, { limit: 100, ...f })).items.map((a) => [a.subject?.external_id ?? null, a.list]);
      assert.deepEqual(await of(c.id, {}), [
        [null, 'ofac_sdn'],
        ['C-1', 'un_sc'],
        ['C-2', 'ofac_sdn'],
        ['C-1', 'ofac_sdn'],
      ]);
      assert.deepEqual(await of(c.id, { subject: 'C-1' }), [
        ['C-1', 'un_sc'],
        ['C-1', 'ofac_sdn'],
      ]);
      assert.deepEqual(await of(c.id, { subject: 'C-2', list: 'un_sc' }), []);
      assert.deepEqual(await of(c.id, { subject: 'C-9' }), []);
      assert.deepEqual(await of(other.id, { subject: 'C-1' }), [['C-1', 'ofac_sdn']]);
      const exported = [];
      for await (const page of queries.export(c.id, { subject: 'C-2' }, 100)) exported.push(...page);
      assert.deepEqual(
        exported.map((a) => [a.subject, a.list]),
        [[{ external_id: 'C-2', type: 'person', names: ['Jon Smith'] }, 'ofac_sdn']],
      );
    });

    test('keyset pages of every sort and order return every alert once, in order', async () => {
      const { db } = await backend.database();
      const { customerId, queries } = await seed(db, 'pages');
      for (const sort of ['time', 'score'] as const) {
        for (const order of ['desc', 'asc'] as const) {
          const whole = (await queries.list(customerId, { limit: 100, sort, order })).items.map((a) => a.id);
          const paged: number[] = [];
          let cursor: string | undefined;
          for (;;) {
            const page = await queries.list(customerId, { limit: 2, sort, order, cursor });
            paged.push(...page.items.map((a) => a.id));
            if (!page.next_cursor) break;
            cursor = page.next_cursor;
          }
          assert.equal(whole.length, 7);
          assert.deepEqual(paged, whole, `${sort} ${order}`);
        }
      }
    });

    test('a cursor is valid only for the sort and order it was issued for', async () => {
      const { db } = await backend.database();
      const { customerId, queries } = await seed(db, 'cursors');
      const timeCursor = (await queries.list(customerId, { limit: 1 })).next_cursor!;
      const scoreCursor = (await queries.list(customerId, { limit: 1, sort: 'score' })).next_cursor!;
      await assert.rejects(queries.list(customerId, { limit: 1, sort: 'score', cursor: timeCursor }), {
        message:
          'this cursor was issued for sort=time and order=desc: ask with the same sort and order, or start again without a cursor',
      });
      await assert.rejects(
        queries.list(customerId, { limit: 1, sort: 'score', order: 'asc', cursor: scoreCursor }),
        /issued for sort=score and order=desc/,
      );
      await assert.rejects(queries.list(customerId, { limit: 1, cursor: scoreCursor }), AlertCursorError);
      for (const bad of [
        'bm90LWEtY3Vyc29y',
        Buffer.from('score.desc|2|2026-11-01T10:00:00.000Z|1').toString('base64url'),
      ])
        await assert.rejects(queries.list(customerId, { limit: 1, sort: 'score', cursor: bad }), {
          message: 'cursor is not a next_cursor of this list',
        });
    });

    test('the export reads every alert of the filter by id, with evidence and history', async () => {
      const { db } = await backend.database();
      const { customerId, otherId, queries, id, analyst } = await seed(db, 'export');
      const exported = async (f: AlertFilter, limit = 100_000, afterId = 0) => {
        const out = [];
        for await (const page of queries.export(customerId, f, limit, afterId)) out.push(...page);
        return out;
      };
      const all = await exported({});
      const byId = ['Anna Berg', 'John Smith', '0xabc', 'Jon Smyth', 'Joan Smith', 'evil.example', 'Ivan Petrov'];
      assert.deepEqual(
        all.map((a) => a.id),
        byId.map(id),
      );
      const petrov = all.find((a) => a.screened_value === 'Ivan Petrov')!;
      assert.deepEqual(petrov.evidence, {
        match: 'fuzzy',
        list_version: 'v1',
        endpoint: 'screen.name',
        request_id: 'req-Ivan Petrov',
        answer: { value: 'PETROV, Ivan', metadata: { id: 'party:Ivan Petrov', score: 0.8 } },
      });
      assert.deepEqual(
        petrov.history.map((e) => [e.kind, e.status, e.comment, e.on_version, e.token_id, e.token_label]),
        [
          ['decision', 'false_positive', 'born 1950, not 1985', 1, analyst, 'alice'],
          ['comment', null, 'checked the passport', null, analyst, 'alice'],
        ],
      );
      assert.deepEqual(all.find((a) => a.screened_value === 'Anna Berg')!.history, []);

      assert.deepEqual(
        (await exported({ text: 'smith', min_score: 0.9 })).map((a) => a.id),
        ['John Smith', 'Jon Smyth', 'Joan Smith'].map(id),
      );
      const firstThree = await exported({}, 3);
      assert.deepEqual(
        firstThree.map((a) => a.id),
        byId.slice(0, 3).map(id),
      );
      assert.deepEqual(
        (await exported({}, 100, firstThree[2].id)).map((a) => a.id),
        byId.slice(3).map(id),
      );
      const theirs = [];
      for await (const page of queries.export(otherId, {}, 100)) theirs.push(...page);
      assert.deepEqual(
        theirs.map((a) => a.screened_value),
        ['John Smith'],
      );
    });

    test('a score band by time and a time range by score page as one statement does, narrow or wide', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'bands' });
      const n = 1500;
      const score = (i: number) => 0.5 + ((i * 37) % 500) / 1000;
      const second = (i: number) => (i * 7919) % n;
      await new AlertStore(db, trail()).record(
        Array.from({ length: n }, (_, i) => match(c.id, `name ${i}`, `Listed ${i}`, second(i), scored(score(i)))),
      );
      const banded = new AlertQueries(db);
      const planner = new AlertQueries(db, false);
      const walk = async (q: AlertQueries, r: AlertFilter & Partial<AlertOrder>) => {
        const ids: number[] = [];
        let cursor: string | undefined;
        do {
          const page = await q.list(c.id, { ...r, limit: 100, cursor });
          ids.push(...page.items.map((a) => a.id));
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        return ids;
      };
      // Bands of 33 and 30 alerts are read whole through its index; all 1,500 exceed the band's 1,000
      // reads and take the order's walk.
      const cases: [AlertFilter & Partial<AlertOrder>, number][] = [
        [{ min_score: 0.8, max_score: 0.81 }, 33],
        [{ min_score: 0.8, max_score: 0.81, order: 'asc' }, 33],
        [{ min_score: 0.5 }, n],
        [{ sort: 'score', since: at(100), until: at(130) }, 30],
        [{ sort: 'score', order: 'asc', since: at(100), until: at(130) }, 30],
        [{ sort: 'score', since: at(0) }, n],
      ];
      for (const [r, count] of cases) {
        const ids = await walk(banded, r);
        assert.equal(ids.length, count, JSON.stringify(r));
        assert.equal(new Set(ids).size, count);
        assert.deepEqual(ids, await walk(planner, r), JSON.stringify(r));
      }
    });

    test('an export longer than one page of reads is whole and bounded by its limit', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'export pages' });
      await new AlertStore(db, trail()).record(
        Array.from({ length: 2005 }, (_, i) => match(c.id, `name ${i}`, `Listed ${i}`, i % 50)),
      );
      const queries = new AlertQueries(db);
      const ids: number[] = [];
      for await (const page of queries.export(c.id, {}, 2003)) ids.push(...page.map((a) => a.id));
      assert.equal(ids.length, 2003);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(new Set(ids).size, 2003);
      const rest: string[] = [];
      for await (const page of queries.export(c.id, {}, 100, ids[ids.length - 1]))
        rest.push(...page.map((a) => a.screened_value));
      assert.deepEqual(rest, ['name 2003', 'name 2004']);
    });
  });
}
