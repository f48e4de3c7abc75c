/** Messages between the coordinator (engine.ts via pool.ts) and the shard workers. */

/** One batch of entities routed to a shard while a generation loads. */
export interface AddBatch {
  ids: Uint32Array;
  types: Uint8Array;
  lists: Uint16Array;
  /** bit 0: delisted; bit 1: has an exact-table hash in `hashes`. */
  flags: Uint8Array;
  /** Two u32 per entity (hi, lo); meaningful only when flag bit 1 is set. */
  hashes: Uint32Array;
  values: string[];
  /** Canonical key when it differs from the value, else null (names: always null). */
  keys: (string | null)[];
}

export const FLAG_DELISTED = 1;
export const FLAG_HASHED = 2;

export type Control =
  | { t: 'begin'; seq: number; gen: number }
  | { t: 'add'; seq: number; gen: number; batch: AddBatch }
  | { t: 'finish'; seq: number; gen: number }
  | { t: 'drop'; seq: number; gen: number }
  | { t: 'ping'; seq: number };

/** Shard-local top-k of the public fuzzy search (names, IDs, address and domain prefixes). */
export interface FuzzyQuery {
  op: 'fuzzy';
  qid: number;
  gen: number;
  q: string;
  lists: number[];
  limit: number;
  minSimilarity: number;
}

/** Every active government ID at or above the threshold (screening). */
export interface IdQuery {
  op: 'id';
  qid: number;
  gen: number;
  key: string;
  lists: number[];
  threshold: number;
}

export interface RegexQuery {
  op: 'regex';
  qid: number;
  gen: number;
  pattern: string;
  lists: number[];
  limit: number;
  /** Wall-clock deadline (Date.now() scale: shared between threads, unlike performance.now()). */
  deadline: number;
}

export type Query = FuzzyQuery | IdQuery | RegexQuery;

/** Parallel arrays; `kinds` holds a MatchKind index (see MATCH_KINDS) per hit. */
export interface QueryResult {
  qid: number;
  ids: number[];
  sims: number[];
  kinds: number[];
  /** The regex scan stopped at its deadline. */
  timedOut?: boolean;
  error?: string;
}

export type FromShard =
  | { t: 'done'; seq: number; table?: import('../exact-table.js').ExactTableData; error?: string }
  | { t: 'results'; results: QueryResult[] };
