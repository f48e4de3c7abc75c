import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { canonicalKey, nameTokens, normalizeGovernmentId, normalizeName } from '../../../engine/normalize/index.js';
import { sharedData } from '../../../harness/paths.js';

describe('normalizeName', () => {
  test('case, accents and compatibility forms fold', () => {
    assert.equal(normalizeName('  josé   María  Núñez '), 'JOSE MARIA NUNEZ');
    assert.equal(normalizeName('Łukasz Żółć'), 'LUKASZ ZOLC');
    assert.equal(normalizeName('Søren Ørsted'), 'SOREN ORSTED');
    assert.equal(normalizeName('Straße'), 'STRASSE');
    assert.equal(normalizeName('ＡＣＭＥ　Ｃｏｒｐ'), 'ACME CORP');
    assert.equal(normalizeName('Jean-Pierre O’Neil'), 'JEAN PIERRE ONEIL');
  });

  test('Cyrillic to Latin', () => {
    assert.equal(normalizeName('Владимир Владимирович Путин'), 'VLADIMIR VLADIMIROVICH PUTIN');
    assert.equal(normalizeName('Александр Лукашенко'), 'ALEKSANDR LUKASHENKO');
    assert.equal(normalizeName('Юрий Щёкин'), 'YURIY SHCHEKIN');
    assert.equal(normalizeName('Сергей Шойгу'), 'SERGEY SHOYGU');
    assert.equal(normalizeName('Жанна Цой'), 'ZHANNA TSOY');
    assert.equal(normalizeName('Ігор Коломойський'), 'IGOR KOLOMOYSKIY');
  });

  test('Greek to Latin, letter by letter (any-ascii)', () => {
    assert.equal(normalizeName('Κυριάκος Μητσοτάκης'), 'KYRIAKOS MITSOTAKIS');
    assert.equal(normalizeName('Μπακογιάννη'), 'MPAKOGIANNI');
    assert.equal(normalizeName('Ευάγγελος Γεωργίου'), 'EYAGGELOS GEORGIOY');
    assert.equal(normalizeName('Ντόρα Θεοδωράκη'), 'NTORA THEODORAKI');
  });

  test('Arabic and Persian script to Latin consonants; vowel points where written', () => {
    assert.equal(normalizeName('محمد بن سلمان'), 'MHMD BN SLMN');
    assert.equal(normalizeName('علي خامنئي'), 'LY KHMNIY');
    assert.equal(normalizeName('سعيد'), 'SYD');
    assert.equal(normalizeName('فاطمة'), 'FTMH');
    assert.equal(normalizeName('يوسف'), 'YWSF');
    assert.equal(normalizeName('پرویز'), 'PRWYZ');
    assert.equal(normalizeName('مُحَمَّد'), 'MUHAMAD');
  });

  test('Chinese characters and Hangul syllables: one token per syllable', () => {
    assert.equal(normalizeName('習近平'), 'XI JIN PING');
    assert.equal(normalizeName('김정은'), 'GIM JEONG EUN');
    assert.equal(normalizeName('バラク・オバマ'), 'BARAKU OBAMA');
  });

  test('LAST, First is reordered; legal and generational suffixes after a comma are not given names', () => {
    assert.equal(normalizeName('SMITH, John Paul'), 'JOHN PAUL SMITH');
    assert.equal(normalizeName('Smith, Mr. John, Jr.'), 'JOHN SMITH JR');
    assert.equal(normalizeName('ACME, Inc.'), 'ACME INC');
    assert.equal(normalizeName('ACME Holdings, Ltd.'), 'ACME HOLDINGS LTD');
    assert.equal(normalizeName('BANK OF KUNLUN, CO., LTD.'), 'BANK OF KUNLUN CO LTD');
    assert.equal(normalizeName('Kim, Jong Un'), 'JONG UN KIM');
  });

  test('leading honorifics are dropped, a lone one is kept', () => {
    assert.equal(normalizeName('Mr. John Smith'), 'JOHN SMITH');
    assert.equal(normalizeName('Dr Prof Jane Doe'), 'JANE DOE');
    assert.equal(normalizeName('Dr'), 'DR');
    assert.equal(normalizeName('John Doctor'), 'JOHN DOCTOR');
  });

  test('legal forms are abbreviated, dotted initials joined', () => {
    assert.equal(normalizeName('Acme Trading Limited Liability Company'), 'ACME TRADING LLC');
    assert.equal(normalizeName('ACME L.L.C.'), 'ACME LLC');
    assert.equal(normalizeName('Acme Corporation'), 'ACME CORP');
    assert.equal(normalizeName('Acme Incorporated'), 'ACME INC');
    assert.equal(normalizeName('Acme Limited'), 'ACME LTD');
    assert.equal(normalizeName('Acme Public Limited Company'), 'ACME PLC');
    assert.equal(normalizeName('Sberbank Public Joint Stock Company'), 'SBERBANK PJSC');
    assert.equal(normalizeName('Muster Gesellschaft mit beschränkter Haftung'), 'MUSTER GMBH');
    assert.equal(normalizeName('Общество с ограниченной ответственностью «Ромашка»'), 'OOO ROMASHKA');
    assert.equal(normalizeName('ООО Ромашка'), 'OOO ROMASHKA');
    assert.equal(normalizeName('J.P. Morgan & Co.'), 'JP MORGAN AND CO');
    assert.equal(normalizeName('Acme Intl'), 'ACME INTERNATIONAL');
  });

  test('nameTokens and canonicalKey', () => {
    assert.deepEqual(nameTokens('Smith, John'), ['JOHN', 'SMITH']);
    assert.deepEqual(nameTokens(' -- '), []);
    assert.equal(canonicalKey('name', 'Smith, John'), 'JOHN SMITH');
    assert.equal(canonicalKey('name', '...'), null);
  });

  test('UN list names: non-empty, idempotent, case- and spacing-insensitive', () => {
    const rows = parse(readFileSync(sharedData('names', 'un-positives-untreated.csv'), 'utf8'), { columns: true }) as {
      full_name: string;
    }[];
    assert.equal(rows.length, 683);
    for (const { full_name: name } of rows) {
      const key = normalizeName(name);
      assert.match(key, /^[A-Z0-9]+(?: [A-Z0-9]+)*$/, name);
      assert.equal(normalizeName(key), key, name);
      assert.equal(normalizeName(name.toLowerCase()), key, name);
      assert.equal(normalizeName(`  ${name.replace(/ /g, '   ')} `), key, name);
    }
  });
});

describe('normalizeGovernmentId', () => {
  test('upper-case ASCII letters and digits only', () => {
    assert.equal(normalizeGovernmentId(' ob 0243318 '), 'OB0243318');
    assert.equal(normalizeGovernmentId('1-78-09-44621-80'), '178094462180');
    assert.equal(normalizeGovernmentId('No34409/129'), 'NO34409129');
    assert.equal(normalizeGovernmentId('ＡＢ１２３'), 'AB123');
    assert.equal(normalizeGovernmentId('É-123'), 'E123');
    assert.equal(normalizeGovernmentId(' - / '), '');
    assert.equal(canonicalKey('government_id', ' - '), null);
    assert.equal(canonicalKey('government_id', 'ab 12'), 'AB12');
  });
});
