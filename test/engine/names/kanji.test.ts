import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../engine/engine.js';
import type { EntityRecord, ListSnapshotInfo } from '../../../engine/model.js';
import { indexTerms, nameIndexTerms, nameScore, prepareName } from '../../../engine/names/index.js';
import { hanjaReading } from '../../../engine/names/hanja.js';
import { kanjiReaderReady, kanjiReading, loadKanjiReader, readKanji } from '../../../engine/names/kanji.js';

/**
 * Japanese names in kanji read as the lists romanize them (issue #39), through kuromoji's
 * dictionary; the names are made up of common family and given names.
 */
const score = (a: string, b: string) => {
  const s = nameScore(prepareName(a), prepareName(b));
  assert.equal(nameScore(prepareName(b), prepareName(a)), s, `symmetric: ${a} | ${b}`);
  return s;
};

describe('kanji read in Japanese', () => {
  test('until the dictionary is loaded, kanji are read in Mandarin only', () => {
    assert.equal(kanjiReaderReady(), false);
    assert.equal(readKanji('佐藤健'), null);
    assert.deepEqual(prepareName('佐藤健').readings, []);
    assert.deepEqual(prepareName('佐藤健').latin.tokens, ['ZUO', 'TENG', 'JIAN']);
    assert.equal(score('佐藤健', 'SATO Ken'), 0);
  });

  test('family and given names in Hepburn, long vowels written short', async () => {
    assert.equal(await loadKanjiReader(), true);
    assert.equal(kanjiReaderReady(), true);
    assert.equal(kanjiReading('河野洋平'), 'コウノ・ヨウヘイ');
    assert.deepEqual(
      ['佐藤健', '鈴木一郎', '河野洋平', '高橋由美子', '小泉純一郎', '村上 春樹', '大野伴睦'].map(readKanji),
      [
        ['SATO', 'KEN'],
        ['SUZUKI', 'ICHIRO'],
        ['KONO', 'YOHEI'],
        ['TAKAHASHI', 'YUMIKO'],
        ['KOIZUMI', 'JUNICHIRO'],
        ['MURAKAMI', 'HARUKI'],
        ['ONO', 'BANBOKU'],
      ],
    );
    // A character Japanese does not write, or Latin letters beside the kanji: no Japanese reading.
    assert.equal(readKanji('习近平'), null);
    assert.equal(readKanji('Jin Tiesan (金铁三)'), null);
  });

  test('a Japanese name meets its romanization; Chinese names keep their Mandarin reading', () => {
    assert.equal(score('佐藤健', 'SATO Ken'), 1);
    assert.equal(score('鈴木一郎', 'Suzuki Ichiro'), 1);
    assert.equal(score('鈴木一郎', 'Ichiro Suzuki'), 0.9);
    assert.equal(score('小泉純一郎', 'KOIZUMI, Junichiro'), 0.9);
    assert.equal(score('河野洋平', 'Kono Yohei'), 1);
    // Another given name, or another family name: no match.
    assert.equal(score('鈴木一郎', 'Suzuki Hanako'), 0.25);
    assert.equal(score('鈴木一郎', 'Sato Ichiro'), 1 / 3);
    assert.equal(score('王伟', 'Wang Wei'), 1);
    assert.equal(score('李明', 'Li Ming'), 1);
    // Two names in kanji are compared character by character, not by reading.
    assert.equal(score('鈴木一郎', '鈴木一郎'), 1);
  });

  test("an organisation's name has no Japanese reading", () => {
    assert.deepEqual(
      prepareName('鈴木一郎').readings.map((r) => r.latin.tokens),
      [['SUZUKI', 'ICHIRO']],
    );
    assert.deepEqual(prepareName('鈴木一郎', { type: 'organization' }).readings, []);
  });

  test('index terms hold the Japanese reading, as the prepared name does', () => {
    for (const [value, type] of [
      ['鈴木一郎', null],
      ['鈴木一郎', 'organization'],
      ['李明', null],
      ['Jin Tiesan (金铁三)', null],
    ] as const)
      assert.deepEqual(nameIndexTerms(value, type), indexTerms(prepareName(value, { type })), value);
    assert.deepEqual(nameIndexTerms('鈴木一郎'), [
      'LING',
      'LNG',
      'MU',
      'YI',
      'I',
      'LANG',
      '鈴',
      '木',
      '一',
      '郎',
      'SUZUKI',
      'SZK',
      'ICHIRO',
      'CHR',
    ]);
  });
});

describe('Korean names in Chinese characters read as the lists romanize them', () => {
  test('the Sino-Korean reading of each character, surnames also in the South spellings', () => {
    // Its Japanese reading comes second (the reader is loaded above).
    assert.equal(hanjaReading('崔龍海'), '최룡해');
    assert.equal(hanjaReading('朴 槿惠'), '박 근혜');
    assert.equal(hanjaReading('佐藤健'), null);
    // Written given name first, as Korean names are not: no Korean reading (it met the vessel `MI RIM`).
    assert.equal(hanjaReading('美珍 林'), null);
    assert.equal(score('美珍 林', 'MI RIM'), 0);
    assert.deepEqual(
      prepareName('文在寅').readings.map((r) => r.latin.tokens),
      [['MUN', 'JAE', 'IN'], ['BUNZAITORA']],
    );
    assert.equal(score('崔龍海', 'CHOE Ryong Hae'), 1);
    assert.equal(score('金正日', 'KIM Jong Il'), 1);
    // The South's spellings of given names (`MOON` of `MUN`, `DAE` of `TAE`) are near.
    assert.equal(score('文在寅', 'Moon Jae In').toFixed(3), '0.967');
    assert.equal(score('李明博', 'Lee Myong Bak').toFixed(3), '0.933');
    assert.equal(score('金大中', 'KIM Dae Jung').toFixed(3), '0.967');
    // A Chinese name read in Korean does not lose its Mandarin reading.
    assert.equal(score('李明', 'Li Ming'), 1);
    assert.equal(score('李明', 'Ri Myong'), 1);
  });
});

describe('the shards wait for the Japanese reader only for a name in kanji', () => {
  const LISTS: ListSnapshotInfo[] = [
    { slug: 'sdn', list_type: 'sanctions', version: 'v1', last_updated: '2026-01-01T00:00:00Z' },
  ];
  const rec = (value: string): EntityRecord => ({
    list: 'sdn',
    entity_type: 'name',
    value,
    metadata: {},
    source_url: 'https://example.org/sdn',
    listed_at: '2024-01-01T00:00:00Z',
    removed_at: null,
  });
  let engine: Engine;
  before(async () => {
    engine = await Engine.create({ shards: 2 });
    await engine.load({ lists: LISTS, records: [rec('SUZUKI, Ichiro'), rec('WANG Wei'), rec('Peter Miller')] });
  });
  after(() => engine.close());

  test('names in kanji and in Latin screened at once', async () => {
    const screen = (name: string) => engine.screenName({ name, lists: ['sdn'], threshold: 0.7, limit: 5 });
    const [kanji, chinese, latin] = await Promise.all([screen('鈴木一郎'), screen('王伟'), screen('Peter Miller')]);
    assert.deepEqual(
      [kanji, chinese, latin].map((hits) => hits.map((h) => [h.name, h.score])),
      [[['SUZUKI, Ichiro', 0.9]], [['WANG Wei', 1]], [['Peter Miller', 1]]],
    );
  });
});
