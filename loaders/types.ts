import type { EntityRecord, EntityType, ListType } from '../engine/model.js';

/**
 * What kind of source a list is. Documented in the README (`kind` of ListInfo).
 * - `sanctions_list`: a government or UN sanctions list of parties (names, IDs, addresses).
 * - `country_designations`: sanctioned countries and regions of one government's programmes.
 * - `phishing_domains`: phishing/scam web domains (and addresses seen on them).
 * - `disposable_email`: disposable e-mail domains.
 * - `onchain_events`: addresses derived from on-chain events (mixer pools).
 * - `operator_list`: a list the operator created and fills by upload (public like the others).
 * - `private_list`: a customer's own list, filled by upload, screened and seen by that customer only.
 */
export const LIST_KINDS = [
  'sanctions_list',
  'country_designations',
  'phishing_domains',
  'disposable_email',
  'onchain_events',
  'operator_list',
  'private_list',
] as const;
type ListKind = (typeof LIST_KINDS)[number];

/**
 * The settings the loaders read, under the names of the service's environment variables: the
 * service's configuration (src/config.ts) has every one of them and is passed as is.
 */
export interface LoaderSettings {
  DATA_DIR: string;
  SOURCE_DIR?: string;
  /** `"<slug>.<file key>"` → URL. */
  SOURCE_URLS: Record<string, string>;
  SOURCE_FETCH_TIMEOUT_MS: number;
  SOURCE_FETCH_RETRIES: number;
  SOURCE_MAX_BYTES: number;
  LIST_REFRESH_ENABLED: boolean;
  PRIMARY_CHECK_MINUTES_UTC: number[];
  MIXER_RPC_URL?: string;
  MIXER_POOLS: string[];
  MIXER_START_BLOCK: number;
  /** Listing periods ended longer ago than this are dropped from the history (as-of reach). */
  LIST_HISTORY_DAYS: number;
  /** At most this many ended listing periods are kept per list (the oldest go first). */
  LIST_HISTORY_MAX_PERIODS: number;
}

/**
 * How often a list is checked for a new version. `scheduled` means fixed UTC minutes of each hour
 * (the primary list's `check_minutes_utc`); `manual` lists change only by upload; the others are
 * intervals.
 */
export const CADENCES = ['scheduled', 'hourly', 'daily', 'weekly', 'static', 'manual'] as const;
export type Cadence = (typeof CADENCES)[number];

/** One file of a file-based source. */
export interface SourceFile {
  /** Key the parser uses to find the file (e.g. `sdn`, `add`). */
  key: string;
  /** Official download URL (overridable by configuration); empty for an optional file with none. */
  url: string;
  /** Path relative to `SOURCE_DIR` (laid out like ../shared/data), e.g. `ofac/sdn.csv`. */
  sourceDirPath: string;
  /** Absent in a source set means the list loads without it (e.g. optional comments file). */
  optional?: boolean;
}

/** Local paths of fetched files, by `SourceFile.key`. Optional files may be missing. */
export type FetchedFiles = Record<string, string>;

export interface ParseContext {
  /** Called now and then with bytes or rows processed, for progress bars. */
  progress?: (done: number, total?: number) => void;
}

export type FileSource = {
  type: 'files';
  files: SourceFile[];
  parse: (files: FetchedFiles, ctx: ParseContext) => AsyncIterable<EntityRecord>;
};

/** Lists derived from chain events (mixer pools); read through viem, see loaders/chain/. */
type ChainSource = { type: 'chain'; role: 'depositor_relayer' | 'recipient' };

/** Lists whose data ship inside an npm package or the repository itself. */
type BundledSource = {
  type: 'bundled';
  /** Human-readable origin for ListInfo/source_url. */
  url: string;
  load: (ctx: ParseContext) => AsyncIterable<EntityRecord>;
};

/** Lists whose versions are uploaded (operator and private lists): no source to check. */
type UploadSource = { type: 'upload' };

export interface ListDefinition {
  slug: string;
  display_name: string;
  list_type: ListType;
  kind: ListKind;
  cadence: Cadence;
  /** Served, and may be named in a `lists` filter. */
  enabled: boolean;
  /** Screened when a request gives no `lists` filter (requires enabled). */
  in_default_set: boolean;
  /** The primary sanctions list (exactly one: OFAC SDN). */
  primary?: boolean;
  source: FileSource | ChainSource | BundledSource | UploadSource;
  /** A private list's customer: screened and seen by that customer only. */
  owner?: number;
  /** Entity types an upload may hold (uploaded lists). */
  entity_types?: readonly EntityType[];
  /** When an uploaded list was created (ISO 8601). */
  created_at?: string;
  /** When an uploaded list was deleted: its history stays, it is no longer served. */
  deleted_at?: string | null;
}
