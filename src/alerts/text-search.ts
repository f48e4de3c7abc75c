import { containing } from '../store/like.js';

/**
 * The alert list's `text` filter: a case-insensitive substring of the screened or the matched
 * value, and the conditions that let the trigram index (migration 076) answer a rare text without
 * reading the posting lists of the trigrams most alerts share.
 */

/** The columns `text` searches. */
const TEXT_COLUMNS = ['screened_value', 'matched_value'] as const;
type TextColumn = (typeof TEXT_COLUMNS)[number];

/**
 * Per column, the words of the text that are rare among the customer's alerts: the index is asked
 * for them alone and the whole text is checked on the rows it gives. A column without rare words
 * is asked for the whole text.
 */
export type TextPieces = Record<TextColumn, string[]>;

/** Words of the text counted in a sample of alerts, at most this many (the longest). */
const MAX_WORDS = 8;
/** A word in more than this share of the sampled alerts' column is left to the recheck. */
const RARE_SHARE = 0.01;

/**
 * The words of the text (runs of letters and digits, which pg_trgm splits values into) of at
 * least three characters, the shortest that has a trigram: a pattern without one makes the
 * trigram index return every row. None when the text is one such word: asking for the word is
 * asking for the text.
 */
export function textWords(text: string): string[] {
  // Substrings of the text as given: ILIKE folds each character's case as it folds the text's.
  const words = [...new Set((text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => [...w].length >= 3))];
  if (words.length === 1 && words[0] === text) return [];
  return words.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, MAX_WORDS);
}

/**
 * SQL counting, over the rows of `from`, those whose column holds each word: one count per
 * column and word, columns outer. The patterns are pushed onto `params`.
 */
export function wordCounts(words: string[], params: unknown[]): string {
  const counts = TEXT_COLUMNS.flatMap((column) =>
    words.map((w) => {
      params.push(containing(w));
      return `count(*) FILTER (WHERE ${column} ILIKE $${params.length})`;
    }),
  );
  return `ARRAY[${counts.join(', ')}]::int[]`;
}

/** The rare words of each column, from `wordCounts`' counts over `sampled` alerts. */
export function rarePieces(words: string[], counts: number[], sampled: number): TextPieces {
  const rare = (c: number) => words.filter((_, i) => counts[c * words.length + i] <= sampled * RARE_SHARE);
  return { screened_value: rare(0), matched_value: rare(1) };
}

/**
 * The text condition on pattern parameter `p`. With pieces, a column is asked for its rare words
 * and checked for the whole text through `column || ''`, which the index does not answer, so the
 * planner scans the index for the rare words' trigrams alone. Every value containing the text
 * contains its words, so the rows are those of the plain condition.
 */
export function textCondition(p: string, pieces: TextPieces | undefined, params: unknown[]): string {
  const column = (c: TextColumn) => {
    const words = pieces?.[c] ?? [];
    if (words.length === 0) return `${c} ILIKE ${p}`;
    const asked = words.map((w) => {
      params.push(containing(w));
      return `${c} ILIKE $${params.length}`;
    });
    return `(${asked.join(' AND ')} AND (${c} || '') ILIKE ${p})`;
  };
  return `(${TEXT_COLUMNS.map(column).join(' OR ')})`;
}
