/**
 * Countries and sanctioned regions. Countries come from ISO 3166-1 (`i18n-iso-countries`: alpha-2,
 * alpha-3, numeric and English names) plus the aliases lists and customers actually write;
 * regions are the ISO 3166-2 subdivisions under territorial sanctions.
 */
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

const require = createRequire(import.meta.url);
countries.registerLocale(require('i18n-iso-countries/langs/en.json') as countries.LocaleData);

export interface CountryRef {
  /** ISO 3166-1 alpha-2 for a country, ISO 3166-2 for a region. */
  code: string;
  name: string;
  kind: 'country' | 'region';
  /** Alpha-2 code of the country a region lies in; null for countries. */
  parent: string | null;
}

interface RegionDef {
  ref: CountryRef;
  aliases: string[];
}

const REGION_DEFS: RegionDef[] = [
  {
    ref: { code: 'UA-43', name: 'Crimea', kind: 'region', parent: 'UA' },
    aliases: [
      'Crimea',
      'Crimean Peninsula',
      'Autonomous Republic of Crimea',
      'Republic of Crimea',
      'Krym',
      'Krim',
      'Crimea Region of Ukraine',
      'Crimea Region',
      'Avtonomna Respublika Krym',
    ],
  },
  {
    ref: { code: 'UA-40', name: 'Sevastopol', kind: 'region', parent: 'UA' },
    aliases: ['Sevastopol', 'Sebastopol', 'City of Sevastopol', 'Sevastopol City', 'Sevastopil'],
  },
  {
    ref: { code: 'UA-14', name: "Donetsk (so-called Donetsk People's Republic)", kind: 'region', parent: 'UA' },
    aliases: [
      'Donetsk',
      'Donetsk Oblast',
      'Donetsk Region',
      'Donetska Oblast',
      'DNR',
      'DPR',
      "Donetsk People's Republic",
      'Donetskaya Narodnaya Respublika',
    ],
  },
  {
    ref: { code: 'UA-09', name: "Luhansk (so-called Luhansk People's Republic)", kind: 'region', parent: 'UA' },
    aliases: [
      'Luhansk',
      'Lugansk',
      'Luhansk Oblast',
      'Luhansk Region',
      'Lugansk Region',
      'Luhanska Oblast',
      'LNR',
      'LPR',
      "Luhansk People's Republic",
      "Lugansk People's Republic",
      'Luganskaya Narodnaya Respublika',
    ],
  },
];

/**
 * Aliases beyond the package's English names. A null target marks a name that is ambiguous or
 * names no current country, so it is refused rather than guessed (`Korea` alone could be either).
 */
const COUNTRY_ALIASES: Record<string, string | null> = {
  "Democratic People's Republic of Korea": 'KP',
  "Korea, Democratic People's Republic of": 'KP',
  "Korea (Democratic People's Republic of)": 'KP',
  DPRK: 'KP',
  'DPR Korea': 'KP',
  'Korea, North': 'KP',
  'North Korean': 'KP',
  'Korea, South': 'KR',
  ROK: 'KR',
  Korea: null,
  Iran: 'IR',
  Persia: 'IR',
  Syria: 'SY',
  Burma: 'MM',
  'Ivory Coast': 'CI',
  UK: 'GB',
  'U.K.': 'GB',
  Britain: 'GB',
  England: 'GB',
  Scotland: 'GB',
  Wales: 'GB',
  'Northern Ireland': 'GB',
  'United Kingdom of Great Britain and Northern Ireland': 'GB',
  America: 'US',
  'United States': 'US',
  Congo: 'CG',
  'Congo, Republic of the': 'CG',
  'Congo-Brazzaville': 'CG',
  'Congo, Democratic Republic of the': 'CD',
  'Congo, The Democratic Republic of the': 'CD',
  DRC: 'CD',
  'DR Congo': 'CD',
  'Congo-Kinshasa': 'CD',
  Zaire: 'CD',
  Laos: 'LA',
  'Lao PDR': 'LA',
  Moldova: 'MD',
  Vatican: 'VA',
  'Vatican City': 'VA',
  'Holy See': 'VA',
  Micronesia: 'FM',
  'Bolivia, Plurinational State of': 'BO',
  'Venezuela, Bolivarian Republic of': 'VE',
  'Tanzania, United Republic of': 'TZ',
  Brunei: 'BN',
  'Cabo Verde': 'CV',
  Swaziland: 'SZ',
  'East Timor': 'TL',
  Macedonia: 'MK',
  'Republic of Macedonia': 'MK',
  Czech: 'CZ',
  Turkiye: 'TR',
  Holland: 'NL',
  'Viet Nam': 'VN',
  UAE: 'AE',
  Emirates: 'AE',
  'Libyan Arab Jamahiriya': 'LY',
  Macao: 'MO',
  Macau: 'MO',
  'Hong Kong SAR': 'HK',
  'Palestinian Territories': 'PS',
  'Occupied Palestinian Territory': 'PS',
  Gambia: 'GM',
  Bahamas: 'BS',
  Russia: 'RU',
  XKX: 'XK',
  USSR: null,
  'Soviet Union': null,
  'former Soviet Union': null,
  Yugoslavia: null,
  'Serbia and Montenegro': null,
  Czechoslovakia: null,
};

/** Case-, accent- and punctuation-insensitive form of a place name. */
function fold(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’ʼ`.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .replace(/^(?:the|so called) /, '');
}

/** `Iran, Islamic Republic of` is also written `Islamic Republic of Iran`. */
function variants(name: string): string[] {
  const out = [fold(name)];
  const comma = /^([^,(]+)[,(]\s*([^)]+)\)?$/.exec(name.trim());
  if (comma) out.push(fold(`${comma[2]} ${comma[1]}`));
  return out;
}

function countryRef(code: string): CountryRef {
  return { code, name: countries.getName(code, 'en') ?? code, kind: 'country', parent: null };
}

function buildIndexes(): { byName: Map<string, CountryRef | null>; byCode: Map<string, CountryRef> } {
  const byCode = new Map<string, CountryRef>();
  for (const code of Object.keys(countries.getAlpha2Codes())) byCode.set(code, Object.freeze(countryRef(code)));
  const byName = new Map<string, CountryRef | null>();
  const names = countries.getNames('en', { select: 'all' }) as Record<string, string[]>;
  for (const [code, list] of Object.entries(names)) {
    const ref = byCode.get(code);
    if (!ref) continue;
    for (const n of list) {
      for (const key of variants(n)) {
        const prev = byName.get(key);
        byName.set(key, prev === undefined || prev === ref ? ref : null);
      }
    }
  }
  for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) {
    for (const key of variants(alias)) byName.set(key, code ? (byCode.get(code) ?? null) : null);
  }
  for (const def of REGION_DEFS) {
    Object.freeze(def.ref);
    byCode.set(def.ref.code, def.ref);
    for (const a of def.aliases) for (const key of variants(a)) byName.set(key, def.ref);
  }
  return { byName, byCode };
}

const { byName, byCode } = buildIndexes();

/**
 * The country or sanctioned region a value names: ISO alpha-2, alpha-3 or numeric code, ISO 3166-2
 * code of a known region, English name or alias (case, accents and punctuation ignored). Null when
 * unknown or ambiguous.
 */
export function normalizeCountry(value: string): CountryRef | null {
  const v = value.trim();
  if (!v) return null;
  const upper = v.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && byCode.has(upper)) return byCode.get(upper)!;
  if (/^[A-Z]{3}$/.test(upper)) {
    const a2 = countries.alpha3ToAlpha2(upper);
    if (a2 && byCode.has(a2)) return byCode.get(a2)!;
  }
  if (/^\d{1,3}$/.test(v)) {
    const a2 = countries.numericToAlpha2(v.padStart(3, '0'));
    return a2 ? (byCode.get(a2) ?? null) : null;
  }
  if (/^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(upper)) return byCode.get(upper) ?? null;
  for (const key of variants(v)) {
    const ref = byName.get(key);
    if (ref !== undefined) return ref;
  }
  return null;
}

/** Sanctioned regions known to lie in a country (given by any form `normalizeCountry` accepts). */
export function regionsOf(country: string): CountryRef[] {
  const ref = normalizeCountry(country);
  if (!ref || ref.kind !== 'country') return [];
  return REGION_DEFS.filter((d) => d.ref.parent === ref.code).map((d) => d.ref);
}

/** Every country and region reference, for building indexes and tests. */
export function allCountryRefs(): CountryRef[] {
  return [...byCode.values()];
}
