import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { CADENCES, LIST_KINDS } from '../../loaders/types.js';
import { LIST_TYPES } from '../../engine/model.js';
import {
  defaultListSlugs,
  enabledListSlugs,
  filesUnder,
  getList,
  LISTS,
  parseListFromDir,
  PRIMARY_LIST,
} from '../../loaders/registry.js';
import { SHARED_DATA } from '../../harness/paths.js';

describe('list registry', () => {
  test('slugs are unique and well-formed', () => {
    const slugs = LISTS.map((l) => l.slug);
    assert.equal(new Set(slugs).size, slugs.length);
    for (const s of slugs) assert.match(s, /^[a-z][a-z0-9_]*$/);
  });

  test('exactly one primary list: OFAC SDN, checked at scheduled minutes', () => {
    const primaries = LISTS.filter((l) => l.primary);
    assert.equal(primaries.length, 1);
    assert.equal(PRIMARY_LIST, 'ofac_sdn');
    assert.equal(primaries[0].slug, PRIMARY_LIST);
    assert.equal(primaries[0].list_type, 'sanctions');
    assert.equal(primaries[0].cadence, 'scheduled');
  });

  test('types, kinds and cadences come from the contract', () => {
    for (const l of LISTS) {
      assert.ok(LIST_TYPES.includes(l.list_type), l.slug);
      assert.ok(LIST_KINDS.includes(l.kind), l.slug);
      assert.ok(CADENCES.includes(l.cadence), l.slug);
      assert.ok(l.display_name.length > 0, l.slug);
    }
  });

  test('every enabled list has a parser or loader; chain lists are declared for the chain reader', () => {
    for (const l of LISTS.filter((x) => x.enabled)) {
      const s = l.source;
      if (s.type === 'files') {
        assert.equal(typeof s.parse, 'function', l.slug);
        assert.ok(s.files.length > 0, l.slug);
        assert.equal(new Set(s.files.map((f) => f.key)).size, s.files.length, `${l.slug}: file keys unique`);
        for (const f of s.files) {
          // Only an optional file without a public download (read from SOURCE_DIR or a configured URL) has none.
          if (f.url || !f.optional) assert.match(f.url, /^https:\/\//, `${l.slug}/${f.key}`);
          assert.ok(!f.sourceDirPath.startsWith('/') && !f.sourceDirPath.includes('..'), `${l.slug}/${f.key}`);
        }
      } else if (s.type === 'bundled') {
        assert.equal(typeof s.load, 'function', l.slug);
        assert.match(s.url, /^https:\/\//, l.slug);
      } else {
        assert.equal(s.type, 'chain', l.slug);
        assert.ok(s.type === 'chain' && (s.role === 'depositor_relayer' || s.role === 'recipient'), l.slug);
      }
    }
  });

  test('default set: enabled lists without the opt-in recipients list', () => {
    assert.deepEqual(defaultListSlugs(), [
      'ofac_sdn',
      'ofac_consolidated',
      'un_sc',
      'eu_fsf',
      'uk_sanctions',
      'ofac_crypto',
      'ofac_sdn_web',
      'ofac_countries',
      'eth_phishing',
      'cryptoscamdb',
      'disposable_email',
      'tornado_pools',
    ]);
    assert.deepEqual(enabledListSlugs(), [...defaultListSlugs(), 'tornado_recipients']);
    for (const slug of defaultListSlugs()) assert.equal(getList(slug)?.enabled, true);
    const recipients = getList('tornado_recipients')!;
    assert.deepEqual(recipients.source, { type: 'chain', role: 'recipient' });
    assert.equal(recipients.in_default_set, false);
    assert.deepEqual(getList('tornado_pools')!.source, { type: 'chain', role: 'depositor_relayer' });
  });

  test('list types of the lists', () => {
    const byType = (t: string) => LISTS.filter((l) => l.list_type === t).map((l) => l.slug);
    assert.deepEqual(byType('crime'), ['eth_phishing', 'cryptoscamdb']);
    assert.deepEqual(byType('risk'), ['disposable_email', 'tornado_pools', 'tornado_recipients']);
    assert.equal(getList('ofac_countries')?.kind, 'country_designations');
    assert.equal(getList('nope'), undefined);
  });

  test('the SDN file set: CSVs required, comments and SDN.XML optional', () => {
    const s = getList('ofac_sdn')!.source;
    assert.equal(s.type, 'files');
    if (s.type !== 'files') return;
    assert.deepEqual(
      s.files.map((f) => [f.key, f.sourceDirPath, f.optional ?? false]),
      [
        ['sdn', 'ofac/sdn.csv', false],
        ['add', 'ofac/add.csv', false],
        ['alt', 'ofac/alt.csv', false],
        ['comments', 'ofac/sdn_comments.csv', true],
        ['sdn_xml', 'ofac/SDN.XML', true],
      ],
    );
    assert.ok(
      s.files.every((f) =>
        f.url.startsWith('https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/'),
      ),
    );
    assert.deepEqual(Object.keys(filesUnder(s, SHARED_DATA)), ['sdn', 'add', 'alt', 'comments']);
  });

  test('parseListFromDir refuses unknown and chain lists', () => {
    assert.throws(() => parseListFromDir('nope', SHARED_DATA), /unknown list 'nope'/);
    assert.throws(() => parseListFromDir('tornado_pools', SHARED_DATA), /read from chain events/);
  });

  test('parsing reports progress up to the total size', async () => {
    const seen: Array<[number, number | undefined]> = [];
    let n = 0;
    for await (const _ of parseListFromDir('disposable_email', SHARED_DATA, { progress: (d, t) => seen.push([d, t]) }))
      n++;
    assert.equal(n, 8335);
    assert.ok(seen.length > 0);
    const [done, total] = seen[seen.length - 1];
    assert.equal(done, total);
    assert.equal(total, 118360);
  });
});
