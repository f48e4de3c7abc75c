import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createPepProvider, LocalPepIndex, localPepFile, type PepProvider } from '../../src/pep/index.js';
import { PepScreenResponse } from '../../src/pep/schema.js';
import { FIXTURES, SHARED_DATA, sharedData } from '../../harness/paths.js';

const log = pino({ level: 'silent' });

interface SenzingPerson {
  id: string;
  name: string;
  birthYear: string | null;
}

/** The file's persons as the Senzing export states them, read independently of the provider. */
function senzingPersons(): SenzingPerson[] {
  return readFileSync(sharedData('pep', 'us_congress_senzing.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => r.RECORD_TYPE === 'PERSON')
    .map((r) => ({
      id: r.RECORD_ID,
      name: r.NAMES.find((n: { NAME_TYPE: string }) => n.NAME_TYPE === 'PRIMARY').NAME_FULL,
      birthYear: r.DATES?.find((d: { DATE_OF_BIRTH?: string }) => d.DATE_OF_BIRTH)?.DATE_OF_BIRTH.slice(0, 4) ?? null,
    }));
}

describe('local PEP provider on OpenSanctions US Congress (Senzing JSON lines)', () => {
  let pep: PepProvider;
  const persons = senzingPersons();
  before(async () => {
    const config = loadConfig({ SOURCE_DIR: SHARED_DATA });
    assert.equal(localPepFile(config), sharedData('pep', 'us_congress_senzing.jsonl'));
    pep = await createPepProvider({ config, log });
  });

  test('the file holds 1317 persons', () => {
    assert.equal(persons.length, 1317);
  });

  test('a known member, field by field', async () => {
    const r = await pep.screen({ name: 'Jake Auchincloss', limit: 1 });
    assert.deepEqual(PepScreenResponse.parse(r), r);
    assert.deepEqual(r, {
      value: 'Jake Auchincloss',
      pep: true,
      dataset: 'peps',
      matches: [
        {
          id: 'Q101196632',
          caption: 'Jake Auchincloss',
          score: 1,
          match: true,
          topics: ['role.pep'],
          countries: ['us'],
          birth_dates: ['1988'],
          positions: ['United States representative'],
          datasets: ['us_congress'],
          source_url: 'https://www.opensanctions.org/entities/Q101196632',
        },
      ],
    });
  });

  test('every person is the top candidate for its primary name, pep true', async () => {
    const misses: string[] = [];
    for (const p of persons) {
      const r = await pep.screen({ name: p.name, limit: 5 });
      const top = r.matches[0]?.score;
      // Namesakes (two members called Mike Rogers) share the top score without a birth year.
      const tied = r.matches.filter((m) => m.score === top).map((m) => m.id);
      if (!r.pep || !tied.includes(p.id)) misses.push(p.name);
    }
    assert.deepEqual(misses, []);
  });

  test('with its birth year, every person is the first candidate', async () => {
    const misses: string[] = [];
    const dated = persons.filter((p) => p.birthYear);
    assert.equal(dated.length, 1316);
    for (const p of dated) {
      const r = await pep.screen({ name: p.name, birth_date: p.birthYear!, limit: 5 });
      if (!r.pep || r.matches[0].id !== p.id || !r.matches[0].match) misses.push(p.name);
    }
    assert.deepEqual(misses, []);
  });

  test('a different birth year drops the person below 0.7', async () => {
    const misses: string[] = [];
    for (const p of persons.filter((x) => x.birthYear)) {
      const other = String(Number(p.birthYear) + 7);
      const r = await pep.screen({ name: p.name, birth_date: other, limit: 10 });
      const mine = r.matches.find((m) => m.id === p.id);
      if (!mine || mine.score >= 0.7 || mine.match) misses.push(`${p.name}: ${mine?.score}`);
    }
    assert.deepEqual(misses, []);
  });

  test('namesakes are told apart by birth year', async () => {
    const older = await pep.screen({ name: 'Mike Rogers', birth_date: '1958', limit: 2 });
    const younger = await pep.screen({ name: 'Mike Rogers', birth_date: '1963-06-02', limit: 2 });
    assert.deepEqual(
      older.matches.map((m) => [m.birth_dates, m.match]),
      [
        [['1958'], true],
        [['1963'], false],
      ],
    );
    assert.deepEqual(
      younger.matches.map((m) => [m.birth_dates, m.match]),
      [
        [['1963'], true],
        [['1958'], false],
      ],
    );
  });

  test('a disjoint country lowers an exact name below 0.7; an agreeing one keeps it', async () => {
    const fr = await pep.screen({ name: 'Jake Auchincloss', country: 'France', limit: 1 });
    assert.equal(fr.pep, false);
    assert.equal(fr.matches[0].score, 0.65);
    const us = await pep.screen({ name: 'Jake Auchincloss', country: 'USA', limit: 1 });
    assert.equal(us.pep, true);
    assert.equal(us.matches[0].score, 1);
  });

  test('an alias finds its person; a missing middle initial still matches', async () => {
    const alias = await pep.screen({ name: 'C. Scott Franklin', limit: 1 });
    assert.deepEqual([alias.matches[0].caption, alias.matches[0].score], ['Scott Franklin', 1]);
    const initial = await pep.screen({ name: 'Jennifer McClellan', limit: 1 });
    assert.equal(initial.matches[0].caption, 'Jennifer L. McClellan');
    assert.equal(initial.pep, true);
  });

  test('an initial does not stand in for a surname', async () => {
    const r = await pep.screen({ name: 'Karen Cruz', limit: 5 });
    assert.equal(
      r.matches.some((m) => m.caption === 'Karen C. Handel' && m.match),
      false,
    );
    assert.equal(r.pep, false);
  });

  test('at least 99% of synthetic non-listed people are not PEPs', async () => {
    const rows = readFileSync(sharedData('names', 'negatives-us-small.csv'), 'utf8').trim().split('\n').slice(1);
    assert.equal(rows.length, 1000);
    let byName = 0;
    let withQualifiers = 0;
    for (const row of rows) {
      const [fullName, , , , , dob] = row.split(',');
      if ((await pep.screen({ name: fullName, limit: 5 })).pep) byName++;
      if ((await pep.screen({ name: fullName, birth_date: dob, limit: 5 })).pep) withQualifiers++;
    }
    assert.ok(byName <= 10, `${byName} of 1000 negatives flagged by name alone`);
    assert.equal(withQualifiers, 0);
  });

  test('limit caps the candidates; nothing similar gives an empty list', async () => {
    const r = await pep.screen({ name: 'Smith', limit: 2 });
    assert.equal(r.matches.length, 2);
    assert.deepEqual(await pep.screen({ name: 'Zxqv Wplk', limit: 5 }), {
      value: 'Zxqv Wplk',
      pep: false,
      dataset: 'peps',
      matches: [],
    });
  });
});

describe('local PEP provider on FollowTheMoney JSON lines', () => {
  let index: LocalPepIndex;
  before(async () => {
    index = await LocalPepIndex.fromFile(join(FIXTURES, 'pep', 'peps.ftm.jsonl'), log);
  });

  test('only persons with a PEP or RCA topic are indexed', () => {
    assert.equal(index.size, 3);
    assert.deepEqual(index.search({ name: 'Ivan Ivanovich Fiktivny', limit: 5 }), []);
    assert.deepEqual(index.search({ name: 'Ministry of Fixtures', limit: 5 }), []);
  });

  test('a PEP with full properties; accents and aliases', () => {
    const [m] = index.search({ name: 'Ana Maria Perez Gomez', birth_date: '1961-04', country: 'Colombia', limit: 1 });
    assert.deepEqual(m, {
      id: 'fx-pep-ana-perez',
      caption: 'Ana María Pérez Gómez',
      score: 1,
      match: true,
      topics: ['role.pep'],
      countries: ['co'],
      birth_dates: ['1961-04-12'],
      positions: ['Senator of Colombia (2018-2022)'],
      datasets: ['fx_co_senate'],
      source_url: 'https://www.opensanctions.org/entities/fx-pep-ana-perez/',
    });
    assert.equal(index.search({ name: 'Ana Perez', limit: 1 })[0].score, 1);
  });

  test('a full birth date disagreeing on the day is disjoint', () => {
    const [m] = index.search({ name: 'Ana María Pérez Gómez', birth_date: '1961-04-13', limit: 1 });
    assert.deepEqual([m.score, m.match], [0.6, false]);
  });

  test('a relative or close associate, matched through nationality', () => {
    const [m] = index.search({ name: 'Lukas Perez Gomez', country: 'DE', limit: 1 });
    assert.deepEqual(
      [m.id, m.score, m.match, m.topics, m.countries],
      ['fx-rca-lukas-perez', 1, true, ['role.rca'], ['co', 'de']],
    );
  });

  test('missing data is not held against a person', () => {
    const [m] = index.search({ name: 'Keren Abergil', birth_date: '1980', country: 'IL', limit: 1 });
    assert.deepEqual(
      [m.score, m.match, m.birth_dates, m.countries, m.positions],
      [1, true, [], [], ['Member of the Knesset']],
    );
  });

  test('dates agree at the precision both have', () => {
    const match = (birth_date: string) =>
      index.search({ name: 'Ana María Pérez Gómez', birth_date, limit: 1 })[0].match;
    assert.equal(match('1961'), true);
    assert.equal(match('1961-04'), true);
    assert.equal(match('1961-05'), false);
    assert.equal(match('1963'), false);
  });
});

describe('local provider without data', () => {
  test('starts, and answers 503 that the pipeline does not charge', async () => {
    const pep = await createPepProvider({ config: loadConfig({}), log });
    await assert.rejects(
      pep.screen({ name: 'Jake Auchincloss', limit: 5 }),
      (err: Error & { status?: number; detail?: unknown }) => {
        assert.equal(err.status, 503);
        assert.equal(err.detail, 'PEP screening is not available: no PEP data loaded');
        return true;
      },
    );
  });
});
