import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { EntityRecord } from '../../engine/model.js';
import type { ParseContext } from '../types.js';

/** Lists whose data ship with the code: inside an npm package, or as a data file of this repo. */

const require = createRequire(import.meta.url);

export const ETH_PHISHING_REPO = 'https://github.com/MetaMask/eth-phishing-detect';

/**
 * The `blacklist` of `eth-phishing-detect`'s `src/config.json`, as `website` entities. Domains
 * also on its `whitelist` are left out: the package's own detector lets the allow-list win.
 */
export function ethPhishingLoader(list: string, configPath = require.resolve('eth-phishing-detect/src/config.json')) {
  return async function* load(ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const config = JSON.parse(await readFile(configPath, 'utf8')) as { blacklist?: unknown; whitelist?: unknown };
    if (!Array.isArray(config.blacklist)) throw new Error(`${configPath}: no blacklist array`);
    const allowed = new Set(
      Array.isArray(config.whitelist) ? (config.whitelist as unknown[]).filter((d) => typeof d === 'string') : [],
    );
    const seen = new Set<string>();
    const total = config.blacklist.length;
    let done = 0;
    for (const domain of config.blacklist as unknown[]) {
      done++;
      if (typeof domain !== 'string') continue;
      const value = domain.trim();
      if (!value || allowed.has(value) || seen.has(value)) continue;
      seen.add(value);
      if (done % 1000 === 0) ctx.progress?.(done, total);
      yield {
        list,
        entity_type: 'website',
        value,
        metadata: {},
        source_url: ETH_PHISHING_REPO,
        listed_at: null,
        removed_at: null,
      };
    }
    ctx.progress?.(total, total);
  };
}

interface CountryDesignation {
  value: string;
  code: string;
  kind: 'country' | 'region';
  parent?: string;
  programs: string[];
  legal_basis: string;
  source_url: string;
}

export interface CountryProgramsFile {
  source: string;
  source_url: string;
  as_of: string;
  version: number;
  designations: CountryDesignation[];
}

const COUNTRY_PROGRAMS_FILE = new URL('../data/ofac-country-programs.json', import.meta.url);

async function readCountryPrograms(path: URL | string = COUNTRY_PROGRAMS_FILE): Promise<CountryProgramsFile> {
  const data = JSON.parse(await readFile(path, 'utf8')) as CountryProgramsFile;
  if (!Array.isArray(data.designations) || !data.as_of || !data.source_url)
    throw new Error(`${String(path)}: not a country programmes file`);
  return data;
}

/**
 * One `country` entity per designation. `value` is the English name the engine's country
 * normalizer resolves to `metadata.code` (ISO 3166-1 alpha-2, or ISO 3166-2 for regions).
 */
export function countryProgramsLoader(list: string, path: URL | string = COUNTRY_PROGRAMS_FILE) {
  return async function* load(ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const data = await readCountryPrograms(path);
    let done = 0;
    for (const d of data.designations) {
      yield {
        list,
        entity_type: 'country',
        value: d.value,
        metadata: {
          name: d.value,
          code: d.code,
          kind: d.kind,
          ...(d.parent ? { parent: d.parent } : {}),
          programs: d.programs,
          legal_basis: d.legal_basis,
          as_of: data.as_of,
        },
        source_url: d.source_url,
        listed_at: null,
        removed_at: null,
      };
      ctx.progress?.(++done, data.designations.length);
    }
  };
}
