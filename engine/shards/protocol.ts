/** Messages between the coordinator (engine.ts via pool.ts) and the shard workers. */

import type { ExactKeySet, ExactTableData } from '../exact-table.js';
import type { PartyType } from '../model.js';
import type { MatchExplanation } from '../names/index.js';
import type { SharedColumns } from '../store.js';

/**
 * What a shard needs of a `party` record to score the party (the calling thread reads it from the
 * record's metadata): its names, the primary first, and the evidence.
 */
export interface PartyFeatures {
  names: { value: string; weak: boolean }[];
  birth_dates: string[];
  countries: string[];
  party_type: PartyType | null;
}

export type Control =
  /**
   * Starts a generation whose entity columns the shard reads in place; its exact keys are split
   * into `partitions` tables.
   */
  | { t: 'begin'; seq: number; gen: number; columns: SharedColumns; partitions: number }
  /**
   * Entities `ids` (ascending) are written: the shard takes them. `parties` gives each one's party
   * number (0: none; a party's records all go to one shard), `features` each party record's
   * features, in the order of the party records among `ids`.
   */
  | { t: 'add'; seq: number; gen: number; ids: Uint32Array; parties: Uint32Array; features: PartyFeatures[] }
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

/** Listed parties whose names score at or above the threshold for a name (name screening). */
export interface NameQuery {
  op: 'name';
  qid: number;
  gen: number;
  name: string;
  birth_date: string | null;
  country: string | null;
  party_type: PartyType | null;
  lists: number[];
  threshold: number;
  limit: number;
  /** As of a past date: every listing period is screened (the calling thread filters by time). */
  history?: boolean;
}

/**
 * Name screenings in bulk (a customer's book): a round's queries in one message per shard, as
 * columns, sharing lists, threshold and limit; screened now (no listing history). Each answers as
 * a NameQuery of the same fields would.
 */
export interface NamesQuery {
  op: 'names';
  qid: number;
  gen: number;
  names: string[];
  birth_dates: (string | null)[];
  countries: (string | null)[];
  party_types: (PartyType | null)[];
  lists: number[];
  threshold: number;
  limit: number;
}

export type Query = FuzzyQuery | IdQuery | RegexQuery | NameQuery | NamesQuery;

/** A party's match (name screening): the name that scored best and what the evidence did. */
export interface PartyMatchDetail {
  name: string | null;
  explanation: MatchExplanation;
}

/** Parallel arrays; `kinds` holds a MatchKind index (see MATCH_KINDS) per hit. */
export interface QueryResult {
  qid: number;
  ids: number[];
  sims: number[];
  kinds: number[];
  /** The regex scan used up its budget before it finished: its ids are not the whole answer. */
  timedOut?: boolean;
  /** Name screening: each hit's best name and explanation (`ids` are the parties' records). */
  details?: PartyMatchDetail[];
  /** Bulk name screening: query `i`'s hits are `ids[ends[i - 1] .. ends[i])` (`ends[-1]` = 0). */
  ends?: Uint32Array;
  error?: string;
}

/** What a control message answers besides its completion. */
export interface ControlReply {
  keys?: ExactKeySet[];
  table?: ExactTableData;
}

export type FromShard =
  ({ t: 'done'; seq: number; error?: string } & ControlReply) | { t: 'results'; results: QueryResult[] };
