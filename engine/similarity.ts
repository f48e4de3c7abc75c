/**
 * Name and government-ID similarity (0..1), used to verify and rank fuzzy candidates.
 *
 * Names are compared token by token, order-free: each token pair scores by edit distance and
 * Jaro-Winkler over a spelling-folded form (so `KH`/`H`, `Y`/`I`, `X`/`KS` transliteration variants
 * meet), with initials matching their full names and equal consonant skeletons (vowel-less
 * transliterations) matching partly. Tokens are paired greedily, best first; generic tokens (legal
 * forms, `TRADING`, `GROUP`, ...) and particles (`AL`, `BIN`, `VAN`, ...) weigh little, so two
 * companies sharing only generic words score low. Tokens present on one side only (a missing
 * middle name) cost a quarter of their weight.
 *
 * Hot path: the engine calls this for thousands of candidates per query. Names are prepared once
 * (`prepareName`; `nameSimilarity` memoizes its first argument), and the pairwise scoring reuses
 * module buffers instead of allocating.
 */
import { LEGAL_FORMS, nameTokens, normalizeGovernmentId } from './normalize/index.js';

/** Generic business words besides legal forms: they say little about which company is meant. */
const GENERIC_WORDS = [
  'TRADING', 'TRADE', 'TRADERS', 'INTERNATIONAL', 'GLOBAL', 'GROUP', 'HOLDING', 'HOLDINGS', 'ENTERPRISE',
  'ENTERPRISES', 'INDUSTRIES', 'INDUSTRIAL', 'INDUSTRY', 'SERVICES', 'SERVICE', 'SOLUTIONS', 'TECHNOLOGY',
  'TECHNOLOGIES', 'TECH', 'LOGISTICS', 'SHIPPING', 'IMPORT', 'EXPORT', 'GENERAL', 'UNITED', 'NATIONAL',
  'DEVELOPMENT', 'MANAGEMENT', 'PARTNERS', 'ASSOCIATES', 'INVESTMENT', 'INVESTMENTS', 'CAPITAL', 'VENTURES',
  'COMMERCIAL', 'ESTABLISHMENT', 'AGENCY', 'SYSTEMS', 'FOUNDATION',
  'BANK', 'FINANCE', 'FINANCIAL', 'CONSTRUCTION', 'ENGINEERING', 'ENERGY', 'MARINE', 'MARITIME', 'PETROLEUM',
  'OIL', 'GAS', 'EXCHANGE', 'WORLDWIDE', 'OVERSEAS', 'EAST', 'WEST', 'NORTH', 'SOUTH', 'MIDDLE',
  'ASIA', 'EUROPE', 'AMERICA', 'AFRICA', 'NEW', 'FIRST', 'PRIVATE', 'PUBLIC', 'JOINT', 'STOCK',
];
const PARTICLES = [
  'THE', 'OF', 'AND', 'FOR', 'DE', 'DEL', 'DELA', 'LA', 'LE', 'LOS', 'LAS', 'EL', 'AL', 'DA', 'DI', 'DO', 'DOS',
  'DAS', 'DU', 'DES', 'VAN', 'VON', 'DER', 'DEN', 'TER', 'TEN', 'BIN', 'BEN', 'IBN', 'BINT', 'BINTI',
  'BINTE', 'ULD', 'OULD', 'UL', 'UD', 'ED', 'AS', 'AD', 'AN', 'AR', 'AZ', 'ASH', 'AT', 'ABU',
];
const GENERIC_WEIGHT = 0.2;
const PARTICLE_WEIGHT = 0.3;
const WEIGHTS = new Map<string, number>([
  ...[...LEGAL_FORMS, ...GENERIC_WORDS].map((t): [string, number] => [t, GENERIC_WEIGHT]),
  ...PARTICLES.map((t): [string, number] => [t, PARTICLE_WEIGHT]),
]);

/** Share of the extra weight of the longer name that counts against a match (missing middle names). */
const EXTRA_WEIGHT_SHARE = 0.25;
/** Token pairs scoring below this count as unmatched: different words do not partly match. */
const MIN_TOKEN_SIMILARITY = 0.75;
const FOLDED_EQUAL = 0.95;
const INITIAL_MATCH = 0.9;
const SKELETON_MATCH = 0.8;
const JOINED_FACTOR = 0.95;
const MAX_TOKENS = 32;

export interface PreparedName {
  /** Canonical tokens (normalizeName's). */
  tokens: string[];
  /** Spelling-folded tokens, compared when the canonical ones differ. */
  folded: string[];
  /**
   * Consonant skeletons of tokens written without inner vowels (as transliterated from Arabic
   * script), else ''. Two tokens match on skeletons when one of them is such a token.
   */
  skeletons: string[];
  /** Consonant skeletons of all tokens ('' when shorter than 3 consonants). */
  consonants: string[];
  /** Set of character codes (mod 32) of each folded token, for a cheap lower bound on edits. */
  masks: Int32Array;
  /** The same for the canonical tokens. */
  rawMasks: Int32Array;
  weights: Float64Array;
  totalWeight: number;
  /** Folded tokens, generic ones left out, joined without spaces: names split or joined differently. */
  joined: string;
}

const A = 65;
const C = 67;
const D = 68;
const E = 69;
const H = 72;
const I = 73;
const J = 74;
const K = 75;
const O = 79;
const P = 80;
const Q = 81;
const S = 83;
const T = 84;
const U = 85;
const V = 86;
const W = 87;
const X = 88;
const Y = 89;
const Z = 90;

const foldBuffer: number[] = [];

function push(code: number): void {
  // Doubled letters collapse (`MOHAMMED` = `MOHAMED`).
  if (foldBuffer.length === 0 || foldBuffer[foldBuffer.length - 1] !== code) foldBuffer.push(code);
}

/**
 * Spelling fold, one pass: transliteration variants of one sound written alike. DZH/DJ/ZH/J/Y → I,
 * SCH → SH, TCH → CH, KH → H, PH → F, TH → T, CK/Q → K, C → S before E/I/Y else K (CH kept),
 * X → KS, W → V, OU/OO → U, EE → I, doubled letters single.
 */
function foldToken(t: string): string {
  foldBuffer.length = 0;
  const n = t.length;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    const c1 = i + 1 < n ? t.charCodeAt(i + 1) : 0;
    const c2 = i + 2 < n ? t.charCodeAt(i + 2) : 0;
    switch (c) {
      case D:
        if (c1 === Z && c2 === H) {
          push(I);
          i += 2;
        } else if (c1 === J) {
          push(I);
          i += 1;
        } else push(D);
        break;
      case Z:
        if (c1 === H) {
          push(I);
          i += 1;
        } else push(Z);
        break;
      case J:
      case Y:
        push(I);
        break;
      case S:
        if (c1 === C && c2 === H) {
          push(S);
          push(H);
          i += 2;
        } else push(S);
        break;
      case T:
        if (c1 === C && c2 === H) {
          push(C);
          push(H);
          i += 2;
        } else if (c1 === H) {
          push(T);
          i += 1;
        } else push(T);
        break;
      case K:
        if (c1 === H) {
          push(H);
          i += 1;
        } else push(K);
        break;
      case P:
        if (c1 === H) {
          push(70);
          i += 1;
        } else push(P);
        break;
      case C:
        if (c1 === K) {
          push(K);
          i += 1;
        } else if (c1 === E || c1 === I || c1 === Y) push(S);
        else if (c1 === H) {
          push(C);
          push(H);
          i += 1;
        } else push(K);
        break;
      case Q:
        push(K);
        break;
      case X:
        push(K);
        push(S);
        break;
      case W:
        push(V);
        break;
      case O:
        if (c1 === U || c1 === O) {
          push(U);
          i += 1;
        } else push(O);
        break;
      case E:
        if (c1 === E) {
          push(I);
          i += 1;
        } else push(E);
        break;
      default:
        push(c);
    }
  }
  return String.fromCharCode.apply(null, foldBuffer);
}

function isVowel(c: number): boolean {
  return c === A || c === E || c === I || c === O || c === U;
}

function consonantSkeleton(folded: string): string {
  foldBuffer.length = 0;
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (!isVowel(c)) push(c);
  }
  return foldBuffer.length >= 3 ? String.fromCharCode.apply(null, foldBuffer) : '';
}

/** No vowel after the first letter: written in an abjad (Arabic script) and transliterated. */
function unvocalized(folded: string): boolean {
  for (let i = 1; i < folded.length; i++) if (isVowel(folded.charCodeAt(i))) return false;
  return true;
}

function charMask(s: string): number {
  let m = 0;
  for (let i = 0; i < s.length; i++) m |= 1 << (s.charCodeAt(i) & 31);
  return m;
}

/** Characters of `s` absent from the set `mask`: each needs an edit, so a lower bound on distance. */
function missing(s: string, mask: number): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (((mask >>> (s.charCodeAt(i) & 31)) & 1) === 0) n++;
  return n;
}

export function prepareName(value: string): PreparedName {
  return prepareTokens(nameTokens(value));
}

/**
 * `prepareName` from canonical tokens (`nameTokens`, or a `normalizeName` key split on spaces):
 * what an index holding normalized names uses to verify its candidates without normalizing again.
 */
export function prepareTokens(canonical: string[]): PreparedName {
  const tokens = canonical.length > MAX_TOKENS ? canonical.slice(0, MAX_TOKENS) : canonical;
  const n = tokens.length;
  const folded = new Array<string>(n);
  const skeletons = new Array<string>(n);
  const consonants = new Array<string>(n);
  const masks = new Int32Array(n);
  const rawMasks = new Int32Array(n);
  const weights = new Float64Array(n);
  let total = 0;
  let joined = '';
  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    const f = foldToken(t);
    folded[i] = f;
    const skeleton = consonantSkeleton(f);
    consonants[i] = skeleton;
    skeletons[i] = unvocalized(f) ? skeleton : '';
    masks[i] = charMask(f);
    rawMasks[i] = charMask(t);
    const w = WEIGHTS.get(t) ?? 1;
    weights[i] = w;
    total += w;
    if (w > GENERIC_WEIGHT) joined += f;
  }
  return { tokens, folded, skeletons, consonants, masks, rawMasks, weights, totalWeight: total, joined };
}

// Scratch buffers reused by every comparison (the engine is single-threaded per worker).
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);
let matchA = new Uint8Array(64);
let matchB = new Uint8Array(64);
const pairSim = new Float64Array(MAX_TOKENS * MAX_TOKENS);
const usedA = new Uint8Array(MAX_TOKENS);
const usedB = new Uint8Array(MAX_TOKENS);

function ensure(n: number): void {
  if (rowA.length > n) return;
  const size = 2 * n + 2;
  rowA = new Int32Array(size);
  rowB = new Int32Array(size);
  rowC = new Int32Array(size);
  matchA = new Uint8Array(size);
  matchB = new Uint8Array(size);
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

function jaroWinkler(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (m === 0 || n === 0) return 0;
  ensure(Math.max(m, n));
  const range = Math.max(0, (Math.max(m, n) >> 1) - 1);
  matchA.fill(0, 0, m);
  matchB.fill(0, 0, n);
  let matches = 0;
  for (let i = 0; i < m; i++) {
    const lo = i > range ? i - range : 0;
    const hi = i + range + 1 < n ? i + range + 1 : n;
    const c = a.charCodeAt(i);
    for (let j = lo; j < hi; j++) {
      if (matchB[j] === 0 && b.charCodeAt(j) === c) {
        matchA[i] = 1;
        matchB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let k = 0;
  let transpositions = 0;
  for (let i = 0; i < m; i++) {
    if (matchA[i] === 0) continue;
    while (matchB[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const jaro = (matches / m + matches / n + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  const maxPrefix = Math.min(4, m, n);
  while (prefix < maxPrefix && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/**
 * Similarity of two different spellings: edit-distance ratio and Jaro-Winkler, averaged; 0 when
 * it cannot reach `floor` (checked on the distance first, the cheaper bound).
 */
function stringSimilarity(a: string, b: string, floor: number): number {
  const max = a.length > b.length ? a.length : b.length;
  // (lev + jw) / 2 >= floor with jw <= 1 needs lev >= 2 * floor - 1.
  const limit = Math.floor(max * (2 - 2 * floor));
  const d = osaDistance(a, b, limit);
  if (d > limit) return 0;
  return (1 - d / max + jaroWinkler(a, b)) / 2;
}

/**
 * Similarity of two different strings if it reaches MIN_TOKEN_SIMILARITY, else 0. Cheap lower
 * bounds on the distance (length difference, characters the other lacks) reject most pairs of
 * different words before any distance computation.
 */
function boundedSimilarity(a: string, maskA: number, b: string, maskB: number): number {
  const la = a.length;
  const lb = b.length;
  const max = la > lb ? la : lb;
  const limit = Math.floor(max * (2 - 2 * MIN_TOKEN_SIMILARITY));
  if ((la > lb ? la - lb : lb - la) > limit) return 0;
  if (missing(a, maskB) > limit || missing(b, maskA) > limit) return 0;
  const s = stringSimilarity(a, b, MIN_TOKEN_SIMILARITY);
  return s < MIN_TOKEN_SIMILARITY ? 0 : s;
}

function tokenSimilarity(a: PreparedName, i: number, b: PreparedName, j: number): number {
  const ta = a.tokens[i];
  const tb = b.tokens[j];
  if (ta === tb) return 1;
  const fa = a.folded[i];
  const fb = b.folded[j];
  if (fa === fb) return FOLDED_EQUAL;
  if (ta.length === 1 || tb.length === 1) {
    return ta.length !== tb.length && ta.charCodeAt(0) === tb.charCodeAt(0) ? INITIAL_MATCH : 0;
  }
  let s = boundedSimilarity(fa, a.masks[i], fb, b.masks[j]);
  // Folding can also take a typo further away (`FAZAL`/`FAAL` → `FAZAL`/`FAL`).
  if (s === 0 && (fa !== ta || fb !== tb)) s = boundedSimilarity(ta, a.rawMasks[i], tb, b.rawMasks[j]);
  if (s < SKELETON_MATCH) {
    const skeletonEqual =
      (a.skeletons[i] !== '' && a.skeletons[i] === b.consonants[j]) ||
      (b.skeletons[j] !== '' && b.skeletons[j] === a.consonants[i]);
    if (skeletonEqual) s = SKELETON_MATCH;
  }
  return s;
}

/** Similarity (0..1) of two prepared names. */
export function preparedSimilarity(a: PreparedName, b: PreparedName): number {
  const na = a.tokens.length;
  const nb = b.tokens.length;
  if (na === 0 || nb === 0) return 0;
  let candidates = 0;
  for (let i = 0; i < na; i++) {
    for (let j = 0; j < nb; j++) {
      const s = tokenSimilarity(a, i, b, j);
      pairSim[i * MAX_TOKENS + j] = s;
      if (s > 0) candidates++;
    }
  }
  usedA.fill(0, 0, na);
  usedB.fill(0, 0, nb);
  let matched = 0;
  // Greedy assignment, best pair first (names have few tokens; the optimum rarely differs).
  for (let round = Math.min(na, nb, candidates); round > 0; round--) {
    let best = 0;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < na; i++) {
      if (usedA[i]) continue;
      for (let j = 0; j < nb; j++) {
        if (usedB[j]) continue;
        const s = pairSim[i * MAX_TOKENS + j];
        if (s > best) {
          best = s;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    usedA[bi] = 1;
    usedB[bj] = 1;
    matched += (best * (a.weights[bi] + b.weights[bj])) / 2;
  }
  const wa = a.totalWeight;
  const wb = b.totalWeight;
  const denominator = wa < wb ? wa + EXTRA_WEIGHT_SHARE * (wb - wa) : wb + EXTRA_WEIGHT_SHARE * (wa - wb);
  let score = matched / denominator;
  if (score > 1) score = 1;
  // A name split or joined differently (`ABDUL RAHMAN` / `ABDULRAHMAN`) has different token counts.
  if (na !== nb && score < JOINED_FACTOR && a.joined.length > 0 && b.joined.length > 0) {
    const la = a.joined.length;
    const lb = b.joined.length;
    if ((la < lb ? la / lb : lb / la) >= 0.8) {
      const max = la > lb ? la : lb;
      const joined = (1 - osaDistance(a.joined, b.joined, max) / max) * JOINED_FACTOR;
      if (joined > score) score = joined;
    }
  }
  return score;
}

// The engine scores one query against many candidates: the query's prepared form is memoized.
// Candidates are prepared per call (short-lived, cheap for the young generation); callers holding
// many candidates should keep their `prepareName` forms and use `preparedSimilarity`.
let lastQuery = '';
let lastPrepared: PreparedName | null = null;

/**
 * Similarity (0..1) of two names as written (normalized here). Put the query first when scoring
 * one name against many; canonical keys (`normalizeName` output) are the cheapest to prepare.
 */
export function nameSimilarity(a: string, b: string): number {
  if (lastPrepared === null || a !== lastQuery) {
    lastQuery = a;
    lastPrepared = prepareName(a);
  }
  return preparedSimilarity(lastPrepared, prepareName(b));
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
