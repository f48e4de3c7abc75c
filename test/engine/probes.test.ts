import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../engine/engine.js';
import { matchOne } from '../../engine/match-one.js';
import { ENTITY_TYPES, type EntityRecord, type EntityType } from '../../engine/model.js';
import { ProbeList, type ScreenKind } from '../../engine/probes.js';
import { syntheticRecords, SYNTHETIC_LISTS } from '../../harness/synthetic.js';

/**
 * Screening (the engine's indexes) and monitoring (matchOne, one record at a time) read one probe
 * table (engine/probes.ts). For every entity type, values as listed and as clients write them
 * (other case, a URL around a host, an address at a listed domain, a subdomain, a typo in an ID)
 * are screened both ways over the same records: the matches and their kinds must be the same.
 */

const host = (v: string) => v.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
const typo = (v: string) => v.slice(0, -1) + (v.endsWith('7') ? '8' : '7');

/** The screening kind that finds each entity type, and the values a client could screen for a listed value. */
const SCREENS: Record<Exclude<EntityType, 'name' | 'party'>, [ScreenKind, (listed: string) => string[]]> = {
  crypto_address: ['crypto', (v) => [v, v.toUpperCase(), ` ${v.toLowerCase()} `]],
  email: ['email', (v) => [v, v.toUpperCase(), `someone.else@${v.split('@')[1]}`]],
  email_domain: ['email', (v) => [`someone@${host(v)}`, `someone@mx.${host(v).toUpperCase()}`]],
  website: ['website', (v) => [v, `https://www.${host(v)}/login?x=1`, `shop.${host(v)}`]],
  government_id: ['id', (v) => [v, v.toLowerCase().replace(/[ -]/g, ''), typo(v)]],
  country: ['country', (v) => [v, v.toUpperCase()]],
};
/** Values whose country matches come through regions (a region in a country, a country holding a region). */
const COUNTRY_SCREENS = ['Ukraine', 'Crimea', 'UA-43', 'Sevastopol', 'RU', 'Russia', 'IRN', 'Cuba'];

const RECORDS: EntityRecord[] = [...syntheticRecords(1500, 7)].filter((r) => r.removed_at === null);
const LISTS = SYNTHETIC_LISTS.map((l) => l.slug);

function screens(): [EntityType, ScreenKind, string][] {
  const out: [EntityType, ScreenKind, string][] = [];
  for (const [type, [kind, variants]] of Object.entries(SCREENS) as [
    Exclude<EntityType, 'name' | 'party'>,
    [ScreenKind, (v: string) => string[]],
  ][]) {
    for (const r of RECORDS.filter((x) => x.entity_type === type).slice(0, 12))
      for (const v of variants(r.value)) out.push([type, kind, v]);
  }
  for (const v of COUNTRY_SCREENS) out.push(['country', 'country', v]);
  return out;
}

const key = (r: { list: string; value: string; match: string; similarity: number }) =>
  `${r.list} ${r.value} ${r.match} ${r.similarity.toFixed(6)}`;

let engine: Engine;
before(async () => {
  engine = await Engine.create({ shards: 2 });
  await engine.load({ lists: SYNTHETIC_LISTS, records: RECORDS });
});
after(() => engine.close());

describe('screening and monitoring read one probe table', () => {
  const matchedTypes = new Set<EntityType>();
  for (const [type, kind, value] of screens()) {
    test(`${type}: ${kind} ${JSON.stringify(value)}`, async () => {
      const screened = (await engine.screen({ kind, value, lists: LISTS })).map((h) =>
        key({ list: h.entity.list, value: h.entity.value, match: h.match, similarity: h.similarity }),
      );
      const monitored = RECORDS.flatMap((r) => {
        const m = matchOne(kind, value, r);
        if (m) matchedTypes.add(r.entity_type);
        return m ? [key({ list: r.list, value: r.value, match: m.match, similarity: m.similarity })] : [];
      });
      assert.deepEqual(monitored.sort(), screened.sort());
    });
  }

  test('every entity type a screening can meet was met (the comparison is not vacuous)', () => {
    assert.deepEqual([...matchedTypes].sort(), ENTITY_TYPES.filter((t) => t !== 'name' && t !== 'party').sort());
  });

  test('no screening kind probes names or parties (names are searched, parties screened by name)', () => {
    const probed = new Set<EntityType>();
    const probes = new ProbeList();
    for (const [, kind, value] of screens()) {
      probes.screening(kind, value);
      for (let i = 0; i < probes.length; i++) probed.add(ENTITY_TYPES[probes.types[i]]);
    }
    assert.equal(probed.has('name'), false);
    assert.deepEqual([...probed].sort(), ENTITY_TYPES.filter((t) => t !== 'name' && t !== 'party').sort());
  });
});
