import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityRecord } from '../engine/model.js';
import type { FetchedFiles, FileSource, ListDefinition, ParseContext, SourceFile } from './types.js';
import { countryProgramsLoader, ethPhishingLoader, ETH_PHISHING_REPO } from './sources/bundled.js';
import { cryptoScamDbParser } from './sources/cryptoscamdb-yaml.js';
import { euXmlParser } from './sources/eu-xml.js';
import { ofacCsvParser } from './sources/ofac-csv.js';
import { ofacXmlParser } from './sources/ofac-xml.js';
import { domainListParser, websitesAndEmailsParser } from './sources/text-lists.js';
import { ofacCryptoParser } from './sources/ofac-crypto.js';
import { ukCsvParser } from './sources/uk-csv.js';
import { unXmlParser } from './sources/un-xml.js';

/**
 * Every list the service knows, declared once. `SourceFile.url` is the official download (the
 * fetcher lets configuration override it); `sourceDirPath` is where the same file sits under
 * `SOURCE_DIR` (laid out like ../shared/data).
 */

const OFAC_EXPORTS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports';

const ofacSdnCsv = ofacCsvParser('ofac_sdn', { main: 'sdn', add: 'add', alt: 'alt', comments: 'comments' });
const ofacSdnXml = ofacXmlParser('ofac_sdn', 'sdn_xml');

/**
 * OFAC SDN comes in two formats of the same list. The legacy CSV set (`sdn`, `add`, `alt`, and
 * the optional `comments`) is the default and wins when present. `sdn_xml` (SDN.XML) is an
 * alternative: it is parsed only when the fetched set has no `sdn` file, so a fetcher need not
 * download it while the CSV files are available, and a SOURCE_DIR holding only `ofac/SDN.XML`
 * still loads.
 */
export function parseOfacSdn(files: FetchedFiles, ctx: ParseContext): AsyncIterable<EntityRecord> {
  if (files.sdn) return ofacSdnCsv(files, ctx);
  if (files.sdn_xml) return ofacSdnXml(files, ctx);
  throw new Error("ofac_sdn: neither 'sdn' (sdn.csv) nor 'sdn_xml' (SDN.XML) is present");
}

/** Assets of the per-asset OFAC address files (0xB10C's extractor covers these). */
export const OFAC_CRYPTO_ASSETS = [
  'XBT',
  'ETH',
  'USDT',
  'TRX',
  'XMR',
  'LTC',
  'BCH',
  'BSV',
  'BTG',
  'DASH',
  'ETC',
  'XRP',
  'XVG',
  'ZEC',
  'ARB',
  'BSC',
  'USDC',
] as const;

const OFAC_CRYPTO_RAW = 'https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists';
const ofacCryptoUrl = (asset: string) => `${OFAC_CRYPTO_RAW}/sanctioned_addresses_${asset}.txt`;

const SDN_WEB_URL = 'https://raw.githubusercontent.com/elliotwutingfeng/United-States-SDN-List-Websites/main/urls.txt';
const CRYPTOSCAMDB_URL = 'https://raw.githubusercontent.com/CryptoScamDB/blacklist/master/data/urls.yaml';
/** CC0 list maintained by the disposable-email-domains project (also used by PyPI). */
const DISPOSABLE_URL =
  'https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf';

/** EU FSF XML 1.1; the token is the public one the EU publishes for the file links. */
const EU_FSF_URL =
  'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw';
const UK_LIST_URL = 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.csv';
const UN_SC_URL = 'https://scsanctions.un.org/resources/xml/en/consolidated.xml';

function files(list: SourceFile[], parse: FileSource['parse']): FileSource {
  return { type: 'files', files: list, parse };
}

export const LISTS: readonly ListDefinition[] = Object.freeze([
  {
    slug: 'ofac_sdn',
    display_name: 'OFAC Specially Designated Nationals (SDN) List',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'scheduled',
    enabled: true,
    in_default_set: true,
    primary: true,
    source: files(
      [
        { key: 'sdn', url: `${OFAC_EXPORTS}/SDN.CSV`, sourceDirPath: 'ofac/sdn.csv' },
        { key: 'add', url: `${OFAC_EXPORTS}/ADD.CSV`, sourceDirPath: 'ofac/add.csv' },
        { key: 'alt', url: `${OFAC_EXPORTS}/ALT.CSV`, sourceDirPath: 'ofac/alt.csv' },
        {
          key: 'comments',
          url: `${OFAC_EXPORTS}/SDN_COMMENTS.CSV`,
          sourceDirPath: 'ofac/sdn_comments.csv',
          optional: true,
        },
        { key: 'sdn_xml', url: `${OFAC_EXPORTS}/SDN.XML`, sourceDirPath: 'ofac/SDN.XML', optional: true },
      ],
      parseOfacSdn,
    ),
  },
  {
    slug: 'ofac_consolidated',
    display_name: 'OFAC Consolidated Sanctions List (non-SDN)',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [
        { key: 'prim', url: `${OFAC_EXPORTS}/CONS_PRIM.CSV`, sourceDirPath: 'ofac/cons_prim.csv' },
        { key: 'add', url: `${OFAC_EXPORTS}/CONS_ADD.CSV`, sourceDirPath: 'ofac/cons_add.csv' },
        { key: 'alt', url: `${OFAC_EXPORTS}/CONS_ALT.CSV`, sourceDirPath: 'ofac/cons_alt.csv' },
        {
          key: 'comments',
          url: `${OFAC_EXPORTS}/CONS_COMMENTS.CSV`,
          sourceDirPath: 'ofac/cons_comments.csv',
          optional: true,
        },
      ],
      ofacCsvParser('ofac_consolidated', { main: 'prim', add: 'add', alt: 'alt', comments: 'comments' }),
    ),
  },
  {
    slug: 'un_sc',
    display_name: 'UN Security Council Consolidated List',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'consolidated', url: UN_SC_URL, sourceDirPath: 'un/consolidated.xml' }],
      unXmlParser('un_sc', 'consolidated'),
    ),
  },
  {
    slug: 'eu_fsf',
    display_name: 'EU Financial Sanctions (Consolidated List)',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'xml', url: EU_FSF_URL, sourceDirPath: 'eu/xmlFullSanctionsList_1_1.xml' }],
      euXmlParser('eu_fsf', 'xml'),
    ),
  },
  {
    slug: 'uk_sanctions',
    display_name: 'UK Sanctions List',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'csv', url: UK_LIST_URL, sourceDirPath: 'uk/UK-Sanctions-List.csv' }],
      ukCsvParser('uk_sanctions', 'csv'),
    ),
  },
  {
    slug: 'ofac_crypto',
    display_name: 'OFAC Sanctioned Digital Currency Addresses',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [
        ...OFAC_CRYPTO_ASSETS.map((asset) => ({
          key: asset,
          url: ofacCryptoUrl(asset),
          sourceDirPath: `crypto/by-chain-2024/sanctioned_addresses_${asset}.txt`,
        })),
        // An extract of SDN.XML naming each address's party; it has no official download, so
        // online it is read only from a URL configured as SOURCE_URLS["ofac_crypto.entries"].
        { key: 'entries', url: '', sourceDirPath: 'crypto/ofac-sanctioned-addresses-2026-08.json', optional: true },
      ],
      ofacCryptoParser('ofac_crypto', OFAC_CRYPTO_ASSETS, ofacCryptoUrl, 'entries'),
    ),
  },
  {
    slug: 'ofac_sdn_web',
    display_name: 'OFAC SDN Websites and E-mail Addresses',
    list_type: 'sanctions',
    kind: 'sanctions_list',
    cadence: 'daily',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'urls', url: SDN_WEB_URL, sourceDirPath: 'web/ofac-sdn-websites-and-emails.txt' }],
      websitesAndEmailsParser('ofac_sdn_web', 'urls', SDN_WEB_URL),
    ),
  },
  {
    slug: 'ofac_countries',
    display_name: 'OFAC Sanctioned Countries and Regions',
    list_type: 'sanctions',
    kind: 'country_designations',
    cadence: 'static',
    enabled: true,
    in_default_set: true,
    source: {
      type: 'bundled',
      url: 'https://ofac.treasury.gov/sanctions-programs-and-country-information',
      load: countryProgramsLoader('ofac_countries'),
    },
  },
  {
    slug: 'eth_phishing',
    display_name: 'MetaMask eth-phishing-detect Blocklist',
    list_type: 'crime',
    kind: 'phishing_domains',
    cadence: 'static',
    enabled: true,
    in_default_set: true,
    source: { type: 'bundled', url: ETH_PHISHING_REPO, load: ethPhishingLoader('eth_phishing') },
  },
  {
    slug: 'cryptoscamdb',
    display_name: 'CryptoScamDB Scam and Phishing Sites',
    list_type: 'crime',
    kind: 'phishing_domains',
    cadence: 'weekly',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'urls', url: CRYPTOSCAMDB_URL, sourceDirPath: 'web/cryptoscamdb-urls.yaml' }],
      cryptoScamDbParser('cryptoscamdb', 'urls'),
    ),
  },
  {
    slug: 'disposable_email',
    display_name: 'Disposable E-mail Domains',
    list_type: 'risk',
    kind: 'disposable_email',
    cadence: 'weekly',
    enabled: true,
    in_default_set: true,
    source: files(
      [{ key: 'domains', url: DISPOSABLE_URL, sourceDirPath: 'email/disposable-domains.txt' }],
      domainListParser('disposable_email', 'domains', 'email_domain', DISPOSABLE_URL),
    ),
  },
  {
    slug: 'tornado_pools',
    display_name: 'Tornado Cash Pool Depositors and Relayers',
    list_type: 'risk',
    kind: 'onchain_events',
    cadence: 'hourly',
    enabled: true,
    in_default_set: true,
    source: { type: 'chain', role: 'depositor_relayer' },
  },
  {
    slug: 'tornado_recipients',
    display_name: 'Tornado Cash Withdrawal Recipients',
    list_type: 'risk',
    kind: 'onchain_events',
    cadence: 'hourly',
    enabled: true,
    in_default_set: false,
    source: { type: 'chain', role: 'recipient' },
  },
] satisfies ListDefinition[]);

const BY_SLUG = new Map(LISTS.map((l) => [l.slug, l]));

export const PRIMARY_LIST: string = LISTS.find((l) => l.primary)!.slug;

export function getList(slug: string): ListDefinition | undefined {
  return BY_SLUG.get(slug);
}

/** Lists screened when a request has no `lists` filter. */
export function defaultListSlugs(): string[] {
  return LISTS.filter((l) => l.enabled && l.in_default_set).map((l) => l.slug);
}

/** Lists that are served and may be named in a `lists` filter. */
export function enabledListSlugs(): string[] {
  return LISTS.filter((l) => l.enabled).map((l) => l.slug);
}

/** The files of a file source found under a directory laid out like ../shared/data. */
export function filesUnder(source: FileSource, sourceDir: string): FetchedFiles {
  const found: FetchedFiles = {};
  for (const f of source.files) {
    const path = join(sourceDir, f.sourceDirPath);
    if (existsSync(path)) found[f.key] = path;
  }
  return found;
}

/**
 * Parses a list straight from a SOURCE_DIR-style directory (tests, benchmarks, `lists import`).
 * Missing required files are left for the parser to reject, since some lists accept an
 * alternative file (ofac_sdn's `sdn_xml`). Chain lists are not file-based and are refused.
 */
export function parseListFromDir(slug: string, sourceDir: string, ctx: ParseContext = {}): AsyncIterable<EntityRecord> {
  const def = getList(slug);
  if (!def) throw new Error(`unknown list '${slug}'`);
  switch (def.source.type) {
    case 'files':
      return def.source.parse(filesUnder(def.source, sourceDir), ctx);
    case 'bundled':
      return def.source.load(ctx);
    case 'chain':
      throw new Error(`list '${slug}' is read from chain events, not from files`);
    case 'upload':
      throw new Error(`list '${slug}' is filled by upload, not from files`);
  }
}
