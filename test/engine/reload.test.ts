import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, RegexTooCostly } from '../../engine/engine.js';
import type { EntityRecord } from '../../engine/model.js';
import { syntheticRecords, SYNTHETIC_LISTS } from '../../harness/synthetic.js';

const ADDRESS = '0x7f367cc41522ce07553e823bf3be79a889debe1b';
const ALL = SYNTHETIC_LISTS.map((l) => l.slug);

function tagged(tag: string): EntityRecord[] {
  const meta = { gen: tag };
  const base = { list: 'ofac_sdn', source_url: null, listed_at: null, removed_at: null, metadata: meta };
  return [
    { ...base, entity_type: 'crypto_address', value: ADDRESS },
    { ...base, entity_type: 'name', value: 'Zorblat Quixotic Holdings' },
    { ...base, entity_type: 'name', value: 'Zorblat Quixotic Trading' },
    { ...base, entity_type: 'government_id', value: 'QX7781234' },
  ];
}

async function* stream(tag: string, filler: number): AsyncIterable<EntityRecord> {
  yield* tagged(tag);
  for (const r of syntheticRecords(filler, tag === 'A' ? 11 : 12)) yield r;
}

describe('generations', () => {
  let engine: Engine;
  const progress: number[] = [];
  before(async () => {
    engine = await Engine.create({ shards: 2, onProgress: (n) => progress.push(n) });
  });
  after(() => engine.close());

  test('an engine without a load answers with nothing', async () => {
    assert.equal(engine.generation(), 0);
    assert.deepEqual(await engine.screen({ kind: 'crypto', value: ADDRESS, lists: ALL }), []);
    assert.deepEqual(engine.stats(), { lists: {}, delisted: 0, countries: 0 });
  });

  test('streaming load reports progress and counts', async () => {
    const r = await engine.load({ lists: SYNTHETIC_LISTS, records: stream('A', 30_000) });
    assert.equal(r.entities, 30_004);
    assert.equal(engine.generation(), 1);
    assert.deepEqual(progress, [10_000, 20_000, 30_000, 30_004]);
    const stats = engine.stats();
    const active = Object.values(stats.lists).reduce((s, l) => s + l.total, 0);
    assert.equal(active + stats.delisted, 30_004);
    for (const l of Object.values(stats.lists))
      assert.equal(
        Object.values(l.by_entity_type).reduce((a, b) => a + b, 0),
        l.total,
      );
  });

  test('every synthetic crypto address screens back to itself', async () => {
    let checked = 0;
    let id = 4;
    for (const r of syntheticRecords(3000, 11)) {
      if (r.entity_type === 'crypto_address' && r.removed_at === null) {
        // EVM hex and bech32 (valid checksums) are case-insensitive; base58 is screened as published.
        const value = r.value.startsWith('0x')
          ? '0x' + r.value.slice(2).toUpperCase()
          : r.value.startsWith('bc1')
            ? r.value.toUpperCase()
            : r.value;
        const hits = await engine.screen({ kind: 'crypto', value, lists: [r.list] });
        assert.ok(
          hits.some((h) => h.entity.id === id && h.match === 'exact'),
          r.value,
        );
        checked++;
      }
      id++;
    }
    assert.ok(checked > 300);
  });

  test('queries during a reload see the old or the new generation, never a mix', async () => {
    const seen: { issuedOn: number; tags: string[] }[] = [];
    let loading = true;
    const reload = engine
      .load({ lists: SYNTHETIC_LISTS, records: stream('B', 30_000) })
      .finally(() => (loading = false));
    const inFlight: Promise<void>[] = [];
    const fire = () => {
      const issuedOn = engine.generation();
      const tags = (hits: { entity: { metadata: Record<string, unknown> } }[]) =>
        hits.map((h) => String(h.entity.metadata.gen));
      inFlight.push(
        engine
          .search({ q: 'Zorblat Quixotic', mode: 'fuzzy', lists: ['ofac_sdn'], limit: 5 })
          .then((h) => void seen.push({ issuedOn, tags: tags(h) })),
        engine
          .screen({ kind: 'id', value: 'QX7781235', lists: ['ofac_sdn'] })
          .then((h) => void seen.push({ issuedOn, tags: tags(h) })),
        engine
          .screen({ kind: 'crypto', value: ADDRESS, lists: ALL })
          .then((h) => void seen.push({ issuedOn, tags: tags(h) })),
      );
    };
    while (loading) {
      fire();
      await new Promise((r) => setTimeout(r, 2));
    }
    fire();
    await reload;
    await Promise.all(inFlight);
    assert.equal(engine.generation(), 2);
    const want: Record<number, string> = { 1: 'A', 2: 'B' };
    for (const s of seen) {
      assert.ok(s.tags.length > 0);
      assert.deepEqual(
        s.tags,
        s.tags.map(() => want[s.issuedOn]),
      );
    }
    assert.ok(seen.some((s) => s.issuedOn === 1));
    assert.ok(seen.some((s) => s.issuedOn === 2));
    assert.equal(seen.length, inFlight.length);
  });

  test('a regex scan either finishes or is refused at its budget, never answered in part', async () => {
    const needle: EntityRecord = {
      list: 'ofac_sdn',
      entity_type: 'name',
      value: 'Needle Qwxz Last',
      metadata: {},
      source_url: null,
      listed_at: null,
      removed_at: null,
    };
    async function* records() {
      for (const r of syntheticRecords(120_000, 13)) yield r;
      yield needle;
    }
    await engine.load({ lists: SYNTHETIC_LISTS, records: records() });
    const full = await engine.search({ q: 'needle qwxz', mode: 'regex', lists: ALL, limit: 5, budgetMs: 60_000 });
    assert.deepEqual(
      full.map((h) => [h.entity.id, h.match]),
      [[120_000, 'regex']],
    );
    await assert.rejects(
      engine.search({ q: 'needle qwxz', mode: 'regex', lists: ALL, limit: 5, budgetMs: 0 }),
      RegexTooCostly,
    );
  });
});
