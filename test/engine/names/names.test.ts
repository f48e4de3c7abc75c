import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  indexTerms,
  NAME_THRESHOLD,
  nameScore,
  parseBirthDate,
  prepareName,
  prepareParty,
  prepareQuery,
  scoreParty,
  type PartyType,
} from '../../../engine/names/index.js';
import { numberTokens } from '../../../engine/names/numbers.js';
import { romanizationKey } from '../../../engine/names/romanization.js';

function score(a: string, b: string, type: PartyType | null = null): number {
  const s = nameScore(prepareName(a, { type }), prepareName(b, { type }));
  assert.equal(nameScore(prepareName(b, { type }), prepareName(a, { type })), s, `symmetric: ${a} | ${b}`);
  return s;
}

const atLeast = (a: string, b: string, min: number, type: PartyType | null = null) => {
  const s = score(a, b, type);
  assert.ok(s >= min, `${a} | ${b}: ${s} < ${min}`);
};
const below = (a: string, b: string, max: number, type: PartyType | null = null) => {
  const s = score(a, b, type);
  assert.ok(s < max, `${a} | ${b}: ${s} >= ${max}`);
};

describe('nameScore', () => {
  test('identical names score 1, names without letters or digits 0', () => {
    assert.equal(NAME_THRESHOLD, 0.7);
    assert.equal(score('John Smith', 'JOHN  SMITH'), 1);
    assert.equal(score('John Smith', 'Smith, John'), 1);
    assert.equal(score('', 'John'), 0);
    assert.equal(score('--', '--'), 0);
  });

  test('every script is transliterated; a name keeps its original-script form', () => {
    assert.equal(score('Владимир Путин', 'Vladimir Putin'), 1);
    atLeast('Barack Obama', 'Բարակ Օբամա', 0.95);
    atLeast('Barack Obama', 'ბარაკ ობამა', 0.95);
    atLeast('Barack Obama', 'バラク・オバマ', 0.9);
    atLeast('محمد علي', 'Mohamed Ali', 0.9);
    atLeast('משה', 'Moshe', 0.9);
    atLeast('สมชาย', 'Somchai', 0.8);
    atLeast('习近平', 'Xi Jinping', 0.95);
    atLeast('김정은', 'Kim Jong Un', 0.9);
    // Written alike in Latin letters (Jong), different syllables in Hangul.
    below('김종은', '김정은', NAME_THRESHOLD);
    below('习近朋', '习近平', NAME_THRESHOLD);
    const arabic = prepareName('محمد علي');
    assert.equal(arabic.script, 'Arabic');
    assert.deepEqual(arabic.latin.tokens, ['MHMD', 'LY']);
    assert.deepEqual(arabic.original?.tokens, ['محمد', 'علي']);
    assert.deepEqual(prepareName('习近平').latin.tokens, ['XI', 'JIN', 'PING']);
  });

  test('unvocalized spellings meet their Latin forms by consonants, long vowels included', () => {
    atLeast('خالد محمود', 'Khaled Mahmoud', 0.9);
    // مَحمود has a wāw (Mahmud), Mohamed has none.
    below('محمود', 'Mohamed', NAME_THRESHOLD);
  });

  test('same tokens in other roles are not the same person', () => {
    assert.equal(score('Friedrich Hans', 'Hans Friedrich'), 0.9);
    assert.equal(score('KIM JONG UN', 'UN JONG KIM'), 0.9);
    below('SALMAN BIN MUHAMMAD', 'MUHAMMAD BIN SALMAN', 0.1);
    below('ABDULLAH BIN OMAR AL-MUHAMMAD', 'OMAR BIN ABDULLAH AL-MUHAMMAD', NAME_THRESHOLD);
    // An initial does not stand for a part in another role.
    below('Karen Cruz', 'Karen C. Handel', NAME_THRESHOLD);
    below('Kjersti Ahmed', 'AHMED, Abubakar K.', NAME_THRESHOLD);
  });

  test('a replaced surname costs more than its share; near spellings of other surnames stay low', () => {
    below('Raúl Castillo', 'Raúl Castro', NAME_THRESHOLD);
    below('YASIR SABAWI IBRAHIM HASAN AL-MOSULI', 'YASIR SABAWI IBRAHIM HASAN AL-TIKRITI', NAME_THRESHOLD);
    below('JAMAL MUSTAFA ABDALLAH SULTAN AL-DULAIMI', 'JAMAL MUSTAFA ABDALLAH SULTAN AL-TIKRITI', NAME_THRESHOLD);
    below('Ruslan Barakhoev', 'Ruslan Barkhanoev', NAME_THRESHOLD);
    below('Barakhoev', 'Barkhanoev', 0.95);
    below('JOHN SMITH', 'JOHN BROWN', 0.5);
  });

  test('typos, missing middle names and initials', () => {
    atLeast('VLADIMIR PUTIN', 'VLADIMR PUTIN', 0.9);
    atLeast('Friedrich Lindenberg', 'Friedrich Lyndenburg', 0.8);
    atLeast('Osama bin Laden', 'Usama bin Ladin', 0.85);
    atLeast('JOHN SMITH', 'JOHN PAUL SMITH', 0.8);
    atLeast('Vladimir Vladimirovich Putin', 'Vladimir Putin', 0.8);
    atLeast('J. Smith', 'John Smith', 0.9);
    atLeast('J R R Tolkien', 'John Ronald Reuel Tolkien', 0.9);
  });

  test('organisations: legal forms are a feature, generic words weigh little, replaced ones in full', () => {
    assert.equal(score('OAO Gazprom', 'Gazprom JSC'), 1);
    assert.equal(score('Siemens Aktiengesellschaft', 'Siemens AG'), 1);
    assert.equal(score('Siemens AG', 'SIEMENS AG', 'organization'), 1);
    below('Deutsche Bank AG', 'Deutsche Bank GmbH', NAME_THRESHOLD);
    below('Saudi Arabian Gas Company', 'Saudi Arabian Oil Company', NAME_THRESHOLD);
    below('ACME TRADING LLC', 'GLOBAL TRADING LLC', 0.3);
    below('CRYSTALORD SYSTEMS LIMITED', 'CRYSTALORD LTD', 0.9);
    // `Sá` is a surname: a two-letter legal form is not taken from a name it would leave one token.
    below('Thomas Sá', 'TAMAS COMPANY', NAME_THRESHOLD);
  });

  test('variants a person expects to match', () => {
    atLeast('PLA', "People's Liberation Army", 0.9, 'organization');
    atLeast('JC Juncker', 'Jean-Claude Juncker', 0.9);
    assert.equal(score('Brigade Forty-Four', 'Brigade 44'), 1);
    assert.equal(score('Brigade Fourty Four', 'Brigade 44'), 1);
    assert.equal(score('1st Brigade', 'First Brigade'), 1);
    atLeast('Bibi Netanyahu', 'Benjamin Netanyahu', 0.9);
    atLeast('Ted Kennedy', 'Edward Kennedy', 0.9);
    atLeast('Ted Bundy', 'Theodore Bundy', 0.9);
    atLeast('Shi Jinping', 'Xi Jinping', 0.9);
    atLeast('Si Jinping', 'Xi Jinping', 0.9);
    atLeast('Mao Tse-tung', 'Mao Zedong', 0.9);
    atLeast('Nikolai Patr ushev', 'Nikolai Patrushev', 0.95);
    atLeast('SergeiLavrov', 'Sergei Lavrov', 0.95);
    atLeast('Fund XII', 'Fund 12', 1, 'organization');
  });
});

describe('name parts', () => {
  test('numbers: words, ordinals and (in organisations) Roman numerals', () => {
    assert.deepEqual(numberTokens(['BRIGADE', 'FORTY', 'FOUR'], false), ['BRIGADE', '44']);
    assert.deepEqual(numberTokens(['FORTY', '4'], false), ['44']);
    assert.deepEqual(numberTokens(['21ST', 'CENTURY'], false), ['21', 'CENTURY']);
    assert.deepEqual(numberTokens(['STEVEN', 'SEVEN'], false), ['STEVEN', '7']);
    assert.deepEqual(numberTokens(['XI', 'JINPING'], false), ['XI', 'JINPING']);
    assert.deepEqual(numberTokens(['FUND', 'XII'], true), ['FUND', '12']);
    assert.deepEqual(numberTokens(['PARTNERS', 'V'], true), ['PARTNERS', '5']);
  });

  test('romanization keys: pinyin, Wade-Giles and Korean spellings of one syllable meet', () => {
    assert.equal(romanizationKey('XI'), romanizationKey('SHI'));
    assert.equal(romanizationKey('XI'), romanizationKey('HSI'));
    assert.equal(romanizationKey('ZEDONG'), 'ZETONG');
    assert.equal(romanizationKey('JEONG'), romanizationKey('JONG'));
    assert.equal(romanizationKey('GIM'), romanizationKey('KIM'));
    assert.equal(romanizationKey('OBAMA'), null);
    assert.equal(romanizationKey('BOLOJAN'), null);
  });

  test('indexTerms: transliterated tokens, folds, skeletons, romanization keys, formal names, original script', () => {
    assert.deepEqual(
      indexTerms(prepareName('Ted Mohammed')).sort(),
      ['EDWARD', 'MHMD', 'MOHAMED', 'MOHAMMED', 'TD', 'TED', 'THEODORE'].sort(),
    );
    // Hangul read as the lists spell Korean names (KIM JONG UN), the surname's other spellings too.
    assert.deepEqual(indexTerms(prepareName('김정은')).sort(), [
      'CONG',
      'GIM',
      'IONG',
      'JONG',
      'KIM',
      'KM',
      'NG',
      'UN',
      '김',
      '은',
      '정',
    ]);
    // Particles, titles and initials are left out.
    assert.deepEqual(indexTerms(prepareName('Sheikh A. bin Laden')).sort(), ['LADEN', 'LATEN', 'LDN']);
  });
});

describe('scoreParty', () => {
  const party = prepareParty({
    names: [
      { value: 'ORTEGA SAAVEDRA, José Daniel' },
      { value: 'DANIEL', weak: false },
      { value: 'Dani Ortega', weak: true },
    ],
    birth_dates: ['1945-11-11'],
    countries: ['NI'],
    party_type: 'person',
  });

  test('the best name, with an explanation of what each piece of evidence did', () => {
    const r = scoreParty(prepareQuery({ name: 'Jose Daniel Ortega Saavedra' }), party);
    assert.deepEqual(r, {
      score: 1,
      name: 'ORTEGA SAAVEDRA, José Daniel',
      explanation: {
        name_score: 1,
        birth_date: { effect: 'not_compared', change: 0 },
        country: { effect: 'not_compared', change: 0 },
        party_type: { effect: 'not_compared', change: 0 },
        weak_names_left_out: 0,
      },
    });
  });

  test('one-token and weak aliases match only exactly, and only with a birth date or country agreeing', () => {
    const alone = scoreParty(prepareQuery({ name: 'Daniel' }), party);
    assert.equal(alone.name, 'ORTEGA SAAVEDRA, José Daniel');
    assert.ok(alone.score < 0.5, String(alone.score));
    assert.equal(alone.explanation.weak_names_left_out, 1);
    const dated = scoreParty(prepareQuery({ name: 'Daniel', birth_date: '1945' }), party);
    assert.deepEqual([dated.name, dated.score, dated.explanation.birth_date.effect], ['DANIEL', 1, 'agrees']);
    // Not exact: still left out, whatever agrees.
    assert.notEqual(
      scoreParty(prepareQuery({ name: 'Danial', birth_date: '1945', country: 'Nicaragua' }), party).name,
      'DANIEL',
    );
    assert.notEqual(scoreParty(prepareQuery({ name: 'Dani Ortega' }), party).name, 'Dani Ortega');
    assert.equal(scoreParty(prepareQuery({ name: 'Dani Ortega', country: 'NIC' }), party).name, 'Dani Ortega');
  });

  test('birth dates: agreement raises, a year apart changes nothing, a clear conflict drops below the threshold', () => {
    const name = 'Daniel Ortega Saavedra';
    const base = scoreParty(prepareQuery({ name }), party).score;
    assert.ok(base > NAME_THRESHOLD && base < 1, String(base));
    const by = (birth_date: string) => scoreParty(prepareQuery({ name, birth_date }), party);
    assert.equal(by('1945-11-11').score, base + (1 - base) * 0.3);
    assert.equal(by('1945-11').score, base + (1 - base) * 0.2);
    assert.equal(by('1945').score, base + (1 - base) * 0.15);
    assert.deepEqual([by('1946').score, by('1946').explanation.birth_date], [base, { effect: 'near', change: 0 }]);
    for (const d of ['1947', '1945-12', '1945-11-12']) {
      const r = by(d);
      assert.equal(r.explanation.birth_date.effect, 'conflicts', d);
      assert.ok(r.score < NAME_THRESHOLD, d);
    }
  });

  test('a range of years, country agreement, a country elsewhere, and party type', () => {
    const ranged = prepareParty({
      names: [{ value: 'Abu Bakr al-Baghdadi' }],
      birth_dates: ['1969/1971'],
      countries: ['Iraq'],
      party_type: 'person',
    });
    const q = (extra: object) => scoreParty(prepareQuery({ name: 'Abu Bakr al Baghdadi', ...extra }), ranged);
    assert.equal(q({ birth_date: '1970-05-02' }).explanation.birth_date.effect, 'agrees');
    assert.equal(q({ birth_date: '1972' }).explanation.birth_date.effect, 'near');
    assert.equal(q({ birth_date: '1980' }).explanation.birth_date.effect, 'conflicts');
    assert.equal(q({ country: 'IQ' }).explanation.country.effect, 'agrees');
    assert.deepEqual(q({ country: 'France' }).explanation.country, { effect: 'differs', change: 0 });
    assert.deepEqual(q({ party_type: 'person' }).explanation.party_type, { effect: 'agrees', change: 0 });
    const excluded = q({ party_type: 'vessel' });
    assert.deepEqual([excluded.score, excluded.name, excluded.explanation.party_type.effect], [0, null, 'excludes']);
    // The PEP policy lowers a score for a country elsewhere.
    assert.equal(
      scoreParty(prepareQuery({ name: 'Abu Bakr al Baghdadi', country: 'FR' }), ranged, { countryMismatch: 0.65 })
        .score,
      0.65,
    );
  });

  test('birth dates parse in the documented forms only', () => {
    assert.deepEqual(parseBirthDate('1961-04-12'), { from: 1961, to: 1961, month: 4, day: 12 });
    assert.deepEqual(parseBirthDate('1961'), { from: 1961, to: 1961, month: 0, day: 0 });
    assert.deepEqual(parseBirthDate('1971/1969'), { from: 1969, to: 1971, month: 0, day: 0 });
    assert.equal(parseBirthDate('12/04/1961'), null);
  });
});
