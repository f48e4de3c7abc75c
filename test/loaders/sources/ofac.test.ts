import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityRecord } from '../../../engine/model.js';
import { parseListFromDir, parseOfacSdn } from '../../../loaders/registry.js';
import { ofacXmlParser } from '../../../loaders/sources/ofac-xml.js';
import { OFAC_DOCUMENT_TYPES } from '../../../loaders/sources/ofac-features.js';
import { FIXTURES, SHARED_DATA, sharedData } from '../../../harness/paths.js';

async function collect(it: AsyncIterable<EntityRecord>): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The raw text of a main OFAC CSV with each comments line appended to its entry's line, done
 * with plain string operations (the comments file continues the remarks cut mid-word).
 */
function joinedText(mainFile: string, commentsFile: string): string {
  const lines = readFileSync(sharedData('ofac', mainFile), 'latin1').split('\n');
  const at = new Map(lines.map((l, i) => [l.slice(0, l.indexOf(',')), i]));
  for (const c of readFileSync(sharedData('ofac', commentsFile), 'latin1').split('\n')) {
    const m = /^(\d+),"(.*)"\r?$/.exec(c);
    if (!m) continue;
    const i = at.get(m[1])!;
    const line = lines[i].replace(/\r$/, '');
    lines[i] = line.slice(0, -1) + m[2] + '"';
  }
  return lines.join('\n');
}

function occurrences(text: string, re: RegExp): number {
  return [...text.matchAll(re)].length;
}

/**
 * Items of the remarks start after `"` (the field) or `; `, optionally with `alt. `; the first
 * word after the label is captured (the start of the document number).
 */
function itemRegex(label: string, notFollowedBy: string[] = []): RegExp {
  const guard = notFollowedBy.map((n) => `(?!${escape(n)} )`).join('');
  return new RegExp(
    `(?:"|; )(?:alt\\. )?${escape(label)} ${guard}(?!IMO )(.+?)(?= \\(| issued| expires?| valid| and | under|;|")`,
    'g',
  );
}

/**
 * Documents counted per entry line: a number listed twice for the same party (once more as
 * `alt.`, or again in a sentence) is one document of that party.
 */
function distinctItems(text: string, re: RegExp): number {
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const entry = line.slice(0, line.indexOf(','));
    for (const m of line.matchAll(re)) seen.add(`${entry} ${m[1].replace(/[.,]+$/, '')}`);
  }
  return seen.size;
}

describe('OFAC SDN legacy CSV (real files)', () => {
  let records: EntityRecord[];
  let raw: string;
  before(async () => {
    records = await collect(parseListFromDir('ofac_sdn', SHARED_DATA));
    raw = joinedText('sdn.csv', 'sdn_comments.csv');
  });

  test('one primary name per SDN entry', () => {
    const entries = occurrences(readFileSync(sharedData('ofac', 'sdn.csv'), 'latin1'), /^\d+,"/gm);
    const primary = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_type === 'primary');
    assert.equal(primary.length, entries);
    assert.equal(entries, 8976);
  });

  test('every alt.csv row is a strong alias', () => {
    const rows = occurrences(readFileSync(sharedData('ofac', 'alt.csv'), 'latin1'), /^\d+,\d+,"[^"]*","[^"]+"/gm);
    const aliases = records.filter(
      (r) => r.entity_type === 'name' && r.metadata.alias_quality === 'strong' && r.metadata.alias_type !== 'primary',
    );
    assert.equal(aliases.length, rows);
  });

  test("remarks a.k.a. 'X' items are weak aliases", () => {
    const weak = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_quality === 'weak');
    assert.equal(weak.length, occurrences(raw, /(?:"|; )[afn]\.k\.a\.,? '/g));
  });

  test('crypto addresses per asset match the raw Digital Currency Address items', () => {
    const expected = countBy([...raw.matchAll(/Digital Currency Address - ([A-Z0-9]+) /g)], (m) => m[1]);
    const got = countBy(
      records.filter((r) => r.entity_type === 'crypto_address'),
      (r) => String(r.metadata.symbol),
    );
    assert.deepEqual(got, expected);
    assert.equal(expected.XBT, 65);
  });

  test('a known XBT address from the remarks, with its party', () => {
    const hit = records.filter(
      (r) => r.entity_type === 'crypto_address' && r.value === '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
    );
    assert.equal(hit.length, 1);
    assert.deepEqual(hit[0], {
      list: 'ofac_sdn',
      entity_type: 'crypto_address',
      value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
      metadata: {
        symbol: 'XBT',
        network: 'bitcoin',
        name: 'YAN, Xiaobing',
        sdn_name: 'YAN, Xiaobing',
        programs: ['SDNTK'],
        sdn_type: 'individual',
        ent_num: '25308',
        party_id: '25308',
      },
      source_url: 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=25308',
      listed_at: null,
      removed_at: null,
    });
  });

  test('one party record per entry, after its other records, with every name, birth date and nationality', () => {
    const parties = records.filter((r) => r.entity_type === 'party');
    assert.equal(parties.length, 8976);
    const names = records.filter((r) => r.entity_type === 'name');
    const byParty = new Map(parties.map((p) => [p.value, p]));
    for (const n of names) {
      const party = byParty.get(String(n.metadata.party_id))!.metadata;
      const aliases = party.aliases as { name: string; weak: boolean }[];
      assert.ok(
        n.value === party.name ||
          aliases.some((a) => a.name === n.value && a.weak === (n.metadata.alias_quality === 'weak')),
        n.value,
      );
    }
    assert.equal(
      parties.reduce((sum, p) => sum + 1 + (p.metadata.aliases as unknown[]).length, 0),
      new Set(names.map((n) => `${String(n.metadata.party_id)}\u0000${n.value}`)).size,
    );
    assert.ok(records.filter((r) => r.entity_type !== 'party').every((r) => byParty.has(String(r.metadata.party_id))));
    const lastIndex = new Map<string, number>();
    records.forEach((r, i) => lastIndex.set(String(r.entity_type === 'party' ? r.value : r.metadata.party_id), i));
    assert.ok(parties.every((p) => records[lastIndex.get(p.value)!] === p));
    const yan = byParty.get('25308')!;
    assert.deepEqual(
      [yan.metadata.name, yan.metadata.party_type, yan.metadata.birth_dates, yan.metadata.programs],
      ['YAN, Xiaobing', 'person', ['1977-03-25'], ['SDNTK']],
    );
    const withDates = parties.filter((p) => (p.metadata.birth_dates as string[]).length > 0).length;
    assert.equal(
      withDates,
      occurrences(
        raw
          .split('\n')
          .filter((l) => /(?:"|; )(?:alt\. )?DOB /.test(l))
          .join('\n'),
        /^\d+,"/gm,
      ),
    );
    assert.deepEqual(
      countBy(parties, (p) => String(p.metadata.party_type)),
      { person: 4620, organization: 3673, vessel: 406, aircraft: 277 },
    );
  });

  test('addresses split between sdn.csv and sdn_comments.csv are whole', () => {
    const values = new Set(records.filter((r) => r.entity_type === 'crypto_address').map((r) => r.value));
    const eth = /Digital Currency Address - ETH (0x[0-9a-fA-F]+)/.exec(
      readFileSync(sharedData('ofac', 'sdn_comments.csv'), 'latin1'),
    )![1];
    assert.ok(values.has(eth));
    assert.ok(values.has('0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c'));
  });

  test('e-mail addresses are every address-shaped token of the remarks', () => {
    const remarksOnly = raw
      .split('\n')
      .map((l) => l.slice(l.lastIndexOf(',"')))
      .join('\n');
    const expected = [...remarksOnly.matchAll(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g)]
      .map((m) => m[0])
      .sort();
    const got = records
      .filter((r) => r.entity_type === 'email')
      .map((r) => r.value)
      .sort();
    assert.deepEqual(got, expected);
    assert.equal(got.length, 236);
  });

  test('websites: labelled items, (website) items and bare www/http items', () => {
    const labelled = occurrences(raw, /(?:"|; )(?:alt\. )?Website:?\s/gi);
    const tagged = occurrences(raw, /(?:"|; )\S+ \(website\)/g);
    const bare = occurrences(raw, /(?:"|; )(?:https?:\/\/|www\.)[^\s;"]+(?=;|")/g);
    const got = records.filter((r) => r.entity_type === 'website');
    assert.equal(got.length, labelled + tagged + bare);
  });

  test('identity documents by type match the raw items', () => {
    const docs = records.filter((r) => r.entity_type === 'government_id');
    const byType = countBy(docs, (r) => String(r.metadata.document_type));
    assert.equal(byType.Passport, distinctItems(raw, itemRegex('Passport', ['Booklet'])));
    assert.equal(byType['Cedula No.'], distinctItems(raw, itemRegex('Cedula No.')));
    assert.equal(byType['National ID No.'], distinctItems(raw, itemRegex('National ID No.')));
    assert.equal(byType['NIT #'], distinctItems(raw, itemRegex('NIT #')));
    assert.equal(byType['R.F.C.'], distinctItems(raw, itemRegex('R.F.C.', ['#'])));
    let total = 0;
    for (const type of OFAC_DOCUMENT_TYPES) {
      const longer = OFAC_DOCUMENT_TYPES.filter((t) => t !== type && t.startsWith(`${type} `)).map((t) =>
        t.slice(type.length + 1),
      );
      total += distinctItems(raw, itemRegex(type, longer));
    }
    assert.equal(docs.length, total);
  });

  test('a passport keeps its issuing country', () => {
    const doc = records.find((r) => r.entity_type === 'government_id' && r.value === '1084010');
    assert.equal(doc?.metadata.document_type, 'Passport');
    assert.equal(doc?.metadata.country, 'Egypt');
  });

  test('records carry the list slug and no history dates', () => {
    assert.ok(records.every((r) => r.list === 'ofac_sdn' && r.listed_at === null && r.removed_at === null));
  });
});

describe('OFAC consolidated non-SDN CSV (real files)', () => {
  test('entries, aliases and features', async () => {
    const records = await collect(parseListFromDir('ofac_consolidated', SHARED_DATA));
    const raw = joinedText('cons_prim.csv', 'cons_comments.csv');
    const primary = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_type === 'primary');
    assert.equal(primary.length, occurrences(readFileSync(sharedData('ofac', 'cons_prim.csv'), 'latin1'), /^\d+,"/gm));
    const strong = records.filter(
      (r) => r.entity_type === 'name' && r.metadata.alias_quality === 'strong' && r.metadata.alias_type !== 'primary',
    );
    assert.equal(
      strong.length,
      occurrences(readFileSync(sharedData('ofac', 'cons_alt.csv'), 'latin1'), /^\d+,\d+,"[^"]*","[^"]+"/gm),
    );
    assert.equal(
      records.filter((r) => r.entity_type === 'crypto_address').length,
      occurrences(raw, /Digital Currency Address - /g),
    );
    assert.equal(
      records.filter((r) => r.entity_type === 'government_id' && r.metadata.document_type === 'Passport').length,
      distinctItems(raw, itemRegex('Passport', ['Booklet'])),
    );
    assert.ok(records.every((r) => r.list === 'ofac_consolidated'));
  });
});

describe('OFAC SDN.XML (hand-written fixture in the published format)', () => {
  test('names, aliases, addresses, e-mails, websites and documents', async () => {
    const parse = ofacXmlParser('ofac_sdn', 'sdn_xml');
    const records = await collect(parse({ sdn_xml: join(FIXTURES, 'loaders', 'SDN.XML') }, {}));
    assert.deepEqual(
      countBy(records, (r) => r.entity_type),
      { name: 6, crypto_address: 2, email: 1, government_id: 2, website: 1, party: 3 },
    );
    const names = records
      .filter((r) => r.entity_type === 'name')
      .map((r) => [r.value, r.metadata.alias_type, r.metadata.alias_quality]);
    assert.deepEqual(names, [
      ['YAN, Xiaobing', 'primary', 'strong'],
      ['YAN, Xiao Bing', 'a.k.a.', 'strong'],
      ['YAN BING', 'a.k.a.', 'weak'],
      ['EXAMPLE TRADING FZE', 'primary', 'strong'],
      ['EXAMPLE GENERAL TRADING LLC', 'f.k.a.', 'strong'],
      ['OCEAN EXAMPLE', 'primary', 'strong'],
    ]);
    const xbt = records.find((r) => r.value === '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h')!;
    assert.deepEqual(xbt.metadata, {
      symbol: 'XBT',
      network: 'bitcoin',
      name: 'YAN, Xiaobing',
      sdn_name: 'YAN, Xiaobing',
      programs: ['SDNTK'],
      sdn_type: 'individual',
      ent_num: '25308',
      party_id: '25308',
    });
    assert.deepEqual(records.find((r) => r.entity_type === 'party' && r.value === '25308')!.metadata, {
      sdn_name: 'YAN, Xiaobing',
      sdn_type: 'individual',
      ent_num: '25308',
      name: 'YAN, Xiaobing',
      party_type: 'person',
      aliases: [
        { name: 'YAN, Xiao Bing', type: 'a.k.a.', weak: false },
        { name: 'YAN BING', type: 'a.k.a.', weak: true },
      ],
      birth_dates: ['1976-07-20', '1974/1976'],
      countries: ['China'],
      identifiers: [{ type: 'Passport', value: 'E12345678', country: 'China' }],
      programs: ['SDNTK'],
    });
    const vessel = records.find((r) => r.entity_type === 'party' && r.value === '30002')!.metadata;
    assert.deepEqual(
      [vessel.party_type, vessel.identifiers],
      ['vessel', [{ type: 'Vessel Registration Identification', value: 'IMO 9187629', country: null }]],
    );
    const passport = records.find((r) => r.entity_type === 'government_id' && r.value === 'E12345678')!;
    assert.equal(passport.metadata.document_type, 'Passport');
    assert.equal(passport.metadata.country, 'China');
    const entity = records.find((r) => r.value === 'EXAMPLE TRADING FZE')!;
    assert.deepEqual(entity.metadata.programs, ['IRAN', 'IFSR']);
    assert.equal(records.find((r) => r.entity_type === 'website')?.value, 'www.example-trading.ae');
  });

  test('ofac_sdn selects SDN.XML when the CSV set is absent', async () => {
    const records = await collect(parseOfacSdn({ sdn_xml: join(FIXTURES, 'loaders', 'SDN.XML') }, {}));
    assert.equal(records.length, 15);
    assert.throws(() => parseOfacSdn({}, {}), /neither 'sdn'.*nor 'sdn_xml'/);
  });
});
