/**
 * Government-ID similarity (0..1), used to verify and rank fuzzy ID candidates. Names have their
 * own matcher (`engine/names`).
 */
import { normalizeGovernmentId } from './normalize/index.js';

// Scratch rows reused by every comparison (the engine is single-threaded per worker).
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

function ensure(n: number): void {
  if (rowA.length > n) return;
  const size = 2 * n + 2;
  rowA = new Int32Array(size);
  rowB = new Int32Array(size);
  rowC = new Int32Array(size);
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), or `limit + 1` as
 * soon as it is known to exceed `limit`.
 */
function osaDistance(a: string, b: string, limit: number): number {
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  if ((m > n ? m - n : n - m) > limit) return limit + 1;
  ensure(n);
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    const pa = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = 1; j <= n; j++) {
      const cb = b.charCodeAt(j - 1);
      let v = prev[j - 1] + (ca === cb ? 0 : 1);
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (j > 1 && ca === b.charCodeAt(j - 2) && pa === cb) {
        const t = prev2[j - 2] + 1;
        if (t < v) v = t;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    // Row minima never decrease by more than one per transposition step: two rows above the limit
    // cannot come back under it.
    if (rowMin > limit + 1) return limit + 1;
    const tmp = prev2;
    prev2 = prev;
    prev = cur;
    cur = tmp;
  }
  return prev[n] > limit ? limit + 1 : prev[n];
}

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
  const d = osaDistance(ka, kb, max);
  const score = min < 6 ? 1 - d / min : 1 - d / (max > 10 ? max : 10);
  return score > 0 ? score : 0;
}

/** A fuzzy government-ID match needs this `idSimilarity`: one edit in a typical passport number. */
export const FUZZY_ID_THRESHOLD = 0.9;
