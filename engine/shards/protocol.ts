/** Messages between the coordinator (engine.ts via pool.ts) and the shard workers. */

import type { ExactKeySet, ExactTableData } from '../exact-table.js';
import type { SharedColumns } from '../store.js';

export type Control =
  /**
   * Starts a generation whose entity columns the shard reads in place; its exact keys are split
   * into `partitions` tables.
   */
  | { t: 'begin'; seq: number; gen: number; columns: SharedColumns; partitions: number }
  /** Entities `from` .. `to` - 1 are written: the shard takes them. */
  | { t: 'add'; seq: number; gen: number; from: number; to: number }
  /** No more entities: the shard seals its indexes and answers with its exact keys by partition. */
  | { t: 'finish'; seq: number; gen: number }
  /** Builds the exact table of one partition from every shard's keys of it (in shard order). */
  | { t: 'table'; seq: number; gen: number; sets: ExactKeySet[] }
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

/** Every active government ID at or above the threshold (screening); with `history`, every listing period's. */
export interface IdQuery {
  op: 'id';
  qid: number;
  gen: number;
  key: string;
  lists: number[];
  threshold: number;
  history?: boolean;
}

export interface RegexQuery {
  op: 'regex';
  qid: number;
  gen: number;
  pattern: string;
  lists: number[];
  limit: number;
  /** CPU time the shard may spend scanning (its own thread's, see thread-cpu.ts), in ms. */
  budgetMs: number;
}

export type Query = FuzzyQuery | IdQuery | RegexQuery;

/** Parallel arrays; `kinds` holds a MatchKind index (see MATCH_KINDS) per hit. */
export interface QueryResult {
  qid: number;
  ids: number[];
  sims: number[];
  kinds: number[];
  /** The regex scan used up its budget before it finished: its ids are not the whole answer. */
  timedOut?: boolean;
  error?: string;
}

/** What a control message answers besides its completion. */
export interface ControlReply {
  keys?: ExactKeySet[];
  table?: ExactTableData;
}

export type FromShard =
  | ({ t: 'done'; seq: number; error?: string } & ControlReply)
  | { t: 'results'; results: QueryResult[] };
