import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { allCountryRefs, canonicalKey, normalizeCountry, regionsOf } from '../../../engine/normalize/index.js';
import { sharedData } from '../../../harness/paths.js';

const require = createRequire(import.meta.url);
const codes = require('i18n-iso-countries/codes.json') as [string, string, string][];

function code(value: string): string | null {
  return normalizeCountry(value)?.code ?? null;
}

describe('normalizeCountry', () => {
  test('every ISO 3166-1 alpha-2, alpha-3 and numeric code round-trips', () => {
    assert.equal(codes.length, 250);
    for (const [a2, a3, num] of codes) {
      const ref = normalizeCountry(a2);
      assert.ok(ref, a2);
      assert.equal(ref.code, a2);
      assert.equal(ref.kind, 'country');
      assert.equal(ref.parent, null);
      assert.equal(code(a2.toLowerCase()), a2);
      assert.equal(code(a3), a2, a3);
      assert.equal(code(a3.toLowerCase()), a2, a3);
      assert.equal(code(num), a2, num);
      assert.equal(code(String(Number(num))), a2, num);
      assert.equal(code(ref.name), a2, ref.name);
    }
  });

  test('names as the package and the UN write them', () => {
    assert.deepEqual(normalizeCountry('Russian Federation'), {
      code: 'RU',
      name: 'Russian Federation',
      kind: 'country',
      parent: null,
    });
    assert.equal(code('Iran (Islamic Republic of)'), 'IR');
    assert.equal(code('Islamic Republic of Iran'), 'IR');
    assert.equal(code('Syrian Arab Republic'), 'SY');
    assert.equal(code('Venezuela (Bolivarian Republic of)'), 'VE');
    assert.equal(code('Bolivia (Plurinational State of)'), 'BO');
    assert.equal(code('United Kingdom of Great Britain and Northern Ireland'), 'GB');
    assert.equal(code('United Republic of Tanzania'), 'TZ');
    assert.equal(code('State of Palestine'), 'PS');
    assert.equal(code('Türkiye'), 'TR');
    assert.equal(code("Côte d'Ivoire"), 'CI');
    assert.equal(code('Micronesia (Federated States of)'), 'FM');
    assert.equal(code('Korea, Republic of'), 'KR');
  });

  test('common aliases', () => {
    const aliases: [string, string][] = [
      ['North Korea', 'KP'],
      ['DPRK', 'KP'],
      ["Democratic People's Republic of Korea", 'KP'],
      ["Korea, Democratic People's Republic of", 'KP'],
      ['Republic of Korea', 'KR'],
      ['South Korea', 'KR'],
      ['Iran', 'IR'],
      ['Russia', 'RU'],
      ['Syria', 'SY'],
      ['Burma', 'MM'],
      ['Ivory Coast', 'CI'],
      ['UK', 'GB'],
      ['U.K.', 'GB'],
      ['Great Britain', 'GB'],
      ['USA', 'US'],
      ['U.S.A.', 'US'],
      ['United States', 'US'],
      ['The Netherlands', 'NL'],
      ['Holland', 'NL'],
      ['Laos', 'LA'],
      ['Vatican', 'VA'],
      ['Czech Republic', 'CZ'],
      ['Turkey', 'TR'],
      ['Macedonia', 'MK'],
      ['Swaziland', 'SZ'],
      ['Cape Verde', 'CV'],
      ['Cabo Verde', 'CV'],
      ['East Timor', 'TL'],
      ['Viet Nam', 'VN'],
      ['UAE', 'AE'],
      ['DRC', 'CD'],
      ['Democratic Republic of the Congo', 'CD'],
      ['Congo', 'CG'],
      ['Republic of the Congo', 'CG'],
      ['Kosovo', 'XK'],
      ['XKX', 'XK'],
      ['  russia  ', 'RU'],
      ['RUSSIAN FEDERATION', 'RU'],
    ];
    for (const [value, expected] of aliases) assert.equal(code(value), expected, value);
  });

  test('ambiguous, historical or unknown names are refused', () => {
    for (const v of [
      'Korea',
      'KOREA',
      'former Soviet Union',
      'USSR',
      'Yugoslavia',
      'Atlantis',
      '',
      '999',
      'ZZ',
      'ZZZ',
      'UA-99',
    ]) {
      assert.equal(normalizeCountry(v), null, v);
    }
  });

  test('sanctioned regions by name, alias and ISO 3166-2 code', () => {
    const regions: [string, string][] = [
      ['Crimea', 'UA-43'],
      ['crimea region of ukraine', 'UA-43'],
      ['Autonomous Republic of Crimea', 'UA-43'],
      ['UA-43', 'UA-43'],
      ['ua-43', 'UA-43'],
      ['Sevastopol', 'UA-40'],
      ['Sebastopol', 'UA-40'],
      ['UA-40', 'UA-40'],
      ['DNR', 'UA-14'],
      ['DPR', 'UA-14'],
      ["so-called Donetsk People's Republic", 'UA-14'],
      ['Donetsk', 'UA-14'],
      ['UA-14', 'UA-14'],
      ['LNR', 'UA-09'],
      ["so-called Luhansk People's Republic", 'UA-09'],
      ["Lugansk People's Republic", 'UA-09'],
      ['Luhansk', 'UA-09'],
      ['UA-09', 'UA-09'],
    ];
    for (const [value, expected] of regions) {
      const ref = normalizeCountry(value);
      assert.ok(ref, value);
      assert.equal(ref.code, expected, value);
      assert.equal(ref.kind, 'region');
      assert.equal(ref.parent, 'UA');
    }
    assert.deepEqual(normalizeCountry('so-called Luhansk People’s Republic'), {
      code: 'UA-09',
      name: "Luhansk (so-called Luhansk People's Republic)",
      kind: 'region',
      parent: 'UA',
    });
  });

  test('regionsOf lists the sanctioned regions of a country', () => {
    const expected = ['UA-43', 'UA-40', 'UA-14', 'UA-09'];
    assert.deepEqual(
      regionsOf('UA').map((r) => r.code),
      expected,
    );
    assert.deepEqual(
      regionsOf('Ukraine').map((r) => r.code),
      expected,
    );
    assert.deepEqual(
      regionsOf('UKR').map((r) => r.code),
      expected,
    );
    assert.deepEqual(regionsOf('RU'), []);
    assert.deepEqual(regionsOf('UA-43'), []);
    assert.deepEqual(regionsOf('nowhere'), []);
    assert.equal(allCountryRefs().length, 254);
  });

  test('canonicalKey gives the code', () => {
    assert.equal(canonicalKey('country', 'Iran'), 'IR');
    assert.equal(canonicalKey('country', 'Crimea'), 'UA-43');
    assert.equal(canonicalKey('country', 'Korea'), null);
  });

  test('every nationality on the UN consolidated list resolves but one that names no country', () => {
    const xml = readFileSync(sharedData('un', 'consolidated.xml'), 'utf8');
    const values = new Set<string>();
    for (const m of xml.matchAll(/<NATIONALITY>\s*((?:<VALUE>[^<]*<\/VALUE>\s*)+)<\/NATIONALITY>/g)) {
      for (const v of m[1].matchAll(/<VALUE>([^<]*)<\/VALUE>/g)) values.add(v[1].trim());
    }
    const unresolved = [...values].filter((v) => normalizeCountry(v) === null).sort();
    // 'na' (not available) resolves as Namibia's code, as any two letters that are one would.
    assert.deepEqual(unresolved, ['former Soviet Union']);
    assert.equal(code("Democratic People's Republic of Korea"), 'KP');
    assert.equal(values.size, 56);
  });
});
