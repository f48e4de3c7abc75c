import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../engine/engine.js';
import type { KindName } from '../../engine/kinds.js';
import { matchOne } from '../../engine/match-one.js';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { MonitorIndex, type Monitor } from '../../src/webhooks/sink.js';

/**
 * matchOne must say what the engine says: for every screened value below, the records it matches
 * (and how) are exactly the engine's screening hits over the same records. The monitor index of
 * the webhook sink must find the same pairs from the records' side.
 */

const rec = (entity_type: EntityType, value: string): EntityRecord => ({
  list: 'l',
  entity_type,
  value,
  metadata: {},
  source_url: null,
  listed_at: null,
  removed_at: null,
});

const RECORDS: EntityRecord[] = [
  rec('crypto_address', '0x7F367cC41522cE07553e823bf3be79A889DEbe1B'),
  rec('crypto_address', 'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6'),
  rec('crypto_address', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'),
  rec('email', 'Fraud.Desk@Example.org'),
  rec('email_domain', '@tempbox.example'),
  rec('website', 'https://www.phish.example.com/login'),
  rec('website', 'evil.co.uk'),
  rec('government_id', 'AB 1234568'),
  rec('government_id', 'X12'),
  rec('government_id', 'LONGID12345678901234567'),
  rec('country', 'Crimea'),
  rec('country', 'Iran'),
  rec('country', 'UA'),
];

const SCREENS: [KindName, string][] = [
  ['crypto', '0x7f367cc41522ce07553e823bf3be79a889debe1b'],
  ['crypto', 'BC1QA5WKGAEW2DKV56KFVJ49J0AV5NML45X9EK9HZ6'],
  ['crypto', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
  ['crypto', '1bvbmseystwetqtfn5au4m4gfg7xjanvn2'],
  ['email', 'fraud.desk@EXAMPLE.ORG'],
  ['email', 'anyone@tempbox.example'],
  ['email', 'anyone@mx.tempbox.example'],
  ['email', 'anyone@example.com'],
  ['website', 'phish.example.com'],
  ['website', 'a.b.phish.example.com/x?y'],
  ['website', 'example.com'],
  ['website', 'shop.evil.co.uk'],
  ['website', 'co.uk'],
  ['id', 'ab-1234568'],
  ['id', 'AB1234567'],
  ['id', 'AB9934567'],
  ['id', 'X13'],
  ['id', 'AB1234586'],
  ['id', 'AB123456'],
  ['id', 'XAB1234568'],
  ['id', 'LONGID12345678901234X6Y'],
  ['id', 'LONGID123456789012345'],
  ['country', 'Ukraine'],
  ['country', 'Crimea'],
  ['country', 'UA-40'],
  ['country', 'IRN'],
  ['country', 'Russia'],
];

let engine: Engine;
before(async () => {
  engine = await Engine.create({ shards: 1 });
  await engine.load({
    lists: [{ slug: 'l', list_type: 'sanctions', version: '1', last_updated: null }],
    records: RECORDS,
  });
});
after(() => engine.close());

const pairs = (hits: { value: string; match: string }[]) => hits.map((h) => `${h.value} ${h.match}`).sort();

describe('matchOne agrees with the engine', () => {
  for (const [kind, value] of SCREENS) {
    test(`${kind} ${value}`, async () => {
      const engineHits = (await engine.screen({ kind, value, lists: ['l'] })).map((h) => ({
        value: h.entity.value,
        match: h.match,
      }));
      const ours = RECORDS.flatMap((r) => {
        const m = matchOne(kind, value, r);
        return m ? [{ value: r.value, match: m.match }] : [];
      });
      assert.deepEqual(pairs(ours), pairs(engineHits));
    });
  }

  test('the screenings above match what they should (the comparison is not vacuous)', () => {
    const count = (kind: KindName, value: string) =>
      RECORDS.filter((r) => matchOne(kind, value, r)).map((r) => matchOne(kind, value, r)!.match);
    assert.deepEqual(count('website', 'a.b.phish.example.com/x?y'), ['subdomain']);
    assert.deepEqual(count('email', 'anyone@mx.tempbox.example'), ['domain']);
    assert.deepEqual(count('id', 'AB1234567'), ['fuzzy']);
    assert.deepEqual(count('id', 'AB1234586'), ['fuzzy']);
    assert.deepEqual(count('id', 'XAB1234568'), ['fuzzy']);
    assert.deepEqual(count('id', 'LONGID12345678901234X6Y'), ['fuzzy']);
    assert.deepEqual(count('id', 'X13'), []);
    assert.deepEqual(count('country', 'Ukraine'), ['region', 'exact']);
    assert.deepEqual(count('country', 'UA-40'), ['region']);
    assert.deepEqual(count('crypto', '1bvbmseystwetqtfn5au4m4gfg7xjanvn2'), []);
  });

  test('the monitor index finds the same pairs from the records’ side', () => {
    const types: Record<KindName, Monitor['entity_type']> = {
      crypto: 'onchain_address',
      email: 'email',
      website: 'website',
      id: 'government_id',
      country: 'country',
    };
    const monitors: Monitor[] = SCREENS.map(([kind, value], i) => ({
      id: i + 1,
      customer_id: 1,
      entity_type: types[kind],
      value,
      label: null,
      screened: value,
    }));
    const index = new MonitorIndex(monitors);
    for (const r of RECORDS) {
      const expected = monitors.filter((m, i) => matchOne(SCREENS[i][0], m.screened, r) !== null).map((m) => m.id);
      assert.deepEqual(
        index
          .matching(r)
          .map((m) => m.id)
          .sort((a, b) => a - b),
        expected,
        r.value,
      );
    }
  });
});
