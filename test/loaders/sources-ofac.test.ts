import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityRecord } from '../../engine/model.js';
import { parseListFromDir, parseOfacSdn } from '../../loaders/registry.js';
import { ofacXmlParser } from '../../loaders/sources/ofac-xml.js';
import { OFAC_DOCUMENT_TYPES } from '../../loaders/sources/ofac-features.js';
import { FIXTURES, SHARED_DATA, sharedData } from '../../harness/paths.js';

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
  return new RegExp(`(?:"|; )(?:alt\\. )?${escape(label)} ${guard}(?!IMO )(.+?)(?= \\(| issued| expires?| valid| and | under|;|")`, 'g');
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
    const aliases = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_quality === 'strong' && r.metadata.alias_type !== 'primary');
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
    const hit = records.filter((r) => r.entity_type === 'crypto_address' && r.value === '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h');
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
      },
      source_url: 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=25308',
      listed_at: null,
      removed_at: null,
    });
  });

  test('addresses split between sdn.csv and sdn_comments.csv are whole', () => {
    const values = new Set(records.filter((r) => r.entity_type === 'crypto_address').map((r) => r.value));
    const eth = /Digital Currency Address - ETH (0x[0-9a-fA-F]+)/.exec(readFileSync(sharedData('ofac', 'sdn_comments.csv'), 'latin1'))![1];
    assert.ok(values.has(eth));
    assert.ok(values.has('0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c'));
  });

  test('e-mail addresses are every address-shaped token of the remarks', () => {
    const remarksOnly = raw
      .split('\n')
      .map((l) => l.slice(l.lastIndexOf(',"')))
      .join('\n');
    const expected = [...remarksOnly.matchAll(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g)].map((m) => m[0]).sort();
    const got = records.filter((r) => r.entity_type === 'email').map((r) => r.value).sort();
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
      const longer = OFAC_DOCUMENT_TYPES.filter((t) => t !== type && t.startsWith(`${type} `)).map((t) => t.slice(type.length + 1));
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
    const strong = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_quality === 'strong' && r.metadata.alias_type !== 'primary');
    assert.equal(strong.length, occurrences(readFileSync(sharedData('ofac', 'cons_alt.csv'), 'latin1'), /^\d+,\d+,"[^"]*","[^"]+"/gm));
    assert.equal(records.filter((r) => r.entity_type === 'crypto_address').length, occurrences(raw, /Digital Currency Address - /g));
    assert.equal(records.filter((r) => r.entity_type === 'government_id' && r.metadata.document_type === 'Passport').length, distinctItems(raw, itemRegex('Passport', ['Booklet'])));
    assert.ok(records.every((r) => r.list === 'ofac_consolidated'));
  });
});

describe('OFAC SDN.XML (hand-written fixture in the published format)', () => {
  test('names, aliases, addresses, e-mails, websites and documents', async () => {
    const parse = ofacXmlParser('ofac_sdn', 'sdn_xml');
    const records = await collect(parse({ sdn_xml: join(FIXTURES, 'loaders', 'SDN.XML') }, {}));
    assert.deepEqual(countBy(records, (r) => r.entity_type), { name: 6, crypto_address: 2, email: 1, government_id: 2, website: 1 });
    const names = records.filter((r) => r.entity_type === 'name').map((r) => [r.value, r.metadata.alias_type, r.metadata.alias_quality]);
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
    });
    const passport = records.find((r) => r.entity_type === 'government_id' && r.value === 'E12345678')!;
    assert.equal(passport.metadata.document_type, 'Passport');
    assert.equal(passport.metadata.country, 'China');
    const entity = records.find((r) => r.value === 'EXAMPLE TRADING FZE')!;
    assert.deepEqual(entity.metadata.programs, ['IRAN', 'IFSR']);
    assert.equal(records.find((r) => r.entity_type === 'website')?.value, 'www.example-trading.ae');
  });

  test('ofac_sdn selects SDN.XML when the CSV set is absent', async () => {
    const records = await collect(parseOfacSdn({ sdn_xml: join(FIXTURES, 'loaders', 'SDN.XML') }, {}));
    assert.equal(records.length, 12);
    assert.throws(() => parseOfacSdn({}, {}), /neither 'sdn'.*nor 'sdn_xml'/);
  });
});

