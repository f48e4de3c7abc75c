import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, EngineQueryError, type Hit } from '../../engine/engine.js';
import type { EntityRecord, EntityType, ListSnapshotInfo } from '../../engine/model.js';

const LISTS: ListSnapshotInfo[] = [
  { slug: 'sdn', list_type: 'sanctions', version: 'v1', last_updated: '2026-01-01T00:00:00Z' },
  { slug: 'scam', list_type: 'crime', version: 'v1', last_updated: null },
  { slug: 'disposable', list_type: 'risk', version: 'v1', last_updated: null },
];
const ALL = ['sdn', 'scam', 'disposable'];

function rec(
  list: string,
  entity_type: EntityType,
  value: string,
  removed_at: string | null = null,
  metadata: Record<string, unknown> = {},
): EntityRecord {
  return {
    list,
    entity_type,
    value,
    metadata,
    source_url: `https://example.org/${list}`,
    listed_at: '2024-01-01T00:00:00Z',
    removed_at,
  };
}

const RECORDS: EntityRecord[] = [
  rec('sdn', 'crypto_address', '0x7F367cC41522cE07553e823bf3be79A889DEbe1B'), // 0
  rec('scam', 'crypto_address', '0x7f367cc41522ce07553e823bf3be79a889debe1b'), // 1 same key, other list
  rec('sdn', 'crypto_address', 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh', '2025-03-01T00:00:00Z'), // 2 delisted
  rec('sdn', 'email', 'ops@evil-corp.com'), // 3
  rec('disposable', 'email_domain', 'mailinator.com'), // 4
  rec('sdn', 'website', 'evil-corp.com'), // 5
  rec('scam', 'website', 'https://www.shop.evil-corp.com/login'), // 6
  rec('sdn', 'government_id', 'AB-1234567'), // 7
  rec('sdn', 'government_id', 'ZX9876543', '2025-06-01T00:00:00Z'), // 8 delisted
  rec('sdn', 'country', 'Iran'), // 9
  rec('sdn', 'country', 'Crimea'), // 10
  rec('sdn', 'country', 'Russia'), // 11
  rec('sdn', 'name', 'Vladimir Vladimirovich PUTIN'), // 12
  rec('sdn', 'name', 'ACME TRADING LLC'), // 13
  rec('sdn', 'name', 'Vladimir Putin Foundation', '2025-01-01T00:00:00Z'), // 14 delisted
  rec('scam', 'name', 'Putin Fan Club'), // 15
];

const brief = (hits: Hit[]) => hits.map((h) => [h.entity.id, h.match, h.similarity]);

describe('engine semantics on a small generation', () => {
  let engine: Engine;
  before(async () => {
    engine = await Engine.create({ shards: 2 });
    const r = await engine.load({ lists: LISTS, records: RECORDS });
    assert.equal(r.entities, RECORDS.length);
  });
  after(() => engine.close());

  test('crypto: canonical key matches whatever the case, per list, delisted excluded', async () => {
    assert.deepEqual(
      brief(await engine.screen({ kind: 'crypto', value: '0x7f367CC41522ce07553e823bf3be79a889debe1b', lists: ALL })),
      [
        [0, 'exact', 1],
        [1, 'exact', 1],
      ],
    );
    assert.deepEqual(
      brief(
        await engine.screen({ kind: 'crypto', value: ' 0x7F367CC41522CE07553E823BF3BE79A889DEBE1B ', lists: ['scam'] }),
      ),
      [[1, 'exact', 1]],
    );
    assert.deepEqual(
      await engine.screen({ kind: 'crypto', value: 'BC1QXY2KGDYGJRSQTZQ2N0YRF2493P83KKFJHX0WLH', lists: ALL }),
      [],
    );
    assert.deepEqual(
      await engine.screen({ kind: 'crypto', value: '0x0000000000000000000000000000000000000000', lists: ALL }),
      [],
    );
  });

  test('hits carry the whole entity view', async () => {
    const [hit] = await engine.screen({
      kind: 'crypto',
      value: '0x7f367cc41522ce07553e823bf3be79a889debe1b',
      lists: ['sdn'],
    });
    assert.deepEqual(hit.entity, {
      id: 0,
      list: 'sdn',
      entity_type: 'crypto_address',
      value: '0x7F367cC41522cE07553e823bf3be79A889DEbe1B',
      metadata: {},
      source_url: 'https://example.org/sdn',
      listed_at: '2024-01-01T00:00:00Z',
      removed_at: null,
    });
  });

  test('email: address exact, its domain and parent domains against e-mail domains', async () => {
    assert.deepEqual(brief(await engine.screen({ kind: 'email', value: 'OPS@Evil-Corp.com', lists: ALL })), [
      [3, 'exact', 1],
    ]);
    assert.deepEqual(brief(await engine.screen({ kind: 'email', value: 'someone@mailinator.com', lists: ALL })), [
      [4, 'domain', 1],
    ]);
    assert.deepEqual(brief(await engine.screen({ kind: 'email', value: 'someone@x.eu.mailinator.com', lists: ALL })), [
      [4, 'domain', 1],
    ]);
    assert.deepEqual(await engine.screen({ kind: 'email', value: 'someone@mailinator.com', lists: ['sdn'] }), []);
    assert.deepEqual(await engine.screen({ kind: 'email', value: 'not an address', lists: ALL }), []);
  });

  test('website: host exact, listed parent domains as subdomain, never the other way', async () => {
    assert.deepEqual(
      brief(await engine.screen({ kind: 'website', value: 'https://WWW.evil-corp.com/about', lists: ALL })),
      [[5, 'exact', 1]],
    );
    assert.deepEqual(brief(await engine.screen({ kind: 'website', value: 'shop.evil-corp.com', lists: ALL })), [
      [6, 'exact', 1],
      [5, 'subdomain', 1],
    ]);
    assert.deepEqual(brief(await engine.screen({ kind: 'website', value: 'a.b.evil-corp.com', lists: ['sdn'] })), [
      [5, 'subdomain', 1],
    ]);
    assert.deepEqual(await engine.screen({ kind: 'website', value: 'corp.com', lists: ALL }), []);
  });

  test('country: code exact, regions of a country and the country of a region', async () => {
    assert.deepEqual(brief(await engine.screen({ kind: 'country', value: 'IRN', lists: ALL })), [[9, 'exact', 1]]);
    assert.deepEqual(brief(await engine.screen({ kind: 'country', value: 'Ukraine', lists: ALL })), [
      [10, 'region', 1],
    ]);
    assert.deepEqual(brief(await engine.screen({ kind: 'country', value: 'crimea', lists: ALL })), [[10, 'exact', 1]]);
    assert.deepEqual(await engine.screen({ kind: 'country', value: 'Narnia', lists: ALL }), []);
  });

  test('government id: exact key, fuzzy near misses, delisted and unrelated excluded', async () => {
    assert.deepEqual(brief(await engine.screen({ kind: 'id', value: 'ab 1234567', lists: ALL })), [[7, 'exact', 1]]);
    const fuzzy = await engine.screen({ kind: 'id', value: 'AB1234667', lists: ALL });
    assert.deepEqual(
      fuzzy.map((h) => [h.entity.id, h.match]),
      [[7, 'fuzzy']],
    );
    assert.ok(fuzzy[0].similarity >= 0.85 && fuzzy[0].similarity < 1);
    assert.deepEqual(await engine.screen({ kind: 'id', value: 'ZX9876543', lists: ALL }), []);
    assert.deepEqual(await engine.screen({ kind: 'id', value: 'QQ5550001', lists: ALL }), []);
    assert.deepEqual(await engine.screen({ kind: 'id', value: 'AB1234567', lists: ['scam'] }), []);
    assert.deepEqual(await engine.screen({ kind: 'id', value: '---', lists: ALL }), []);
  });

  test('screenExact answers exact kinds synchronously and declines id', () => {
    assert.deepEqual(
      brief(
        engine.screenExact({ kind: 'crypto', value: '0x7f367cc41522ce07553e823bf3be79a889debe1b', lists: ['sdn'] })!,
      ),
      [[0, 'exact', 1]],
    );
    assert.equal(engine.screenExact({ kind: 'id', value: 'AB1234567', lists: ALL }), null);
    assert.deepEqual(
      engine.screenExact({ kind: 'crypto', value: '0x7f367cc41522ce07553e823bf3be79a889debe1b', lists: ['unknown'] }),
      [],
    );
  });

  test('raw lookup sees every list and state', () => {
    assert.deepEqual(engine.lookup('crypto_address', 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh'), [2]);
    assert.deepEqual(engine.lookup('crypto_address', '0x7f367cc41522ce07553e823bf3be79a889debe1b'), [0, 1]);
    assert.deepEqual(engine.lookup('website', '0x7f367cc41522ce07553e823bf3be79a889debe1b'), []);
  });

  test('fuzzy search: verified names, active first, delisted last, list filter', async () => {
    const hits = await engine.search({ q: 'Vladimir Putin', mode: 'fuzzy', lists: ALL, limit: 10 });
    const ids = hits.map((h) => h.entity.id);
    assert.equal(ids[0], 12);
    assert.ok(ids.includes(14));
    assert.equal(ids[ids.length - 1], 14);
    assert.ok(hits.every((h) => h.match === 'fuzzy' && h.similarity >= 0.6 && h.similarity <= 1));
    assert.ok(hits.slice(0, -1).every((h) => h.entity.removed_at === null));
    for (let i = 1; i < hits.length - 1; i++) assert.ok(hits[i - 1].similarity >= hits[i].similarity);
    const scamOnly = await engine.search({ q: 'Vladimir Putin', mode: 'fuzzy', lists: ['scam'], limit: 10 });
    assert.ok(scamOnly.every((h) => h.entity.list === 'scam'));
    assert.equal((await engine.search({ q: 'Vladimir Putin', mode: 'fuzzy', lists: ALL, limit: 1 })).length, 1);
  });

  test('fuzzy search: a typo still finds the name', async () => {
    const hits = await engine.search({ q: 'Vladimir Vladimirovich Putn', mode: 'fuzzy', lists: ['sdn'], limit: 3 });
    assert.equal(hits[0].entity.id, 12);
    assert.ok(hits[0].similarity >= 0.85);
  });

  test('fuzzy search: a typo in the first letters of a token, which loses its index terms, still finds the name', async () => {
    // `AMCE` shares no indexed term (token or four-letter prefix) with any name: its one-edit
    // neighbour `ACME` stands in for it.
    const hits = await engine.search({ q: 'Amce', mode: 'fuzzy', lists: ALL, limit: 10 });
    assert.deepEqual(
      hits.map((h) => [h.entity.id, h.match]),
      [[13, 'fuzzy']],
    );
    assert.ok(hits[0].similarity >= 0.6 && hits[0].similarity < 1);
  });

  test('fuzzy search: exact keys of addresses, e-mails, domains, IDs and countries', async () => {
    const crypto = await engine.search({
      q: '0x7F367CC41522CE07553E823BF3BE79A889DEBE1B',
      mode: 'fuzzy',
      lists: ALL,
      limit: 10,
    });
    assert.deepEqual(brief(crypto), [
      [0, 'exact', 1],
      [1, 'exact', 1],
    ]);
    const delisted = await engine.search({
      q: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
      mode: 'fuzzy',
      lists: ALL,
      limit: 10,
    });
    assert.deepEqual(brief(delisted), [[2, 'exact', 1]]);
    assert.deepEqual(brief(await engine.search({ q: 'mailinator.com', mode: 'fuzzy', lists: ALL, limit: 10 })), [
      [4, 'exact', 1],
    ]);
    assert.deepEqual(brief(await engine.search({ q: 'Iran', mode: 'fuzzy', lists: ['sdn'], limit: 10 }))[0], [
      9,
      'exact',
      1,
    ]);
    const id = await engine.search({ q: 'AB1234567', mode: 'fuzzy', lists: ALL, limit: 10 });
    assert.deepEqual(brief(id)[0], [7, 'exact', 1]);
  });

  test('fuzzy search: address prefixes covering most of the key', async () => {
    const hits = await engine.search({
      q: '0x7f367cc41522ce07553e823bf3be79',
      mode: 'fuzzy',
      lists: ['sdn'],
      limit: 10,
    });
    assert.deepEqual(
      hits.map((h) => [h.entity.id, h.match]),
      [[0, 'fuzzy']],
    );
    assert.equal(hits[0].similarity, 32 / 42);
    assert.deepEqual(await engine.search({ q: '0x7f36', mode: 'fuzzy', lists: ALL, limit: 10 }), []);
  });

  test('regex search: case-insensitive over every entity type, limit, delisted last', async () => {
    const hits = await engine.search({ q: 'put[i1]n', mode: 'regex', lists: ALL, limit: 10 });
    assert.deepEqual(brief(hits), [
      [12, 'regex', 1],
      [15, 'regex', 1],
      [14, 'regex', 1],
    ]);
    assert.deepEqual(brief(await engine.search({ q: 'EVIL-CORP', mode: 'regex', lists: ['sdn'], limit: 10 })), [
      [3, 'regex', 1],
      [5, 'regex', 1],
    ]);
    assert.equal((await engine.search({ q: '.', mode: 'regex', lists: ALL, limit: 4 })).length, 4);
  });

  test('invalid regex is an EngineQueryError', async () => {
    await assert.rejects(engine.search({ q: '(unclosed', mode: 'regex', lists: ALL, limit: 10 }), EngineQueryError);
    await assert.rejects(engine.search({ q: 'a**', mode: 'regex', lists: ALL, limit: 10 }), EngineQueryError);
  });

  test('entities: active only, stable pages, total of the list', () => {
    const all = engine.entities('sdn', { limit: 100 });
    assert.equal(all.total, 9);
    assert.deepEqual(
      all.entities.map((e) => e.id),
      [0, 3, 5, 7, 9, 10, 11, 12, 13],
    );
    const page = engine.entities('sdn', { limit: 3, offset: 2 });
    assert.equal(page.total, 9);
    assert.deepEqual(
      page.entities.map((e) => e.id),
      [5, 7, 9],
    );
    assert.deepEqual(engine.entities('nope', { limit: 3 }), { total: 0, entities: [] });
  });

  test('delisted: newest removal first, filtered by list', () => {
    assert.deepEqual(
      engine.delisted(ALL, 10).map((e) => [e.id, e.removed_at]),
      [
        [8, '2025-06-01T00:00:00Z'],
        [2, '2025-03-01T00:00:00Z'],
        [14, '2025-01-01T00:00:00Z'],
      ],
    );
    assert.deepEqual(
      engine.delisted(ALL, 2).map((e) => e.id),
      [8, 2],
    );
    assert.deepEqual(engine.delisted(['scam'], 10), []);
  });

  test('stats: active totals by entity type, delisted and countries', () => {
    assert.deepEqual(engine.stats(), {
      lists: {
        sdn: {
          total: 9,
          by_entity_type: { crypto_address: 1, email: 1, website: 1, government_id: 1, name: 2, country: 3 },
          delisted: 3,
        },
        scam: { total: 3, by_entity_type: { crypto_address: 1, website: 1, name: 1 }, delisted: 0 },
        disposable: { total: 1, by_entity_type: { email_domain: 1 }, delisted: 0 },
      },
      delisted: 3,
      countries: 3,
    });
  });
});

describe('keys spread over shards', () => {
  test('the same key in batches taken by different shards answers with every id, ascending', async () => {
    const engine = await Engine.create({ shards: 2 });
    try {
      const key = '0x7f367cc41522ce07553e823bf3be79a889debe1b';
      const published = '0x7F367CC41522CE07553E823BF3BE79A889DEBE1B';
      const records: EntityRecord[] = [];
      // Batches of 4096 ids alternate between the two shards: ids 0 and 9000 land in one, 5000
      // in the other; 9000 is delisted.
      for (let i = 0; i < 10_000; i++) {
        if (i === 0) records.push(rec('scam', 'crypto_address', published));
        else if (i === 5000) records.push(rec('sdn', 'crypto_address', key));
        else if (i === 9000) records.push(rec('disposable', 'crypto_address', key, '2025-02-01T00:00:00Z'));
        else records.push(rec('sdn', 'government_id', `P${String(i).padStart(7, '0')}`));
      }
      await engine.load({ lists: LISTS, records });
      assert.deepEqual(engine.lookup('crypto_address', key), [0, 5000, 9000]);
      const all = await engine.screen({ kind: 'crypto', value: key, lists: ALL });
      assert.deepEqual(brief(all), [
        [0, 'exact', 1],
        [5000, 'exact', 1],
      ]);
      // Each hit carries its own published value, whichever entity's value the table keeps.
      assert.deepEqual(
        all.map((h) => h.entity.value),
        [published, key],
      );
      assert.deepEqual(brief(await engine.screen({ kind: 'crypto', value: key, lists: ['sdn'] })), [
        [5000, 'exact', 1],
      ]);
      assert.deepEqual(await engine.screen({ kind: 'crypto', value: key, lists: ['disposable'] }), []);
      const delisted = await engine.search({ q: key, mode: 'fuzzy', lists: ['disposable'], limit: 10 });
      assert.deepEqual(
        delisted.map((h) => [h.entity.id, h.match, h.entity.removed_at]),
        [[9000, 'exact', '2025-02-01T00:00:00Z']],
      );
      // Sequential IDs are one substitution apart: the exact one first, then fuzzy neighbours.
      for (const id of [1234, 5999, 9999]) {
        const hits = brief(await engine.screen({ kind: 'id', value: `P${String(id).padStart(7, '0')}`, lists: ALL }));
        assert.deepEqual(hits[0], [id, 'exact', 1]);
        assert.ok(hits.length > 1 && hits.slice(1).every(([, match, sim]) => match === 'fuzzy' && sim === 0.9));
      }
    } finally {
      await engine.close();
    }
  });
});

describe('engine failures', () => {
  test('a record of an unknown entity type fails the load and keeps the old generation', async () => {
    const engine = await Engine.create({ shards: 1 });
    try {
      await engine.load({ lists: LISTS, records: RECORDS.slice(0, 2) });
      const bad = { ...RECORDS[0], entity_type: 'planet' as EntityType };
      await assert.rejects(engine.load({ lists: LISTS, records: [RECORDS[3], bad] }), /unknown entity type "planet"/);
      assert.equal(engine.generation(), 1);
      assert.equal(
        (await engine.screen({ kind: 'crypto', value: '0x7f367cc41522ce07553e823bf3be79a889debe1b', lists: ALL }))
          .length,
        2,
      );
    } finally {
      await engine.close();
    }
  });
});

describe('listing periods: screening as of a past date', () => {
  const T = (d: string) => `2025-0${d}-01T00:00:00.000Z`;
  const period = (
    entity_type: EntityType,
    value: string,
    listed_at: string,
    removed_at: string | null,
    superseded = false,
  ): EntityRecord => ({
    list: 'sdn',
    entity_type,
    value,
    metadata: { p: `${listed_at}` },
    source_url: null,
    listed_at,
    removed_at,
    ...(superseded ? { superseded: true } : {}),
  });
  // An address listed T1-T3, then again from T5; an ID listed T2-T4 (its latest period); a domain active since T1.
  const HISTORY: EntityRecord[] = [
    period('crypto_address', '0xAAAA00000000000000000000000000000000000A', T('5'), null),
    period('website', 'always.example', T('1'), null),
    period('crypto_address', '0xaaaa00000000000000000000000000000000000a', T('1'), T('3'), true),
    period('government_id', 'QQ1234567', T('2'), T('4')),
  ];
  let engine: Engine;
  before(async () => {
    engine = await Engine.create({ shards: 2 });
    await engine.load({ lists: [LISTS[0]], records: HISTORY });
  });
  after(async () => {
    await engine.close();
  });
  const at = (d: string) => Date.parse(T(d));
  const crypto = (asOf?: number) =>
    engine
      .screenExact({ kind: 'crypto', value: '0xaaaa00000000000000000000000000000000000a', lists: ['sdn'], asOf })!
      .map((h) => h.entity.listed_at);

  test('an exact key matches the period that covers the time: listed at or before it, not yet removed', () => {
    assert.deepEqual(crypto(at('1') - 1), []);
    assert.deepEqual(crypto(at('1')), [T('1')]);
    assert.deepEqual(crypto(at('3') - 1), [T('1')]);
    assert.deepEqual(crypto(at('3')), []);
    assert.deepEqual(crypto(at('5')), [T('5')]);
    assert.deepEqual(crypto(), [T('5')], 'now: the active period only');
    assert.deepEqual(
      engine
        .screenExact({ kind: 'website', value: 'login.always.example', lists: ['sdn'], asOf: at('2') })!
        .map((h) => h.match),
      ['subdomain'],
    );
  });

  test('government IDs, exact and fuzzy through the shards, as of a time inside and outside their period', async () => {
    const id = async (value: string, asOf?: number) =>
      (await engine.screen({ kind: 'id', value, lists: ['sdn'], asOf })).map((h) => [h.match, h.entity.value]);
    assert.deepEqual(await id('QQ1234567', at('3')), [['exact', 'QQ1234567']]);
    assert.deepEqual(await id('QQ1234568', at('3')), [['fuzzy', 'QQ1234567']]);
    assert.deepEqual(await id('QQ1234568', at('4')), []);
    assert.deepEqual(await id('QQ1234568'), [], 'delisted now');
  });

  test('a past period never shows as a current delisting, in /delisted, the search or the counts', async () => {
    assert.deepEqual(
      engine.delisted(['sdn'], 10).map((e) => e.value),
      ['QQ1234567'],
    );
    assert.deepEqual(engine.stats().lists.sdn, {
      total: 2,
      by_entity_type: { crypto_address: 1, website: 1 },
      delisted: 1,
    });
    const found = await engine.search({
      q: '0xaaaa00000000000000000000000000000000000a',
      mode: 'fuzzy',
      lists: ['sdn'],
      limit: 10,
    });
    assert.deepEqual(
      found.map((h) => [h.entity.listed_at, h.entity.removed_at]),
      [[T('5'), null]],
    );
    const regex = await engine.search({ q: '^0xaaaa', mode: 'regex', lists: ['sdn'], limit: 10 });
    assert.deepEqual(
      regex.map((h) => h.entity.listed_at),
      [T('5')],
    );
  });
});
