import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityRecord } from '../../../engine/model.js';
import { euXmlParser } from '../../../loaders/sources/eu-xml.js';
import { ukCsvParser } from '../../../loaders/sources/uk-csv.js';
import { FIXTURES } from '../../../harness/paths.js';

async function collect(it: AsyncIterable<EntityRecord>): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

const fixture = (name: string) => join(FIXTURES, 'loaders', name);

describe('EU Financial Sanctions Files XML 1.1 (hand-written fixture)', () => {
  test('two parties, their names and documents', async () => {
    const records = await collect(euXmlParser('eu_fsf', 'xml')({ xml: fixture('eu-fsf.xml') }, {}));
    // Saddam: 3 distinct names (the German "Abu Ali" repeats one), 1 passport (the ID card has
    // no number); KOMID: 2 names, 1 registration number.
    assert.deepEqual(
      records.map((r) => [r.entity_type, r.value]),
      [
        ['name', 'Saddam Hussein Al-Tikriti'],
        ['name', 'Abu Ali'],
        ['name', 'Abou Ali'],
        ['government_id', '00011166'],
        ['party', '13'],
        ['name', 'Korea Mining Development Trading Corporation'],
        ['name', 'KOMID'],
        ['government_id', 'KP-REG-0042'],
        ['party', '1190'],
      ],
    );
    const saddam = records[0];
    assert.deepEqual(saddam.metadata, {
      name: 'Saddam Hussein Al-Tikriti',
      subject_type: 'person',
      programs: ['IRQ'],
      eu_reference_number: 'EU.27.28',
      logical_id: '13',
      party_id: '13',
      alias_type: 'primary',
      alias_quality: 'strong',
    });
    assert.deepEqual(records[4].metadata, {
      subject_type: 'person',
      eu_reference_number: 'EU.27.28',
      logical_id: '13',
      name: 'Saddam Hussein Al-Tikriti',
      party_type: 'person',
      aliases: [
        { name: 'Abu Ali', type: 'alias', weak: false },
        { name: 'Abou Ali', type: 'alias', weak: true },
      ],
      birth_dates: ['1937-04-28'],
      countries: ['IQ'],
      identifiers: [{ type: 'National passport', value: '00011166', country: 'IQ' }],
      programs: ['IRQ'],
    });
    assert.equal(records[4].source_url, saddam.source_url);
    assert.equal(
      saddam.source_url,
      'http://eur-lex.europa.eu/LexUriServ/LexUriServ.do?uri=OJ:L:2003:169:0006:0023:EN:PDF',
    );
    assert.equal(records[2].metadata.alias_quality, 'weak');
    assert.equal(records[2].metadata.language, 'FR');
    assert.deepEqual(
      {
        type: records[3].metadata.document_type,
        country: records[3].metadata.country,
        code: records[3].metadata.country_code,
      },
      { type: 'National passport', country: 'IRAQ', code: 'IQ' },
    );
    const komid = records[5];
    assert.equal(komid.metadata.subject_type, 'enterprise');
    assert.equal(komid.metadata.un_reference_number, 'KPe.001');
    assert.deepEqual(komid.metadata.programs, ['PRK']);
    const komidParty = records[8].metadata;
    assert.deepEqual(
      [komidParty.party_type, komidParty.countries, komidParty.aliases],
      ['organization', ['KP'], [{ name: 'KOMID', type: 'alias', weak: false }]],
    );
    assert.ok(
      records.every(
        (r) =>
          r.metadata.party_id ===
          (r.entity_type === 'party'
            ? undefined
            : r.value === 'KP-REG-0042' || r.value.startsWith('K')
              ? '1190'
              : '13'),
      ),
    );
    assert.ok(records.every((r) => r.list === 'eu_fsf' && r.listed_at === null));
  });
});

describe('UK Sanctions List CSV (hand-written fixture in the FCDO layout)', () => {
  test('parties grouped by Unique ID, names, contacts and documents', async () => {
    const records = await collect(ukCsvParser('uk_sanctions', 'csv')({ csv: fixture('UK-Sanctions-List.csv') }, {}));
    assert.deepEqual(
      records.map((r) => [r.entity_type, r.value, r.metadata.uk_id]),
      [
        ['name', 'HAJI KHAIRULLAH HAJI SATTAR MONEY EXCHANGE', 'AFG0001'],
        ['name', 'حاجی خيرالله و حاجی ستار صرافی', 'AFG0001'],
        ['name', 'HAJI KHAIRULLAH HAJI SATTAR SARAFI', 'AFG0001'],
        ['party', 'AFG0001', 'AFG0001'],
        ['name', 'Ivan Sergeyevich PETROV', 'RUS1234'],
        ['name', 'Иван Сергеевич Петров', 'RUS1234'],
        ['email', 'ivan.petrov@example.ru', 'RUS1234'],
        ['government_id', '753123456', 'RUS1234'],
        ['government_id', '712345678', 'RUS1234'],
        ['government_id', '7700123456', 'RUS1234'],
        ['name', 'Ivan PETROFF', 'RUS1234'],
        ['party', 'RUS1234', 'RUS1234'],
        ['name', 'NORTHERN STAR TRADING LLC', 'RUS2001'],
        ['website', 'www.northern-star.example', 'RUS2001'],
        ['website', 'northern-star.example.ru', 'RUS2001'],
        ['email', 'info@northern-star.example', 'RUS2001'],
        ['government_id', '1027700000001', 'RUS2001'],
        ['party', 'RUS2001', 'RUS2001'],
      ],
    );
    const alias = records[10];
    assert.deepEqual(alias.metadata, {
      name: 'Ivan Sergeyevich PETROV',
      uk_id: 'RUS1234',
      ofsi_group_id: '15001',
      un_reference_number: null,
      regime: 'The Russia (Sanctions) (EU Exit) Regulations 2019',
      designation_type: 'Individual',
      party_id: 'RUS1234',
      alias_type: 'Alias',
      alias_quality: 'Low quality',
    });
    assert.equal(records[8].metadata.document_type, 'Passport');
    assert.equal(records[9].metadata.document_type, 'National identifier');
    assert.equal(records[16].metadata.document_type, 'Business registration number');
    assert.equal(records[0].metadata.un_reference_number, 'TAe.010');
    const petrov = records[11].metadata;
    assert.deepEqual(
      {
        name: petrov.name,
        party_type: petrov.party_type,
        aliases: petrov.aliases,
        birth_dates: petrov.birth_dates,
        countries: petrov.countries,
        identifiers: petrov.identifiers,
        programs: petrov.programs,
      },
      {
        name: 'Ivan Sergeyevich PETROV',
        party_type: 'person',
        aliases: [
          { name: 'Иван Сергеевич Петров', type: 'non_latin_script', weak: false },
          { name: 'Ivan PETROFF', type: 'Alias', weak: true },
        ],
        birth_dates: ['1970-01-01'],
        countries: ['Russia'],
        identifiers: [
          { type: 'Passport', value: '753123456', country: null },
          { type: 'Passport', value: '712345678', country: null },
          { type: 'National identifier', value: '7700123456', country: null },
        ],
        programs: ['The Russia (Sanctions) (EU Exit) Regulations 2019'],
      },
    );
    assert.equal(records[17].metadata.party_type, 'organization');
    assert.ok(records.filter((r) => r.entity_type !== 'party').every((r) => r.metadata.party_id === r.metadata.uk_id));
  });

  test('a row with the wrong number of columns is rejected at its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uk-'));
    try {
      const lines = readFileSync(fixture('UK-Sanctions-List.csv'), 'utf8').split('\n');
      lines[4] = lines[4].slice(0, lines[4].lastIndexOf(','));
      writeFileSync(join(dir, 'uk.csv'), lines.join('\n'));
      await assert.rejects(
        collect(ukCsvParser('uk_sanctions', 'csv')({ csv: join(dir, 'uk.csv') }, {})),
        /uk\.csv: line 5: expected 58 columns, found 57/,
      );
      writeFileSync(join(dir, 'uk.csv'), 'Report Date: 08-Oct-2026\nName,Other\n');
      await assert.rejects(
        collect(ukCsvParser('uk_sanctions', 'csv')({ csv: join(dir, 'uk.csv') }, {})),
        /uk\.csv: line 2: not a UK Sanctions List header/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
