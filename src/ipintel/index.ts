import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { parseRangeList, type ParsedRange } from '../../engine/ip-ranges.js';
import { fetchOptionsFromConfig, fetchSourceFile } from '../../loaders/fetch.js';
import type { Config } from '../config.js';
import { parseAddress } from './address.js';
import { defaultMmdbPaths, GeoDb } from './geo.js';
import { PrivacyIndex, type PrivacySignals, type Signal } from './privacy.js';
import { IP_LIST_SOURCES, IP_LISTS_SLUG, type IpListSource } from './sources.js';

/**
 * Whether a place is under sanctions: `countryCode` is ISO 3166-1 alpha-2, `regionCode` the ISO
 * 3166-2 code of a region whose status can differ from its country's (Crimea `UA-43`, ...) or null.
 * Null when the designations cannot tell.
 */
export type IsSanctionedPlace = (countryCode: string, regionCode: string | null) => boolean | null;

interface VpnResult {
  ip: string;
  vpn: Signal;
}

interface GeoResult {
  ip: string;
  city: string | null;
  region: string | null;
  country: string | null;
  sanctioned: boolean | null;
  source_url: string | null;
}

interface SignalsResult extends PrivacySignals {
  ip: string;
  family: 4 | 6 | null;
}

interface IpListStatus {
  key: string;
  signal: string;
  loaded: boolean;
  ranges: number;
  invalid_lines: number;
  sha256: string | null;
  loaded_at: string | null;
  error: string | null;
}

export interface IpIntel {
  /** VpnResponse of an address; `unknown` for text that is not an address. */
  vpn(ip: string): VpnResult;
  /** Every privacy signal, including the datacenter one that `/vpn` leaves out. */
  signals(ip: string): SignalsResult;
  /** GeoResponse of an address. */
  geo(ip: string): GeoResult;
  /** Re-reads the IP lists; a list that fails keeps its previous version. */
  refresh(): Promise<IpListStatus[]>;
  status(): IpListStatus[];
  /** Stops the refresh timer. */
  close(): void;
}

/** Reads one list's text: the local path of the fetched file, whether it changed, its checksum. */
type FetchIpList = (source: IpListSource) => Promise<{ path: string; changed: boolean; sha256: string } | null>;

export interface IpIntelDeps {
  config: Config;
  log: Logger;
  isSanctionedPlace: IsSanctionedPlace;
  /** Defaults to the loaders' fetcher (SOURCE_DIR, or download with cache into DATA_DIR). */
  fetchList?: FetchIpList;
  /** Defaults to daily when `LIST_REFRESH_ENABLED`; 0 disables the timer. */
  refreshIntervalMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

interface ListState {
  ranges: ParsedRange[];
  status: IpListStatus;
}

export async function createIpIntel(deps: IpIntelDeps): Promise<IpIntel> {
  const { config, log, isSanctionedPlace } = deps;
  const paths = config.GEO_MMDB_PATH
    ? config.GEO_MMDB_PATH.split(',')
        .map((p) => p.trim())
        .filter(Boolean)
    : defaultMmdbPaths();
  const geoDb = await GeoDb.open(paths);
  const fetchOpts = fetchOptionsFromConfig(config);
  const fetchList: FetchIpList = deps.fetchList ?? ((source) => fetchSourceFile(IP_LISTS_SLUG, source, fetchOpts));

  const states = new Map<string, ListState>();
  let index = PrivacyIndex.empty();

  async function loadOne(source: IpListSource): Promise<boolean> {
    const prev = states.get(source.key);
    try {
      const fetched = await fetchList(source);
      if (!fetched) {
        if (!prev) states.set(source.key, { ranges: [], status: emptyStatus(source, null) });
        log.info({ list: source.key }, 'ip list not available');
        return false;
      }
      if (prev?.status.loaded && !fetched.changed && prev.status.sha256 === fetched.sha256) return false;
      const parsed = parseRangeList(await readFile(fetched.path, 'utf8'));
      if (parsed.invalid.length > 0)
        log.warn(
          { list: source.key, invalid: parsed.invalid.length },
          'ip list has lines that are not addresses or ranges',
        );
      states.set(source.key, {
        ranges: parsed.ranges,
        status: {
          key: source.key,
          signal: source.signal,
          loaded: true,
          ranges: parsed.ranges.length,
          invalid_lines: parsed.invalid.length,
          sha256: fetched.sha256,
          loaded_at: new Date().toISOString(),
          error: null,
        },
      });
      return true;
    } catch (err) {
      const message = (err as Error).message;
      log.warn({ list: source.key, err: message }, 'ip list fetch failed; keeping the previous version');
      states.set(
        source.key,
        prev
          ? { ranges: prev.ranges, status: { ...prev.status, error: message } }
          : { ranges: [], status: emptyStatus(source, message) },
      );
      return false;
    }
  }

  let inFlight: Promise<IpListStatus[]> | null = null;
  /** A refresh asked for while one runs joins it rather than fetching twice. */
  function refresh(): Promise<IpListStatus[]> {
    inFlight ??= reload().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  async function reload(): Promise<IpListStatus[]> {
    const changed = await Promise.all(IP_LIST_SOURCES.map(loadOne));
    if (changed.some(Boolean)) {
      const lists = IP_LIST_SOURCES.filter((s) => states.get(s.key)?.status.loaded).map((s) => ({
        source: s,
        ranges: states.get(s.key)!.ranges,
      }));
      index = PrivacyIndex.build(lists);
      log.info({ stats: index.stats() }, 'ip lists loaded');
    }
    return status();
  }

  function status(): IpListStatus[] {
    return IP_LIST_SOURCES.map((s) => states.get(s.key)?.status ?? emptyStatus(s, null));
  }

  await refresh();
  const interval = deps.refreshIntervalMs ?? (config.LIST_REFRESH_ENABLED ? DAY_MS : 0);
  const timer = interval > 0 ? setInterval(() => void refresh(), interval) : null;
  timer?.unref();

  // Lookups are synchronous: one buffer serves every IPv6 parse.
  const words = new Uint32Array(4);
  return {
    vpn(ip) {
      const a = parseAddress(ip, words);
      return { ip, vpn: a ? index.isVpn(a) : 'unknown' };
    },
    signals(ip) {
      const a = parseAddress(ip, words);
      if (!a) return { ip, family: null, vpn: 'unknown', tor: 'unknown', datacenter: 'unknown' };
      return { ip, family: a.family, ...index.signals(a) };
    },
    geo(ip) {
      const a = parseAddress(ip, words);
      const place = a ? geoDb.lookup(a.text, a.family) : null;
      if (!place || place.country === null) {
        return {
          ip,
          city: place?.city ?? null,
          region: place?.region ?? null,
          country: null,
          sanctioned: null,
          source_url: place?.source_url ?? null,
        };
      }
      return {
        ip,
        city: place.city,
        region: place.region,
        country: place.country,
        sanctioned: isSanctionedPlace(place.country, place.regionCode),
        source_url: place.source_url,
      };
    },
    refresh,
    status,
    close() {
      if (timer) clearInterval(timer);
    },
  };
}

function emptyStatus(source: IpListSource, error: string | null): IpListStatus {
  return {
    key: source.key,
    signal: source.signal,
    loaded: false,
    ranges: 0,
    invalid_lines: 0,
    sha256: null,
    loaded_at: null,
    error,
  };
}
