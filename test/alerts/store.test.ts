import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { CustomerService } from '../../src/billing/customers.js';
import { TokenService } from '../../src/billing/tokens.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import { AlertQueries } from '../../src/alerts/queries.js';
import { AlertSelfApproval, AlertStore, AlertVersionConflict } from '../../src/alerts/store.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import { fileAuditStore } from '../support/audit-store.js';
import type { Db } from '../../src/store/db.js';

after(closeBackends);
const audit = fileAuditStore('alerts-store-');
const trail = () => ({ decisions: audit().alertDecisions, log: pino({ level: 'silent' }) });

const T0 = Date.parse('2026-11-01T10:00:00.000Z');

function row(customerId: number, screened: string, matched: string, time: number, extra: Partial<AuditMatchRow> = {}) {
  return {
    time,
    customer_id: customerId,
    payer: '',
    request_id: `req-${time}`,
    endpoint: 'screen.crypto',
    screened_value: screened,
    matched_value: matched,
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'exact',
    list_version: 'v1',
    as_of: null,
    evidence: { value: matched, list: 'ofac_sdn' },
    ...extra,
  } satisfies AuditMatchRow;
}

async function analyst(db: Db, name: string) {
  const c = await new CustomerService(db, 1000).createCustomer({ name });
  const tokens = new TokenService(db, { cacheSeconds: 5 });
  const a = (await tokens.create(c.id, 'alice')).record.id;
  const b = (await tokens.create(c.id, 'bob')).record.id;
  await tokens.close();
  return { customerId: c.id, alice: a, bob: b };
}

for (const backend of BACKENDS) {
  describe(`alerts on ${backend.name}`, () => {
    test('a batch opens one alert per pair; repeats update occurrences, last seen and evidence', async () => {
      const { db } = await backend.database();
      const { customerId } = await analyst(db, 'record');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      await store.record([
        row(customerId, '0xaa', '0xaa', T0 + 1000),
        row(customerId, '0xaa', '0xaa', T0, { request_id: 'first' }),
        row(customerId, '0xbb', '0xbb', T0 + 500),
        row(0, '0xaa', '0xaa', T0),
      ]);
      await store.record([row(customerId, '0xaa', '0xaa', T0 + 9000, { list_version: 'v2', match: 'fuzzy' })]);
      const page = await queries.list(customerId, { limit: 10 });
      assert.deepEqual(
        page.items.map((a) => [a.screened_value, a.occurrences, a.first_seen, a.last_seen, a.match, a.status]),
        [
          ['0xaa', 3, new Date(T0).toISOString(), new Date(T0 + 9000).toISOString(), 'fuzzy', 'open'],
          ['0xbb', 1, new Date(T0 + 500).toISOString(), new Date(T0 + 500).toISOString(), 'exact', 'open'],
        ],
      );
      assert.equal(page.next_cursor, null);
      const detail = (await store.get(customerId, page.items[0].id))!;
      assert.deepEqual(detail.evidence, {
        match: 'fuzzy',
        list_version: 'v2',
        endpoint: 'screen.crypto',
        request_id: `req-${T0 + 9000}`,
        answer: { value: '0xaa', list: 'ofac_sdn' },
      });
      assert.deepEqual(detail.history, []);
    });

    test("a name match's alert is the listed party's: two of its aliases make one alert, scored", async () => {
      const { db } = await backend.database();
      const { customerId } = await analyst(db, 'party');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      const party = (alias: string, score: number) => ({
        value: alias,
        list: 'ofac_sdn',
        match: 'fuzzy',
        metadata: { id: 'ofac_sdn:12345', caption: 'KIM, Jong Un', score, birth_dates: ['1984-01-08'] },
        source_url: 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=12345',
      });
      await store.record([
        row(customerId, 'Kim Jong Un', 'KIM, Jong Un', T0, { evidence: party('KIM, Jong Un', 0.9) }),
      ]);
      await store.record([
        row(customerId, 'Kim Jong Un', 'KIM Jong-un', T0 + 10, { evidence: party('KIM Jong-un', 0.85) }),
      ]);
      const page = await queries.list(customerId, { limit: 10 });
      assert.deepEqual(
        page.items.map((a) => [a.listed_party, a.matched_value, a.score, a.occurrences, a.subject]),
        [['ofac_sdn:12345', 'KIM Jong-un', 0.85, 2, null]],
      );
      const detail = (await store.get(customerId, page.items[0].id))!;
      assert.deepEqual(detail.evidence.answer, party('KIM Jong-un', 0.85));
    });

    test('keyset pages cover every alert once; filters narrow them', async () => {
      const { db } = await backend.database();
      const { customerId } = await analyst(db, 'pages');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      // Ties on last_seen: the id breaks them, so no alert is skipped or repeated across pages.
      await store.record(
        Array.from({ length: 25 }, (_, i) =>
          row(customerId, `name ${i}`, `Listed ${i}`, T0 + Math.floor(i / 3) * 1000, {
            list: i % 2 ? 'un_sc' : 'ofac_sdn',
          }),
        ),
      );
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await queries.list(customerId, { limit: 4, cursor });
        seen.push(...page.items.map((a) => a.screened_value));
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      assert.equal(seen.length, 25);
      assert.equal(new Set(seen).size, 25);
      assert.equal(seen[0], 'name 24');
      const un = await queries.list(customerId, { limit: 100, list: 'un_sc' });
      assert.equal(un.items.length, 12);
      const text = await queries.list(customerId, { limit: 100, text: 'LISTED 1' });
      assert.deepEqual(text.items.map((a) => a.matched_value).sort(), [
        'Listed 1',
        'Listed 10',
        'Listed 11',
        'Listed 12',
        'Listed 13',
        'Listed 14',
        'Listed 15',
        'Listed 16',
        'Listed 17',
        'Listed 18',
        'Listed 19',
      ]);
      const percent = await queries.list(customerId, { limit: 100, text: '%' });
      assert.equal(percent.items.length, 0, 'LIKE wildcards in the text are literal');
      const window = await queries.list(customerId, {
        limit: 100,
        since: new Date(T0 + 7000).toISOString(),
        until: new Date(T0 + 8000).toISOString(),
      });
      assert.deepEqual(
        window.items.map((a) => a.screened_value),
        ['name 23', 'name 22', 'name 21'],
      );
      const other = await analyst(db, 'other customer');
      assert.deepEqual((await queries.list(other.customerId, { limit: 10 })).items, []);
    });

    test('two decisions on one version: one wins, the other is a version conflict', async () => {
      const { db } = await backend.database();
      const { customerId, alice, bob } = await analyst(db, 'race');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      await store.record([row(customerId, '0xcc', '0xcc', T0)]);
      const [{ id, version }] = (await queries.list(customerId, { limit: 1 })).items;
      assert.equal(version, 1);
      const results = await Promise.allSettled([
        store.decide(customerId, id, { status: 'escalated', version }, { tokenId: alice }),
        store.decide(customerId, id, { status: 'closed', version }, { tokenId: bob }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(lost[0].reason instanceof AlertVersionConflict);
      assert.equal(lost[0].reason.current, 2);
      const detail = (await store.get(customerId, id))!;
      assert.equal(detail.version, 2);
      assert.equal(detail.history.length, 1, 'only the winner is in the history');
      assert.equal(detail.history[0].status, detail.status);
      assert.equal(detail.history[0].on_version, 1);
      assert.equal(
        await store.decide(customerId + 1000, id, { status: 'closed', version: 2 }, { tokenId: alice }),
        null,
      );
    });

    test('history is append-only: decisions and comments with who and when; rows cannot be updated', async () => {
      const { db } = await backend.database();
      const { customerId, alice, bob } = await analyst(db, 'history');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      await store.record([row(customerId, '0xdd', '0xdd', T0)]);
      const [{ id }] = (await queries.list(customerId, { limit: 1 })).items;
      await store.decide(customerId, id, { status: 'escalated', version: 1 }, { tokenId: alice });
      await store.comment(customerId, id, 'same birth date', { tokenId: bob });
      const done = (await store.decide(
        customerId,
        id,
        { status: 'false_positive', comment: 'different person', version: 2 },
        { tokenId: bob },
      ))!;
      assert.equal(done.status, 'false_positive');
      assert.equal(done.version, 3);
      assert.ok(done.decided_at);
      assert.deepEqual(
        done.history.map((e) => [e.kind, e.status, e.comment, e.on_version, e.token_id, e.token_label]),
        [
          ['decision', 'escalated', null, 1, alice, 'alice'],
          ['comment', null, 'same birth date', null, bob, 'bob'],
          ['decision', 'false_positive', 'different person', 2, bob, 'bob'],
        ],
      );
      await assert.rejects(db.query("UPDATE alert_events SET comment = 'edited'"), /append-only/);
      assert.equal(await store.comment(customerId, id + 100000, 'x', { tokenId: bob }), null);
    });

    test('bulk decisions are all or none', async () => {
      const { db } = await backend.database();
      const { customerId, alice } = await analyst(db, 'bulk');
      const store = new AlertStore(db, trail());
      const queries = new AlertQueries(db);
      await store.record([row(customerId, '1', '1', T0), row(customerId, '2', '2', T0), row(customerId, '3', '3', T0)]);
      const ids = (await queries.list(customerId, { limit: 10 })).items.map((a) => a.id).sort((a, b) => a - b);
      await store.decide(customerId, ids[2], { status: 'escalated', version: 1 }, { tokenId: alice });
      const all = (ids: number[]) => ids.map((id) => ({ id, status: 'closed' as const, version: 1 }));
      await assert.rejects(store.decideMany(customerId, all(ids), { tokenId: alice }), AlertVersionConflict);
      assert.deepEqual(await store.decideMany(customerId, all([ids[0], 99999999]), { tokenId: alice }), {
        missing: 99999999,
      });
      const untouched = (await queries.list(customerId, { limit: 10 })).items.filter((a) => a.id !== ids[2]);
      assert.deepEqual(
        untouched.map((a) => [a.status, a.version]),
        [
          ['open', 1],
          ['open', 1],
        ],
      );
      const decided = await store.decideMany(customerId, all([ids[0], ids[1]]), { tokenId: alice });
      assert.ok(Array.isArray(decided));
      assert.deepEqual(
        decided.map((a) => [a.id, a.status, a.version]),
        [
          [ids[0], 'closed', 2],
          [ids[1], 'closed', 2],
        ],
      );
      const counts = (await queries.counts()).filter((c) => c.customer_id === customerId);
      assert.deepEqual(counts, [
        { customer_id: customerId, status: 'closed', count: 2 },
        { customer_id: customerId, status: 'escalated', count: 1 },
      ]);
    });

    test('a false positive stays quiet for the same party; a changed birth date re-opens it with the diff', async () => {
      // The audit store is shared by the backends, whose customer ids overlap: read from the test's start.
      const started = Date.now();
      const { db } = await backend.database();
      const { customerId, alice } = await analyst(db, 'suppress');
      const store = new AlertStore(db, trail());
      const kim = (version: string, birth: string[], time: number) =>
        row(customerId, 'Kim Jong Un', 'KIM, Jong Un', time, {
          list_version: version,
          match: 'fuzzy',
          evidence: {
            value: 'KIM, Jong Un',
            list: 'ofac_sdn',
            metadata: {
              id: 'ofac_sdn:12345',
              caption: 'KIM, Jong Un',
              aliases: [{ name: 'KIM Jong-un', type: 'a.k.a.', weak: false }],
              birth_dates: birth,
              identifiers: [{ type: 'Passport', value: 'P1', country: 'KP' }],
              programs: ['DPRK3'],
              score: 0.9,
              review: { status: 'whatever the answer said' },
            },
          },
        });
      await store.record([kim('v1', ['1982-01-08'], T0)]);
      const [{ id }] = (await new AlertQueries(db).list(customerId, { limit: 1 })).items;
      await store.decide(
        customerId,
        id,
        { status: 'false_positive', comment: 'born 1990', version: 1 },
        { tokenId: alice },
      );
      // The same party again (its birth dates reordered by the source is no change), twice.
      await store.record([kim('v1', ['1982-01-08'], T0 + 1000)]);
      await store.record([kim('v2', ['1982-01-08'], T0 + 2000)]);
      let detail = (await store.get(customerId, id))!;
      assert.deepEqual([detail.status, detail.version, detail.occurrences], ['false_positive', 2, 3]);
      assert.equal(detail.history.length, 1);

      await store.record([kim('v3', ['1984-01-08'], T0 + 3000)]);
      detail = (await store.get(customerId, id))!;
      assert.deepEqual([detail.status, detail.version, detail.occurrences], ['open', 3, 4]);
      assert.deepEqual(detail.history[1], {
        kind: 'reopened',
        status: 'open',
        comment: 'The listed party changed in list version v3: birth dates: 1982-01-08 → 1984-01-08',
        on_version: 2,
        token_id: 0,
        token_label: 'system',
        at: detail.history[1].at,
        changes: { birth_dates: { from: ['1982-01-08'], to: ['1984-01-08'] } },
      });
      await store.record([kim('v3', ['1984-01-08'], T0 + 4000)]);
      assert.equal((await store.get(customerId, id))!.history.length, 2, 'an open alert records no change');
      const trailRows = await audit().decisionQueries.list(customerId, {
        from: started,
        to: Date.now() + 60_000,
        alertId: id,
        limit: 10,
      });
      assert.deepEqual(
        trailRows.items.map((d) => [
          d.event,
          d.status,
          d.on_version,
          d.version,
          d.token_id,
          d.token_label,
          d.comment,
          d.list_version,
        ]),
        [
          ['decision', 'false_positive', 1, 2, alice, 'alice', 'born 1990', 'v1'],
          ['reopened', 'open', 2, 3, 0, 'system', detail.history[1].comment, 'v3'],
        ],
      );
      assert.deepEqual(trailRows.items[1].changes, { birth_dates: { from: ['1982-01-08'], to: ['1984-01-08'] } });
      assert.equal((trailRows.items[0].evidence.metadata as { id: string }).id, 'ofac_sdn:12345');
    });

    test('a confirmed alert stays confirmed when its party changes, the change recorded; a closed one re-opens when seen again', async () => {
      const { db } = await backend.database();
      const { customerId, alice } = await analyst(db, 'confirmed');
      const store = new AlertStore(db, trail());
      const wallet = (programs: string[], time: number) =>
        row(customerId, '0xee', '0xee', time, { evidence: { value: '0xee', metadata: { name: 'Lazarus', programs } } });
      await store.record([wallet(['CYBER2'], T0), row(customerId, '0xff', '0xff', T0)]);
      const ids = Object.fromEntries(
        (await new AlertQueries(db).list(customerId, { limit: 10 })).items.map((a) => [a.screened_value, a.id]),
      );
      await store.decide(
        customerId,
        ids['0xee'],
        { status: 'confirmed', comment: 'the wallet', version: 1 },
        { tokenId: alice },
      );
      await store.decide(customerId, ids['0xff'], { status: 'closed', version: 1 }, { tokenId: alice });
      await store.record([
        wallet(['CYBER2', 'DPRK3'], Date.now() + 1000),
        row(customerId, '0xff', '0xff', Date.now() + 1000),
      ]);
      const confirmed = (await store.get(customerId, ids['0xee']))!;
      assert.deepEqual([confirmed.status, confirmed.version], ['confirmed', 2]);
      assert.deepEqual(
        confirmed.history.slice(1).map((e) => [e.kind, e.status, e.comment, e.token_id, e.changes]),
        [
          [
            'party_changed',
            'confirmed',
            'The listed party changed in list version v1: programs: CYBER2 → CYBER2, DPRK3',
            0,
            { programs: { from: ['CYBER2'], to: ['CYBER2', 'DPRK3'] } },
          ],
        ],
      );
      const closed = (await store.get(customerId, ids['0xff']))!;
      assert.deepEqual([closed.status, closed.version], ['open', 3]);
      assert.deepEqual(
        closed.history.slice(1).map((e) => [e.kind, e.status, e.comment, e.on_version, e.token_label, e.changes]),
        [['reopened', 'open', 'Matched again after it was closed', 2, 'system', null]],
      );
    });

    test('four-eyes: a proposal waits for another token; the proposer cannot approve it', async () => {
      // The audit store is shared by the backends, whose customer ids overlap: read from the test's start.
      const started = Date.now();
      const { db } = await backend.database();
      const { customerId, alice, bob } = await analyst(db, 'four eyes');
      const store = new AlertStore(db, trail());
      await store.setFourEyes(customerId, true, { tokenId: alice });
      // Setting it as it is changes nothing and records nothing.
      await store.setFourEyes(customerId, true, { tokenId: bob });
      assert.equal(await store.fourEyes(customerId), true);
      await store.record([row(customerId, '0x11', '0x11', T0), row(customerId, '0x22', '0x22', T0)]);
      const ids = (await new AlertQueries(db).list(customerId, { limit: 10 })).items
        .map((a) => a.id)
        .sort((a, b) => a - b);
      const fp = (version: number) => ({ status: 'false_positive' as const, comment: 'not them', version });
      const proposed = (await store.decide(customerId, ids[0], fp(1), { tokenId: alice }))!;
      assert.deepEqual([proposed.status, proposed.version], ['open', 2]);
      assert.deepEqual(
        proposed.pending && [
          proposed.pending.status,
          proposed.pending.token_id,
          proposed.pending.token_label,
          proposed.pending.comment,
        ],
        ['false_positive', alice, 'alice', 'not them'],
      );
      const listed = (await new AlertQueries(db).list(customerId, { limit: 10 })).items.find((a) => a.id === ids[0])!;
      assert.deepEqual(listed.pending, proposed.pending, 'the list shows the proposal as the detail does');
      await assert.rejects(store.decide(customerId, ids[0], fp(2), { tokenId: alice }), AlertSelfApproval);
      await assert.rejects(store.decide(customerId, ids[0], fp(1), { tokenId: bob }), AlertVersionConflict);
      const approved = (await store.decide(customerId, ids[0], fp(2), { tokenId: bob }))!;
      assert.deepEqual([approved.status, approved.version, approved.pending], ['false_positive', 3, null]);
      assert.deepEqual(
        approved.history.map((e) => [e.kind, e.status, e.on_version, e.token_id]),
        [
          ['proposal', 'false_positive', 1, alice],
          ['approval', 'false_positive', 2, bob],
        ],
      );
      // An escalation is a plain decision: it takes effect at once and drops a pending proposal.
      await store.decide(customerId, ids[1], { status: 'confirmed', comment: 'them', version: 1 }, { tokenId: alice });
      const escalated = (await store.decide(
        customerId,
        ids[1],
        { status: 'escalated', version: 2 },
        { tokenId: alice },
      ))!;
      assert.deepEqual([escalated.status, escalated.version, escalated.pending], ['escalated', 3, null]);
      // Bulk: a self-approval among them aborts all.
      await store.decide(customerId, ids[1], fp(3), { tokenId: alice });
      await assert.rejects(
        store.decideMany(
          customerId,
          [
            { id: ids[1], ...fp(4) },
            { id: ids[0], status: 'closed', version: 3 },
          ],
          { tokenId: alice },
        ),
        AlertSelfApproval,
      );
      assert.equal((await store.get(customerId, ids[0]))!.status, 'false_positive', 'nothing of the bulk decided');
      const bulk = await store.decideMany(customerId, [{ id: ids[1], ...fp(4) }], { tokenId: bob });
      assert.ok(Array.isArray(bulk));
      assert.deepEqual([bulk[0].status, bulk[0].history.at(-1)!.kind], ['false_positive', 'approval']);
      const events = await audit().decisionQueries.list(customerId, {
        from: started,
        to: Date.now() + 60_000,
        limit: 100,
      });
      assert.deepEqual(
        events.items.map((d) => [d.alert_id, d.event, d.status, d.token_id]),
        [
          [0, 'four_eyes_on', null, alice],
          [ids[0], 'proposal', 'false_positive', alice],
          [ids[0], 'approval', 'false_positive', bob],
          [ids[1], 'proposal', 'confirmed', alice],
          [ids[1], 'decision', 'escalated', alice],
          [ids[1], 'proposal', 'false_positive', alice],
          [ids[1], 'approval', 'false_positive', bob],
        ],
      );
    });
  });
}
