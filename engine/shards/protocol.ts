/** Messages between the coordinator (engine.ts via pool.ts) and the shard workers. */

import type { ExactTableData } from '../exact-table.js';
import type { SharedColumns } from '../store.js';

export type Control =
  /** Starts a generation whose entity columns the shard reads in place. */
  | { t: 'begin'; seq: number; gen: number; columns: SharedColumns }
  /** Entities `from` .. `to` - 1 are written: the shard takes them. */
  | { t: 'add'; seq: number; gen: number; from: number; to: number }
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
  | { t: 'done'; seq: number; table?: ExactTableData; error?: string }
  | { t: 'results'; results: QueryResult[] };
