/**
 * The name score (0..1) of two prepared names.
 *
 * Tokens are paired, best pair first: equal tokens score 1, equal spelling folds 0.95, a nickname
 * 0.88, a Chinese or Korean romanization variant 0.9, an initial its full name 0.9, a token from
 * an abjad or abugida (Arabic, Hebrew, Thai) its Latin spelling when the consonants agree 0.93,
 * and other spellings by an edit distance in which vowels cost half and a swap of neighbours 0.75
 * (`1 − 0.65 · edits / √length`, nothing under 0.5). Where tokens are left over, runs of
 * consecutive tokens are also tried against one token (`Patr ushev`, `SergeiLavrov`,
 * `ABD AL RAHMAN`) and acronyms against the initials of a run (`PLA`, `JC`).
 *
 * The score is the weighted share of what matched: matched weight over matched weight plus what
 * is left over. A token left over on both sides is a replaced name and costs twice its weight
 * (three times when both are surnames: `Raúl Castillo` / `Raúl Castro`); a pair under 0.75 costs a
 * share of that too (in full for family names, a quarter for given names); a token left over on
 * one side only is a missing middle name or qualifier and costs 0.5 of its weight in a person's
 * name, 0.6 in an organisation's, all of it between Chinese or Korean names. Tokens weigh by what
 * they say: particles and titles 0.25, generic organisation words 0.35 (but a generic word
 * replaced by another costs in full: `Gas` / `Oil`), initials and numbers 0.5, other tokens 1.
 *
 * Roles: tokens on different sides of a patronymic marker do not pair (`SALMAN BIN MUHAMMAD` /
 * `MUHAMMAD BIN SALMAN`); an initial pairs only with a part in the same role; when the
 * surname-role (last) tokens are paired with other parts (`Friedrich Hans` / `Hans Friedrich`) or
 * the shorter name lines up with neither end of the longer, the score is multiplied by 0.9. Legal
 * forms of different kinds multiply it by 0.65. The constants are in `SCORE`, tuned on two thirds
 * of name-bench-dev.csv (test/support/name-quality.ts).
 *
 * Hot path: no allocation per pair; module scratch buffers (one scorer per thread).
 */
import { legalKindBits, legalKindsCompatible, SPECIFIC_KINDS } from '../normalize/legal-forms.js';
import {
  F_ACRONYM,
  F_GENERIC,
  F_INITIAL,
  F_LEGAL,
  F_NUMBER,
  F_PARTICLE,
  F_SPARSE_VOWELS,
  F_TITLE,
  flagsOf,
  foldToken,
  isVowel,
  letterMask,
  MAX_TOKENS,
  rawLetterMask,
  segmentOf,
  tokenWeight,
  type PreparedName,
  type TokenForm,
} from './prepare.js';
import { romanizationKey } from './romanization.js';

const SCORE = {
  /** Token pairs scoring below this do not pair: different words do not partly match. */
  tokenFloor: 0.5,
  /** Two adjacent letters swapped, the commonest slip of typing (other edits cost 1, vowels less). */
  transposition: 0.75,
  /** Edit penalty: a token pair scores 1 − editWeight · edits / √(longer length). */
  editWeight: 0.65,
  foldedEqual: 0.95,
  initial: 0.9,
  nickname: 0.88,
  romanized: 0.9,
  sparseVowels: 0.93,
  acronym: 0.92,
  /** A run of tokens matching one token (split or joined) scores this share of its similarity. */
  joined: 0.97,
  /**
   * Pairs scoring under this are uncertain (`CASTILLO`/`CASTRO`, two edits in a short name): they
   * also cost a share of a replaced token's, rising from nothing here to all of it at the floor.
   */
  sure: 0.75,
  /** Two different numbers (`Fund IV` / `Fund V`, `Snow Storm 1` / `2`): a sister entity, close. */
  numbers: 0.75,
  /** Cost of an uncertain pair of family names at the floor, per unit of weight. */
  uncertain: 1,
  /** The same for other parts (given and middle names). */
  uncertainGiven: 0.25,
  /** Cost of a token left over on both sides (replaced), per unit of weight. */
  conflict: 2,
  /** The same when the replaced tokens are both names' surname-role (last) tokens. */
  surnameConflict: 3,
  /** Cost of a token left over on one side only, per unit of weight. */
  extraPerson: 0.5,
  extraOrganization: 0.6,
  /**
   * The same between Chinese or Korean names: every syllable of those belongs to the surname or
   * the given name (there are no middle names to leave out).
   */
  extraSyllable: 1,
  /** Both names keep their parts but the surname-role token is paired with another part. */
  roleSwap: 0.9,
  /** Legal forms of different kinds. */
  legalConflict: 0.65,
  /** A name and the name derived from it by a suffix (the nisba `HEIDARI` of `HAIDAR`): uncertain at most. */
  derived: 0.6,
  /**
   * Cost of a token left over on one side only when a given name paired only as a nickname or
   * another language's form (`Sally` for `Sarah`): a name that weak and a name unaccounted for
   * are two doubts, not one.
   */
  extraBesideNickname: 1,
};

const MAX_CANDIDATES = 4096;

// Scratch buffers reused by every comparison (the scorer runs on one thread at a time).
const candA = new Int32Array(MAX_CANDIDATES);
const candB = new Int32Array(MAX_CANDIDATES);
const candSim = new Float64Array(MAX_CANDIDATES);
let candCount = 0;
const chosen = new Int32Array(MAX_TOKENS * 2);
let chosenCount = 0;
let rowA = new Float64Array(64);
let rowB = new Float64Array(64);
let rowC = new Float64Array(64);

function ensureRows(n: number): void {
  if (rowA.length > n + 1) return;
  const size = 2 * n + 2;
  rowA = new Float64Array(size);
  rowB = new Float64Array(size);
  rowC = new Float64Array(size);
}

/**
 * Optimal-string-alignment distance in which vowels inserted, deleted or replaced by vowels cost
 * `vowel` (half an edit in names, except in tokens of three letters or fewer, where every letter
 * counts) and a swap of neighbours `transposition`; `limit + 1` as soon as it is known to exceed
 * `limit`. With both at 1 it is the plain distance government IDs are compared by.
 */
export function editDistance(a: string, b: string, limit: number, vowel: number, transposition: number): number {
  const m = a.length;
  const n = b.length;
  ensureRows(n);
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  prev[0] = 0;
  for (let j = 1; j <= n; j++) prev[j] = prev[j - 1] + (isVowel(b.charCodeAt(j - 1)) ? vowel : 1);
  for (let i = 1; i <= m; i++) {
    const ca = a.charCodeAt(i - 1);
    const aVowel = isVowel(ca);
    const costA = aVowel ? vowel : 1;
    cur[0] = prev[0] + costA;
    let rowMin = cur[0];
    const pa = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = 1; j <= n; j++) {
      const cb = b.charCodeAt(j - 1);
      const bVowel = isVowel(cb);
      let v = prev[j - 1] + (ca === cb ? 0 : aVowel && bVowel ? vowel : 1);
      const del = prev[j] + costA;
      if (del < v) v = del;
      const ins = cur[j - 1] + (bVowel ? vowel : 1);
      if (ins < v) v = ins;
      if (j > 1 && ca === b.charCodeAt(j - 2) && pa === cb) {
        const t = prev2[j - 2] + transposition;
        if (t < v) v = t;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit + 1) return limit + 1;
    const tmp = prev2;
    prev2 = prev;
    prev = cur;
    cur = tmp;
  }
  return prev[n] > limit ? limit + 1 : prev[n];
}

/**
 * What the characters of `s` absent from the set `mask` cost at least (each needs an edit: a
 * vowel `vowel`, another letter 1), stopping once past `limit`.
 */
function missingCost(s: string, mask: number, vowel: number, limit: number): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (((mask >>> (c & 31)) & 1) === 0) {
      n += isVowel(c) ? vowel : 1;
      if (n > limit) return n;
    }
  }
  return n;
}

/** Bits of the vowels in a `charMask`. */
const VOWEL_BITS = (1 << (65 & 31)) | (1 << (69 & 31)) | (1 << (73 & 31)) | (1 << (79 & 31)) | (1 << (85 & 31));

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** What the distinct letters of one mask absent from the other cost at least. */
function maskCost(mask: number, other: number, vowel: number): number {
  const absent = mask & ~other;
  return popcount(absent & ~VOWEL_BITS) + vowel * popcount(absent & VOWEL_BITS);
}

/** Similarity of two spellings by edit distance, 0 below the token floor (cheap bounds first). */
function editSimilarity(a: string, maskA: number, b: string, maskB: number, vowelCost: number): number {
  const la = a.length;
  const lb = b.length;
  const longer = la > lb ? la : lb;
  const vowel = longer <= 3 ? 1 : vowelCost;
  const root = Math.sqrt(longer);
  const limit = ((1 - SCORE.tokenFloor) * root) / SCORE.editWeight;
  // Each letter one side has and the other lacks costs at least `vowel`.
  if ((la > lb ? la - lb : lb - la) * vowel > limit) return 0;
  if (maskCost(maskA, maskB, vowel) > limit || maskCost(maskB, maskA, vowel) > limit) return 0;
  if (missingCost(a, maskB, vowel, limit) > limit || missingCost(b, maskA, vowel, limit) > limit) return 0;
  const d = editDistance(a, b, limit, vowel, SCORE.transposition);
  if (d > limit) return 0;
  return 1 - (SCORE.editWeight * d) / root;
}

const E = 69;
const H = 72;
const A = 65;
const I = 73;
const O = 79;
const U = 85;
const V = 86;

/** Whether `c` of a token without written vowels can stand for the Latin letter `d`. */
function weakMatch(c: number, d: number): boolean {
  if (c === I) return d === I || d === E;
  if (c === V) return d === U || d === O;
  return isVowel(c) && isVowel(d);
}

/**
 * Alignment cost of a token transliterated from a script that leaves vowels out (`MHMD`, `SMCHAI`)
 * with a Latin spelling (`MOHAMED`, `SOMCHAI`): the Latin vowels may be left out; a long-vowel
 * letter of the first (`I` for yā' or yod, `V` for wāw or vav) stands for a Latin `I`/`E` or
 * `U`/`O`; its written vowels (Thai, Khmer) for any vowel or nothing at half an edit; a final `H`
 * (tā' marbūṭa) for nothing.
 */
function sparseCost(sp: string, full: string, limit: number): number {
  const m = sp.length;
  const n = full.length;
  ensureRows(n);
  let prev = rowA;
  let cur = rowB;
  prev[0] = 0;
  for (let j = 1; j <= n; j++) prev[j] = prev[j - 1] + (isVowel(full.charCodeAt(j - 1)) ? 0 : 1);
  for (let i = 1; i <= m; i++) {
    const c = sp.charCodeAt(i - 1);
    const skip = c === H && i === m ? 0 : isVowel(c) && c !== I ? 0.5 : 1;
    cur[0] = prev[0] + skip;
    let rowMin = cur[0];
    for (let j = 1; j <= n; j++) {
      const d = full.charCodeAt(j - 1);
      let v = prev[j - 1] + (c === d || weakMatch(c, d) ? 0 : 1);
      const left = prev[j] + skip;
      if (left < v) v = left;
      const up = cur[j - 1] + (isVowel(d) ? 0 : 1);
      if (up < v) v = up;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    const tmp = prev;
    prev = cur;
    cur = tmp;
  }
  return prev[n];
}

/** Letters of a token without written vowels that a Latin spelling must show as they are. */
function firmLetters(sp: string, mask: number): number {
  let n = 0;
  for (let i = 0; i < sp.length; i++) {
    const c = sp.charCodeAt(i);
    if (isVowel(c) || c === V || (c === H && i === sp.length - 1)) continue;
    if (((mask >>> (c & 31)) & 1) === 0) n++;
  }
  return n;
}

function sparseSimilarity(sp: string, full: string): number {
  const root = Math.sqrt(sp.length + 1);
  const limit = ((SCORE.sparseVowels - SCORE.tokenFloor) * root) / SCORE.editWeight;
  if (firmLetters(sp, charMaskOf(full)) > limit) return 0;
  const c = sparseCost(sp, full, limit);
  if (c > limit) return 0;
  const s = SCORE.sparseVowels - (SCORE.editWeight * c) / root;
  // One letter (and a final `H`) is too little to tell a name by (`LLH` is `LI`, `LEE`, `LOU`).
  const letters = sp.charCodeAt(sp.length - 1) === H ? sp.length - 1 : sp.length;
  return letters < 2 && s > SCORE.sure ? SCORE.sure : s;
}

function groupsMeet(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) if (a[i] === b[j]) return true;
  return false;
}

/** Whether one of the other spellings of token `i` of `X` has the romanization key `key`. */
function spellingKeyIs(X: TokenForm, i: number, key: string | null): boolean {
  const spellings = X.spellings?.[i];
  if (!spellings || key === null) return false;
  for (const s of spellings) if (romanizationKey(s) === key) return true;
  return false;
}

/** The best similarity of the other spellings of token `i` of `X` with token `j` of `Y`. */
function spellingSimilarity(X: TokenForm, i: number, Y: TokenForm, j: number): number {
  const spellings = X.spellings?.[i];
  if (!spellings) return 0;
  let best = 0;
  for (const spelling of spellings) {
    const s = foldToken(spelling);
    const t =
      s === Y.folded[j] ? SCORE.foldedEqual : editSimilarity(s, charMaskOf(s), Y.folded[j], letterMask(Y, j), 0.5);
    if (t > best) best = t;
  }
  return best;
}

/**
 * Similarity of token `i` of `A` and token `j` of `B` (0 when they do not pair); `syllables`: one
 * of the names was read syllable by syllable from its script (no typo in it).
 */
function tokenSimilarity(
  A: TokenForm,
  i: number,
  B: TokenForm,
  j: number,
  romanized: boolean,
  syllables: boolean,
): number {
  const ta = A.tokens[i];
  const tb = B.tokens[j];
  if (ta === tb) return 1;
  const fa = flagsOf(A, i);
  const fb = flagsOf(B, j);
  if (fa & fb & F_NUMBER) return SCORE.numbers;
  if ((fa | fb) & (F_NUMBER | F_PARTICLE)) return 0;
  if ((fa | fb) & F_INITIAL) {
    if (fa & fb & F_INITIAL) return 0;
    return ta.charCodeAt(0) === tb.charCodeAt(0) ? SCORE.initial : 0;
  }
  if (romanized) {
    // Chinese and Korean syllables: the spelling fold of Slavic and Arabic names (`J`/`Y`,
    // `ZH`/`J`) would make different syllables meet (`YAN`/`JIAN`), and a vowel changes the
    // syllable (`PING`/`PENG`). Equal keys, or a typo in the spelling as written.
    if (A.romanized![i] !== null && A.romanized![i] === B.romanized![j]) return SCORE.romanized;
    if (spellingKeyIs(A, i, B.romanized![j]) || spellingKeyIs(B, j, A.romanized![i])) return SCORE.romanized;
    // A syllable read from its script is spelled as read: spelled otherwise, it is another
    // syllable (`JANG` and `JONG` are two surnames, not a typo).
    if (syllables) return 0;
    return editSimilarity(ta, rawLetterMask(A, i), tb, rawLetterMask(B, j), 1);
  }
  const ga = A.folded[i];
  const gb = B.folded[j];
  if (ga === gb) return SCORE.foldedEqual;
  if (A.spellings !== null || B.spellings !== null) {
    const s = Math.max(spellingSimilarity(A, i, B, j), spellingSimilarity(B, j, A, i));
    if (s >= SCORE.foldedEqual) return s;
    if (s > 0) return Math.max(s, plainSimilarity(A, i, B, j, fa, fb));
  }
  return plainSimilarity(A, i, B, j, fa, fb);
}

/** Similarity of two Latin tokens by nickname, consonants or spelling. */
function plainSimilarity(A: TokenForm, i: number, B: TokenForm, j: number, fa: number, fb: number): number {
  const ta = A.tokens[i];
  const tb = B.tokens[j];
  const ga = A.folded[i];
  const gb = B.folded[j];
  if (A.groups[i].length > 0 && B.groups[j].length > 0 && groupsMeet(A.groups[i], B.groups[j])) return SCORE.nickname;
  if ((fa ^ fb) & F_SPARSE_VOWELS) {
    return fa & F_SPARSE_VOWELS
      ? sparseSimilarity(consonantalOf(A, i), consonantalOf(B, j))
      : sparseSimilarity(consonantalOf(B, j), consonantalOf(A, i));
  }
  if (isGenderPair(ta, tb)) return 0;
  let t = editSimilarity(ga, letterMask(A, i), gb, letterMask(B, j), 0.5);
  // Folding can also take a typo further away (`FAZAL`/`FAAL` → `FAZAL`/`FAL`).
  if (t < SCORE.sure && (ga !== ta || gb !== tb)) {
    const raw = editSimilarity(ta, rawLetterMask(A, i), tb, rawLetterMask(B, j), 0.5);
    if (raw > t) t = raw;
  }
  if (t > SCORE.derived && (isNisba(ga, gb) || isNisba(gb, ga))) t = SCORE.derived;
  return t;
}

/**
 * The masculine and feminine forms of a Romance given name (`ANTONIO`/`ANTONIA`, `JULIO`/`JULIA`):
 * two names, not a typo, as a person on no list named `Antonia Rodriguez` is not `RODRIGUEZ, Antonio`.
 */
function isGenderPair(a: string, b: string): boolean {
  const n = a.length;
  if (n < 5 || n !== b.length || a.charCodeAt(n - 2) !== I || b.charCodeAt(n - 2) !== I) return false;
  const ea = a.charCodeAt(n - 1);
  const eb = b.charCodeAt(n - 1);
  if (!((ea === O && eb === A) || (ea === A && eb === O))) return false;
  return a.startsWith(b.slice(0, n - 1));
}

/**
 * `long` is `short` with the suffix `-I` that makes a name of another (`HEIDARI` of `HAIDAR`,
 * `EBRAHIMI` of `IBRAHIM`, `MOHAMMADI` of `MOHAMMED`): the Persian and Arabic nisba, a name of its
 * own rather than a typo.
 */
function isNisba(long: string, short: string): boolean {
  const n = long.length;
  if (n !== short.length + 1 || n < 4 || long.charCodeAt(n - 1) !== I) return false;
  const c = long.charCodeAt(n - 2);
  return !isVowel(c) && c === short.charCodeAt(n - 2);
}

function consonantalOf(form: TokenForm, i: number): string {
  return form.consonantal[i] ?? form.folded[i];
}

function charMaskOf(s: string): number {
  let m = 0;
  for (let i = 0; i < s.length; i++) m |= 1 << (s.charCodeAt(i) & 31);
  return m;
}

function addCandidate(a: number, b: number, sim: number): void {
  if (candCount === MAX_CANDIDATES) return;
  candA[candCount] = a;
  candB[candCount] = b;
  candSim[candCount] = sim;
  candCount++;
}

/** First, middle or last part of a name. */
function role(form: TokenForm, i: number): number {
  return i === form.first ? 0 : i === form.last ? 2 : 1;
}

/**
 * Whether a pairing of these tokens is allowed by their roles: not across a patronymic marker
 * (when both names are chains of as many links); an initial only for a part in the same role
 * (`Abubakar K. Ahmed`'s `K` is not `Kjersti`), between two people's or two organisations' names.
 */
function rolesAllow(A: TokenForm, i: number, B: TokenForm, j: number, kindsDiffer: boolean): boolean {
  if (A.patronymic > 0 && A.patronymic === B.patronymic && segmentOf(A, i) !== segmentOf(B, j)) return false;
  if ((flagsOf(A, i) | flagsOf(B, j)) & F_INITIAL) {
    // An organisation's single letters spell an acronym out (`R D I S.A.`), and a name of
    // initials only says too little: neither stands for a person's names.
    if (kindsDiffer || A.informative === 0 || B.informative === 0 || role(A, i) !== role(B, j)) return false;
  }
  return true;
}

function weightOf(form: TokenForm, mask: number): number {
  let w = 0;
  for (let i = 0; i < form.tokens.length; i++) if ((mask >>> i) & 1) w += tokenWeight(form, i);
  return w;
}

/** Greedy assignment, best candidate first; ties go to the one covering more tokens. */
function assign(): void {
  chosenCount = 0;
  let usedA = 0;
  let usedB = 0;
  for (;;) {
    let best = -1;
    let bestSim = 0;
    let bestSize = 0;
    for (let c = 0; c < candCount; c++) {
      if (candA[c] & usedA || candB[c] & usedB) continue;
      const s = candSim[c];
      if (s < bestSim) continue;
      const size = popcount(candA[c]) + popcount(candB[c]);
      if (s > bestSim || size > bestSize) {
        best = c;
        bestSim = s;
        bestSize = size;
      }
    }
    if (best < 0) return;
    usedA |= candA[best];
    usedB |= candB[best];
    chosen[chosenCount++] = best;
  }
}

/**
 * Runs of 2-3 consecutive tokens of `X` against single tokens of `Y` (split or joined
 * spellings), and acronyms of `X` against the initials of runs of `Y`: between two
 * organisations' names any short token, between two people's a token without vowels (`JC`).
 */
function addRuns(X: TokenForm, Y: TokenForm, xIsA: boolean, orgX: boolean, orgY: boolean, romanized: boolean): void {
  const ny = Y.tokens.length;
  for (const run of X.runs) {
    const rl = run.text.length;
    for (let j = 0; j < ny; j++) {
      if (flagsOf(Y, j) & (F_NUMBER | F_PARTICLE | F_INITIAL)) continue;
      const yf = Y.folded[j];
      const yl = yf.length;
      // A split or joined spelling keeps the ends of the name: one of them must agree.
      if (yf.charCodeAt(0) !== run.text.charCodeAt(0) && yf.charCodeAt(yl - 1) !== run.text.charCodeAt(rl - 1))
        continue;
      if ((rl > yl ? rl - yl : yl - rl) > (rl > yl ? rl : yl) / 2) continue;
      const runSparse = (flagsOf(X, 31 - Math.clz32(run.tokens)) & F_SPARSE_VOWELS) !== 0;
      const ySparse = (flagsOf(Y, j) & F_SPARSE_VOWELS) !== 0;
      let s: number;
      if (run.text === yf) s = 1;
      else if (romanized) s = run.key !== null && run.key === Y.romanized![j] ? SCORE.romanized : 0;
      else if (runSparse !== ySparse) s = runSparse ? sparseSimilarity(run.text, yf) : sparseSimilarity(yf, run.text);
      else s = editSimilarity(run.text, run.mask, yf, letterMask(Y, j), 0.5);
      if (s < SCORE.tokenFloor) continue;
      s *= SCORE.joined;
      if (xIsA) addCandidate(run.tokens, 1 << j, s);
      else addCandidate(1 << j, run.tokens, s);
    }
  }
  if (orgX !== orgY) return;
  for (let i = 0; i < X.tokens.length; i++) {
    const t = X.tokens[i];
    const f = flagsOf(X, i);
    const acronym = orgX
      ? t.length >= 2 && t.length <= 6 && !(f & (F_NUMBER | F_PARTICLE | F_LEGAL))
      : (f & F_ACRONYM) !== 0;
    if (!acronym) continue;
    // Initials of consecutive tokens of Y, particles between them allowed.
    for (let start = 0; start < ny; start++) {
      if (flagsOf(Y, start) & (F_PARTICLE | F_NUMBER)) continue;
      let k = 0;
      let mask = 0;
      for (let j = start; j < ny && k < t.length; j++) {
        if (flagsOf(Y, j) & F_PARTICLE) {
          mask |= 1 << j;
          continue;
        }
        if (Y.tokens[j].charCodeAt(0) !== t.charCodeAt(k)) break;
        mask |= 1 << j;
        k++;
      }
      if (k === t.length && k >= 2) {
        if (xIsA) addCandidate(1 << i, mask, SCORE.acronym);
        else addCandidate(mask, 1 << i, SCORE.acronym);
      }
    }
  }
}

/** Whether a token is one that phase two (runs, acronyms) could still place. */
function leftOver(form: TokenForm, used: number): boolean {
  for (let i = 0; i < form.tokens.length; i++)
    if (!((used >>> i) & 1) && !(flagsOf(form, i) & (F_PARTICLE | F_TITLE))) return true;
  return false;
}

/**
 * A leftover legal-form token (`AG` of a `Siemens AG` nothing said was a company) costs nothing
 * when the other name's legal form is of the same kind.
 */
function freeLegal(form: TokenForm, i: number, otherKinds: number): boolean {
  return (flagsOf(form, i) & F_LEGAL) !== 0 && (legalKindBits(form.tokens[i]) & otherKinds & SPECIFIC_KINDS) !== 0;
}

let leftoverWeight = 0;
let leftoverConflict = 0;

/**
 * Weight of the tokens of `form` not in `covered` (into `leftoverWeight`), and what they cost if
 * they were replaced (`leftoverConflict`: a generic word in full).
 */
function leftovers(form: TokenForm, covered: number, otherKinds: number): void {
  leftoverWeight = 0;
  leftoverConflict = 0;
  for (let i = 0; i < form.tokens.length; i++) {
    if ((covered >>> i) & 1 || freeLegal(form, i, otherKinds)) continue;
    leftoverWeight += tokenWeight(form, i);
    leftoverConflict += flagsOf(form, i) & F_GENERIC ? 1 : tokenWeight(form, i);
  }
}

function formScore(A: TokenForm, B: TokenForm, a: PreparedName, b: PreparedName, romanized: boolean): number {
  const organization = a.organization || b.organization;
  const na = A.tokens.length;
  const nb = B.tokens.length;
  if (na === 0 || nb === 0) return 0;
  candCount = 0;
  let usedA = 0;
  let usedB = 0;
  const kindsDiffer = a.organization !== b.organization;
  const syllables = romanized && (a.syllableReading || b.syllableReading);
  for (let i = 0; i < na; i++) {
    for (let j = 0; j < nb; j++) {
      const s = tokenSimilarity(A, i, B, j, romanized, syllables);
      if (s > 0 && rolesAllow(A, i, B, j, kindsDiffer)) {
        addCandidate(1 << i, 1 << j, s);
        usedA |= 1 << i;
        usedB |= 1 << j;
      }
    }
  }
  // Runs and acronyms only where a token found no partner or names differ in length.
  if ((na > 1 || nb > 1) && (leftOver(A, usedA) || leftOver(B, usedB))) {
    addRuns(A, B, true, a.organization, b.organization, romanized);
    addRuns(B, A, false, b.organization, a.organization, romanized);
  }
  assign();
  let matched = 0;
  let pairWeight = 0;
  let coveredA = 0;
  let coveredB = 0;
  let uncertain = 0;
  let nickname = false;
  for (let k = 0; k < chosenCount; k++) {
    const c = chosen[k];
    const w = (weightOf(A, candA[c]) + weightOf(B, candB[c])) / 2;
    const s = candSim[c];
    matched += s * w;
    pairWeight += w;
    if (s === SCORE.nickname) nickname = true;
    // A near spelling of another surname is a different family; a given or middle name so near
    // costs less.
    if (s < SCORE.sure) {
      const cost = candA[c] & A.family || candB[c] & B.family ? SCORE.uncertain : SCORE.uncertainGiven;
      uncertain += (cost * w * (SCORE.sure - s)) / (SCORE.sure - SCORE.tokenFloor);
    }
    coveredA |= candA[c];
    coveredB |= candB[c];
  }
  if (matched === 0) return 0;
  leftovers(A, coveredA, b.legalKinds);
  const restA = leftoverWeight;
  const conflictA = leftoverConflict;
  leftovers(B, coveredB, a.legalKinds);
  const restB = leftoverWeight;
  const conflictB = leftoverConflict;
  let conflict: number;
  let extra: number;
  if (conflictA <= conflictB) {
    conflict = conflictA;
    extra = conflictB > 0 ? (restB * (conflictB - conflictA)) / conflictB : 0;
  } else {
    conflict = conflictB;
    extra = (restA * (conflictA - conflictB)) / conflictA;
  }
  const extraCost = organization
    ? SCORE.extraOrganization
    : romanized
      ? SCORE.extraSyllable
      : nickname
        ? SCORE.extraBesideNickname
        : SCORE.extraPerson;
  let penalty = SCORE.conflict * conflict + uncertain + extraCost * extra;
  if (!organization && A.last >= 0 && B.last >= 0 && !((coveredA >>> A.last) & 1) && !((coveredB >>> B.last) & 1)) {
    penalty += (SCORE.surnameConflict - SCORE.conflict) * Math.min(tokenWeight(A, A.last), tokenWeight(B, B.last));
  }
  let score = matched / (pairWeight + penalty);
  if (!organization && rolesDisagree(A, B)) score *= SCORE.roleSwap;
  return score > 1 ? 1 : score;
}

/**
 * The roles of the two names' parts disagree: both surname-role (last) tokens are paired, but not
 * with each other (`Friedrich Hans` / `Hans Friedrich`), or the shorter name lines up with
 * neither end of the longer (`Ali Mohammed` inside `Isam Ali Mohamed Alouche`). A last token
 * left over otherwise is a replaced or added name, costed as such.
 */
function rolesDisagree(A: TokenForm, B: TokenForm): boolean {
  if (A.informative < 2 || B.informative < 2 || A.last < 0 || B.last < 0) return false;
  const firstA = 1 << A.first;
  const firstB = 1 << B.first;
  const lastA = 1 << A.last;
  const lastB = 1 << B.last;
  let pairedLastA = -1;
  let pairedLastB = -1;
  let firstsMeet = false;
  let lastsMeet = false;
  for (let k = 0; k < chosenCount; k++) {
    const c = chosen[k];
    if (candA[c] & lastA) pairedLastA = c;
    if (candB[c] & lastB) pairedLastB = c;
    if (candA[c] & firstA && candB[c] & firstB) firstsMeet = true;
    if (candA[c] & lastA && candB[c] & lastB) lastsMeet = true;
  }
  if (pairedLastA >= 0 && pairedLastB >= 0 && pairedLastA !== pairedLastB) return true;
  return !firstsMeet && !lastsMeet && chosenCount > 0;
}

/**
 * Name score (0..1) of two prepared names: their original-script tokens when both are written in
 * the same script other than Latin (`김종은` and `김정은` differ in a syllable that romanizes
 * alike), else their transliterations; a name in Chinese characters against one in another script
 * also by its Korean and Japanese readings, the best of them.
 */
export function nameScore(a: PreparedName, b: PreparedName): number {
  let score = readingScore(a, b);
  if (a.script !== b.script) {
    for (const r of a.readings) score = Math.max(score, readingScore(r, b));
    for (const r of b.readings) score = Math.max(score, readingScore(a, r));
  }
  return score;
}

function readingScore(a: PreparedName, b: PreparedName): number {
  const sameScript = a.original !== null && b.original !== null && a.script === b.script;
  const A = sameScript ? a.original! : a.latin;
  const B = sameScript ? b.original! : b.latin;
  let score = formScore(A, B, a, b, A.romanized !== null && B.romanized !== null);
  if (!legalKindsCompatible(a.legalKinds, b.legalKinds)) score *= SCORE.legalConflict;
  return score;
}
