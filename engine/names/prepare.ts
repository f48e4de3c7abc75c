/**
 * A name prepared for matching, once per indexed alias and once per query: its tokens in the
 * original script and transliterated, each token's spelling fold, weight and kind, the legal form
 * as a feature of its own, and whether the name reads as an organisation's.
 */
import { readName, type ScriptKind } from '../normalize/name.js';
import { LEGAL_FORMS, legalKindBits } from '../normalize/legal-forms.js';
import { readHangul } from './hangul.js';
import { readKana } from './kana.js';
import { hanjaReading } from './hanja.js';
import { kanjiReading } from './kanji.js';
import { nicknameGroups } from './nicknames.js';
import { numberTokens } from './numbers.js';
import { romanizationKey } from './romanization.js';
import { GENERIC_ORG_WORDS, ORG_INDICATORS, PARTICLES, PATRONYMIC_MARKERS, TITLES } from '../normalize/words.js';
import type { PartyType } from '../model.js';

export type { PartyType } from '../model.js';

/** Token kinds (bit flags). */
export const F_INITIAL = 1;
export const F_NUMBER = 2;
export const F_PARTICLE = 4;
export const F_TITLE = 8;
/** Transliterated from a script that leaves short vowels out (Arabic, Hebrew, Thai, ...). */
export const F_SPARSE_VOWELS = 16;
/** Letters only, no vowel, two to six of them: may be an acronym or run-together initials (`JC`). */
export const F_ACRONYM = 32;
export const F_GENERIC = 64;
/** A legal-form abbreviation kept as a token (`Siemens AG` when nothing says it is a company). */
export const F_LEGAL = 128;

/** Weights: how much a token says about who is meant. */
const W_PARTICLE = 0.25;
const W_TITLE = 0.25;
const W_GENERIC = 0.35;
const W_INITIAL = 0.5;
const W_NUMBER = 0.5;

/** Names longer than this many tokens are cut (list entries run to a dozen at most). */
export const MAX_TOKENS = 24;

/** The tokens of one form of a name (transliterated, or in the original script). */
export interface TokenForm {
  tokens: string[];
  /** Spelling-folded tokens (transliteration variants of one sound written alike). */
  folded: string[];
  /**
   * The fold with J kept a consonant (jīm is not yā'), compared with tokens from scripts without
   * written vowels; null where it equals `folded`.
   */
  consonantal: (string | null)[];
  /**
   * Per token, in one array (a typed array costs ~200 B of heap whatever its length, and the
   * shards prepare the names of every candidate party of a query): its kind (`F_*` bits) at
   * [0, n), the letters present in the folded token (mod 32, for cheap lower bounds on edit
   * distances) at [n, 2n), the same for the token before folding at [2n, 3n), and the number of
   * patronymic markers (`BIN`) before it at [3n, 4n). Read through `flagsOf`, `letterMask`,
   * `rawLetterMask` and `segmentOf`.
   */
  features: Int32Array;
  /**
   * Tokens that name the family (bit set): the last one that is not a particle, title or number,
   * and each one right after a patronymic marker (the father's name in `X BIN Y`).
   */
  family: number;
  /** Nickname groups of each token (shared empty array when none). */
  groups: (readonly number[])[];
  /** Romanization keys (Chinese and Korean syllables), or null when the name does not read as such. */
  romanized: (string | null)[] | null;
  /**
   * Other spellings of each token, or null for a name without any: a Korean
   * surname's customary spellings (`PAK`: `PARK`), a Greek name without its case ending.
   */
  spellings: (readonly string[] | null)[] | null;
  /** Runs of two or three consecutive tokens joined, for names split or joined differently. */
  runs: TokenRun[];
  /** Index of the first and last token that is not a particle, title or number (-1 when none). */
  first: number;
  last: number;
  /** Tokens other than particles, titles, numbers and initials. */
  informative: number;
  /**
   * Number of patronymic markers between two names (`X BIN Y BIN Z` has two); 0 when a marker
   * stands at either end of the name (its chain is not readable).
   */
  patronymic: number;
}

interface TokenRun {
  /** The tokens' folds joined. */
  text: string;
  mask: number;
  /** The tokens it covers (bit set of positions). */
  tokens: number;
  /** Romanization keys joined, or null. */
  key: string | null;
}

export interface PreparedName {
  /** The name as given. */
  value: string;
  /** The script the name is written in (`Latin`, `Arabic`, `Han`, ...). */
  script: string;
  /** Transliterated tokens, legal forms set aside. */
  latin: TokenForm;
  /** Original-script tokens for a name not in Latin script, else null. */
  original: TokenForm | null;
  /** Kinds of the legal forms the name carries (bits of `legalKindBits`), 0 when none. */
  legalKinds: number;
  /** Compared as an organisation's name (type given, or a legal form or organisation word in it). */
  organization: boolean;
  /**
   * Read syllable by syllable from Chinese characters, Hangul or kana: its Latin tokens hold no
   * typo, so a syllable spelled otherwise than the other name's is another syllable.
   */
  syllableReading: boolean;
  /**
   * Other readings of a person's name in Chinese characters, each prepared from its kana or Hangul
   * and compared in Latin script: Korean (`hanja.ts`), and Japanese while the kanji reader is
   * loaded (`kanji.ts`). Empty for other names.
   */
  readings: readonly PreparedName[];
  /** The type the caller gave, if any. */
  type: PartyType | null;
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
 * SCH → SH, TCH → CH, KH → H, PH → F, TH → T, GH → G, CK/Q → K, C → S before E/I/Y else K (CH
 * kept), X → KS, W → V, OU/OO → U, EE → I, doubled letters single. Characters other than A-Z
 * (original scripts) are kept.
 */
export function foldToken(t: string, keepJ = false): string {
  foldBuffer.length = 0;
  const n = t.length;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    const c1 = i + 1 < n ? t.charCodeAt(i + 1) : 0;
    const c2 = i + 2 < n ? t.charCodeAt(i + 2) : 0;
    switch (c) {
      case D:
        if (c1 === Z && c2 === H) {
          push(keepJ ? J : I);
          i += 2;
        } else if (c1 === J) {
          push(keepJ ? J : I);
          i += 1;
        } else push(D);
        break;
      case Z:
        if (c1 === H) {
          push(keepJ ? J : I);
          i += 1;
        } else push(Z);
        break;
      case J:
        push(keepJ ? J : I);
        break;
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
      case 71:
        if (c1 === H) {
          push(71);
          i += 1;
        } else push(71);
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

export function isVowel(c: number): boolean {
  return c === A || c === E || c === I || c === O || c === U;
}

function hasVowel(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (isVowel(c) || c === Y) return true;
  }
  return false;
}

function charMask(s: string): number {
  let m = 0;
  for (let i = 0; i < s.length; i++) m |= 1 << (s.charCodeAt(i) & 31);
  return m;
}

const DIGITS = /^[0-9]+$/;
const LETTERS = /^[A-Z]+$/;
const NONE: readonly number[] = [];

/** What a Latin token is whatever its place in a name (bits for `tokenFlags`). */
const TR_DIGITS = 1;
const TR_SINGLE = 2;
const TR_PARTICLE = 4;
const TR_TITLE = 8;
const TR_GENERIC = 16;
const TR_LEGAL = 32;
/** Two to six letters, no vowel (an acronym, or run-together initials). */
const TR_CONSONANTS = 64;

export function tokenTraits(t: string): number {
  let traits = 0;
  if (DIGITS.test(t)) traits |= TR_DIGITS;
  if (t.length === 1) traits |= TR_SINGLE;
  if (PARTICLES.has(t)) traits |= TR_PARTICLE;
  if (TITLES.has(t)) traits |= TR_TITLE;
  if (GENERIC_ORG_WORDS.has(t)) traits |= TR_GENERIC;
  if (LEGAL_FORMS.has(t)) traits |= TR_LEGAL;
  if (t.length >= 2 && t.length <= 6 && LETTERS.test(t) && !hasVowel(t)) traits |= TR_CONSONANTS;
  return traits;
}

/**
 * The kind of a Latin token (`F_*` bits) from its traits and its place among `n` tokens:
 * particles, titles and initials only in names of several tokens, generic words only in an
 * organisation's name, legal forms only at either end; `syllabic`: transliterated from Chinese or
 * Korean syllables, where `BIN` is a syllable, not a particle, and `I` a syllable, not an initial.
 */
export function tokenFlags(
  traits: number,
  i: number,
  n: number,
  organization: boolean,
  sparse: boolean,
  syllabic: boolean,
): number {
  let flags = 0;
  if (traits & TR_DIGITS) flags = F_NUMBER;
  else if ((traits & TR_SINGLE) !== 0 && n > 1 && !syllabic) flags = F_INITIAL;
  else if (!syllabic && (traits & TR_PARTICLE) !== 0 && n > 1) flags = F_PARTICLE;
  else if (!syllabic && (traits & TR_TITLE) !== 0 && n > 1) flags = F_TITLE;
  else if (organization && (traits & TR_GENERIC) !== 0) flags = F_GENERIC;
  else if ((traits & TR_LEGAL) !== 0 && (i === 0 || i === n - 1)) flags = F_LEGAL;
  if (sparse && !(flags & F_NUMBER)) flags |= F_SPARSE_VOWELS;
  else if ((traits & TR_CONSONANTS) !== 0 && !(flags & F_PARTICLE)) flags |= F_ACRONYM;
  return flags;
}

/** The kind of token `i` (`F_*` bits). */
export function flagsOf(form: TokenForm, i: number): number {
  return form.features[i];
}

/** Letters present in folded token `i` (mod 32). */
export function letterMask(form: TokenForm, i: number): number {
  return form.features[form.tokens.length + i];
}

/** Letters present in token `i` before folding (mod 32). */
export function rawLetterMask(form: TokenForm, i: number): number {
  return form.features[2 * form.tokens.length + i];
}

/** Patronymic markers (`BIN`) before token `i`. */
export function segmentOf(form: TokenForm, i: number): number {
  return form.features[3 * form.tokens.length + i];
}

/** How much token `i` says about who is meant (by its kind). */
export function tokenWeight(form: TokenForm, i: number): number {
  return flagWeight(form.features[i]);
}

function flagWeight(flags: number): number {
  if (flags & F_NUMBER) return W_NUMBER;
  if (flags & F_INITIAL) return W_INITIAL;
  if (flags & F_PARTICLE) return W_PARTICLE;
  if (flags & F_TITLE) return W_TITLE;
  if (flags & F_GENERIC) return W_GENERIC;
  return 1;
}

/**
 * `latin`: transliterated tokens (particles, titles, numbers and generic words are told apart);
 * `syllabic`: transliterated from Chinese or Korean syllables, where `BIN` is a syllable, not a
 * particle.
 */
function buildForm(
  tokens: string[],
  organization: boolean,
  sparse: boolean,
  latin: boolean,
  syllabic = false,
): TokenForm {
  const n = Math.min(tokens.length, MAX_TOKENS);
  const out: TokenForm = {
    tokens: new Array<string>(n),
    folded: new Array<string>(n),
    consonantal: new Array<string | null>(n),
    features: new Int32Array(4 * n),
    family: 0,
    groups: new Array<readonly number[]>(n),
    romanized: null,
    spellings: null,
    runs: [],
    first: -1,
    last: -1,
    informative: 0,
    patronymic: 0,
  };
  let segment = 0;
  for (let i = 0; i < n; i++) {
    let t = tokens[i];
    const flags = latin ? tokenFlags(tokenTraits(t), i, n, organization, sparse, syllabic) : 0;
    if (flags & F_PARTICLE) t = PARTICLES.get(t)!;
    const folded = latin ? foldToken(t) : t;
    out.tokens[i] = t;
    out.folded[i] = folded;
    const consonantal = latin ? foldToken(t, true) : folded;
    out.consonantal[i] = consonantal === folded ? null : consonantal;
    out.features[i] = flags;
    out.features[n + i] = charMask(folded);
    out.features[2 * n + i] = charMask(t);
    out.groups[i] = latin ? nicknameGroups(t) : NONE;
    if (flags & F_PARTICLE && PATRONYMIC_MARKERS.has(t)) {
      segment++;
      out.patronymic = i > 0 && i < n - 1 && out.patronymic === segment - 1 ? segment : -n;
      if (i + 1 < n) out.family |= bit(i + 1);
    }
    out.features[3 * n + i] = segment;
    if (!(flags & (F_PARTICLE | F_TITLE | F_NUMBER))) {
      if (out.first < 0) out.first = i;
      out.last = i;
      if (!(flags & F_INITIAL)) out.informative++;
    }
  }
  if (out.last >= 0) out.family |= bit(out.last);
  if (out.patronymic < 0) out.patronymic = 0;
  return out;
}

/** The bit of token position `i` in a bit set of positions. */
function bit(i: number): number {
  return 1 << i;
}

const MAX_RUN = 3;

/** Runs of 2-3 consecutive tokens without numbers, particles or initials at their ends. */
function buildRuns(form: TokenForm): TokenRun[] {
  const runs: TokenRun[] = [];
  const n = form.tokens.length;
  for (let start = 0; start < n - 1; start++) {
    if (flagsOf(form, start) & (F_NUMBER | F_INITIAL)) continue;
    let text = form.folded[start];
    let key = form.romanized ? form.romanized[start] : null;
    let tokens = 1 << start;
    for (let k = start + 1; k < n && k < start + MAX_RUN; k++) {
      if (flagsOf(form, k) & (F_NUMBER | F_INITIAL)) break;
      text += form.folded[k];
      key = key !== null && form.romanized && form.romanized[k] !== null ? key + form.romanized[k] : null;
      tokens |= 1 << k;
      if (flagsOf(form, k) & F_PARTICLE) continue;
      runs.push({ text, mask: charMask(text), tokens, key });
    }
  }
  return runs;
}

/**
 * Romanization keys when every token that is not a particle or number splits into Chinese or
 * Korean syllables (or the name was written in those scripts), else null. `key(i)` gives token
 * i's key (`romanizationKey`, or a cache of it).
 */
export function romanizeTokens(
  flagsAt: (i: number) => number,
  n: number,
  syllabic: boolean,
  key: (i: number) => string | null,
): (string | null)[] | null {
  const keys: (string | null)[] = [];
  let any = false;
  for (let i = 0; i < n; i++) {
    if (flagsAt(i) & (F_NUMBER | F_PARTICLE | F_TITLE | F_INITIAL)) {
      keys.push(null);
      continue;
    }
    const k = key(i);
    if (k === null && !syllabic) return null;
    keys.push(k);
    if (k !== null) any = true;
  }
  return any ? keys : null;
}

/**
 * Legal forms at the end of a name (and at its start, unless it is a person's: a leading `AS` or
 * `AD` there is an Arabic article) → their kinds; the rest of the tokens. Unless the name is
 * known to be an organisation's, a form of two letters that would leave one token (`Thomas Sá`,
 * `Siemens AG`) stays a token (flagged `F_LEGAL`): it may be a surname.
 */
function splitLegalForms(tokens: string[], type: PartyType | null): { rest: string[]; kinds: number } {
  const organization = type !== null && type !== 'person';
  let start = 0;
  let end = tokens.length;
  let kinds = 0;
  const strippable = (t: string) => organization || t.length > 2 || end - start > 2;
  for (;;) {
    if (end - start <= 1) break;
    const tail = legalKindBits(tokens[end - 1]);
    if (tail && strippable(tokens[end - 1])) {
      kinds |= tail;
      end--;
      continue;
    }
    const head = type === 'person' ? 0 : legalKindBits(tokens[start]);
    if (head && strippable(tokens[start])) {
      kinds |= head;
      start++;
      continue;
    }
    break;
  }
  return { rest: start === 0 && end === tokens.length ? tokens : tokens.slice(start, end), kinds };
}

export interface PrepareOptions {
  /** The party's type when known: an organisation's, vessel's or aircraft's name is compared as such. */
  type?: PartyType | null;
}

/** A name's tokens before they are told apart, as `prepareName` and the index terms read them. */
export interface NameTokens {
  script: string;
  kind: ScriptKind;
  /** Transliterated tokens, legal forms set aside, numbers as digits. */
  tokens: string[];
  /** Original-script tokens for a name not in Latin script, else null. */
  original: string[] | null;
  legalKinds: number;
  organization: boolean;
  /** Other spellings of each token (see `TokenForm.spellings`), or null. */
  spellings: (readonly string[] | null)[] | null;
}

/** Greek case endings of masculine and feminine names (`ALEXANDROS`, `NIKOLAOS`, `GEORGIOS`). */
const GREEK_ENDING = /(?:OS|AS|IS|ES|OU)$/;

/**
 * Tokens read from the original script where any-ascii's transliteration is not how the lists
 * write the name: Hangul as Korean names are romanized there, kana in Hepburn; a Greek name also
 * without its case ending (`ALEXANDROS` is `ALEXANDER`).
 */
function scriptReading(value: string, script: string, tokens: string[]): Pick<NameTokens, 'tokens' | 'spellings'> {
  if (script === 'Hangul') {
    const hangul = readHangul(value);
    if (hangul) return hangul;
  } else if (script === 'Kana') {
    const kana = readKana(value);
    if (kana) return { tokens: kana, spellings: null };
  } else if (script === 'Greek') {
    const spellings = tokens.map((t) => (t.length > 4 && GREEK_ENDING.test(t) ? [t.slice(0, -2)] : null));
    if (spellings.some((s) => s !== null)) return { tokens, spellings };
  }
  return { tokens, spellings: null };
}

export function readNameTokens(value: string, type: PartyType | null): NameTokens {
  const reading = readName(value);
  const read =
    reading.kind === 'alphabet' && reading.script !== 'Greek'
      ? null
      : scriptReading(value, reading.script, reading.tokens);
  const tokens = read ? read.tokens : reading.tokens;
  const { rest, kinds } = splitLegalForms(tokens, type);
  const organization =
    type === 'organization' ||
    type === 'vessel' ||
    type === 'aircraft' ||
    (type === null && (kinds !== 0 || rest.some((t) => ORG_INDICATORS.has(t))));
  const numbered = numberTokens(rest, organization);
  // Spellings stay only while they line up with the tokens.
  const spellings = read?.spellings && numbered.length === read.tokens.length ? read.spellings : null;
  return {
    script: reading.script,
    kind: reading.kind,
    tokens: numbered,
    original: reading.original,
    legalKinds: kinds,
    organization,
    spellings,
  };
}

const NO_READINGS: readonly PreparedName[] = [];

/** A name in Chinese characters read in Korean (Hangul) and Japanese (kana), those that can be read. */
export function otherReadings(value: string): string[] {
  const out: string[] = [];
  const korean = hanjaReading(value);
  if (korean !== null) out.push(korean);
  const japanese = kanjiReading(value);
  if (japanese !== null) out.push(japanese);
  return out;
}

export function prepareName(value: string, opts: PrepareOptions = {}): PreparedName {
  const type = opts.type ?? null;
  const {
    script,
    kind,
    tokens,
    original: originalTokens,
    legalKinds,
    organization,
    spellings,
  } = readNameTokens(value, type);
  const latin = buildForm(tokens, organization, kind === 'abjad' || kind === 'abugida', true, kind === 'syllabic');
  if (spellings) latin.spellings = spellings.slice(0, latin.tokens.length);
  latin.romanized = organization
    ? null
    : romanizeTokens(
        (i) => flagsOf(latin, i),
        latin.tokens.length,
        kind === 'syllabic',
        (i) => romanizationKey(latin.tokens[i]),
      );
  latin.runs = buildRuns(latin);
  const original = originalTokens ? buildForm(originalTokens, organization, false, false) : null;
  if (original) original.runs = buildRuns(original);
  const syllableReading = kind === 'syllabic';
  const readings =
    organization || script !== 'Han'
      ? NO_READINGS
      : otherReadings(value).map((reading) => ({ ...prepareName(reading, opts), original: null }));
  return { value, script, latin, original, legalKinds, organization, syllableReading, readings, type };
}
