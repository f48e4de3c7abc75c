/**
 * Government-ID similarity (0..1), used to verify and rank fuzzy ID candidates. Names have their
 * own matcher (`engine/names`).
 */
import { editDistance } from './names/score.js';
import { normalizeGovernmentId } from './normalize/index.js';

/**
 * Government-ID similarity (0..1) over `normalizeGovernmentId` keys: 1 − edits / max(length, 10),
 * so one substitution, insertion, deletion or transposition in an ID of up to 10 characters scores
 * 0.9 and longer IDs tolerate proportionally more. IDs shorter than 6 characters score
 * 1 − edits / length, so one edit already falls below the threshold: a short number is close to
 * too many others.
 */
export function idSimilarity(a: string, b: string): number {
  const ka = normalizeGovernmentId(a);
  const kb = normalizeGovernmentId(b);
  if (ka.length === 0 || kb.length === 0) return 0;
  if (ka === kb) return 1;
  const max = ka.length > kb.length ? ka.length : kb.length;
  const min = ka.length < kb.length ? ka.length : kb.length;
  const d = editDistance(ka, kb, max, 1, 1);
  const score = min < 6 ? 1 - d / min : 1 - d / (max > 10 ? max : 10);
  return score > 0 ? score : 0;
}

/** A fuzzy government-ID match needs this `idSimilarity`: one edit in a typical passport number. */
export const FUZZY_ID_THRESHOLD = 0.9;
