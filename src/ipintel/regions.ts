/**
 * ISO 3166-2 codes of the regions whose sanctions status differs from their country's, from the
 * names IP geolocation databases give them. DB-IP places occupied areas under `UA` or `RU` with
 * varying spellings (e.g. `Crimea` under RU, `Sebastopol City` under UA), so both countries map.
 */
const REGION_CODES: Record<string, string> = {
  crimea: 'UA-43',
  'autonomous republic of crimea': 'UA-43',
  'republic of crimea': 'UA-43',
  krym: 'UA-43',
  'avtonomna respublika krym': 'UA-43',
  sevastopol: 'UA-40',
  "sevastopol'": 'UA-40',
  'sevastopol city': 'UA-40',
  sebastopol: 'UA-40',
  'sebastopol city': 'UA-40',
  donetsk: 'UA-14',
  'donetsk oblast': 'UA-14',
  "donets'ka oblast'": 'UA-14',
  'donetska oblast': 'UA-14',
  "donetsk people's republic": 'UA-14',
  luhansk: 'UA-09',
  lugansk: 'UA-09',
  'luhansk oblast': 'UA-09',
  'lugansk oblast': 'UA-09',
  "luhans'ka oblast'": 'UA-09',
  'luhanska oblast': 'UA-09',
  "luhansk people's republic": 'UA-09',
};

const COUNTRIES_WITH_MAPPED_REGIONS = new Set(['UA', 'RU']);

/** The ISO 3166-2 code of a geolocated region, when it is one the table knows; else null. */
export function regionCode(countryCode: string, regionName: string | null): string | null {
  if (!regionName || !COUNTRIES_WITH_MAPPED_REGIONS.has(countryCode)) return null;
  const key = regionName.normalize('NFKC').replace(/[’ʼ]/g, "'").trim().toLowerCase();
  return REGION_CODES[key] ?? null;
}
