/**
 * Person and organisation names → canonical tokens: Unicode compatibility forms folded, every
 * script transliterated to ASCII by `any-ascii` (a maintained library whose tables ship in its
 * npm tarball; Chinese characters and Hangul syllables become one token per syllable),
 * upper-case, `LAST, First` reordered, leading honorifics dropped and spelled-out legal forms
 * abbreviated (`LIMITED` → `LTD`), so that the same name written differently gets the same exact
 * key. `readName` also keeps the name's original-script tokens for the name matcher.
 */
import anyAscii from 'any-ascii';
import { LEGAL_FORMS, LEGAL_PHRASES } from './legal-forms.js';
import { GENERATIONAL, LEADING_HONORIFICS } from './words.js';

/** Spelled-out legal forms and a few abbreviations of generic words → canonical tokens. */
const PHRASES: [string[], string[]][] = [...LEGAL_PHRASES, ['INTL', 'INTERNATIONAL'] as [string, string]].map(
  ([from, to]) => [from.split(' '), to.split(' ')],
);
const PHRASE_STARTS = new Set(PHRASES.map(([from]) => from[0]));

function canonicalPhrases(tokens: string[]): string[] {
  if (!tokens.some((t) => PHRASE_STARTS.has(t))) return tokens;
  const out: string[] = [];
  outer: for (let i = 0; i < tokens.length;) {
    if (PHRASE_STARTS.has(tokens[i])) {
      for (const [from, to] of PHRASES) {
        if (from[0] !== tokens[i] || i + from.length > tokens.length) continue;
        let ok = true;
        for (let k = 1; k < from.length; k++) if (tokens[i + k] !== from[k]) ok = false;
        if (ok) {
          out.push(...to);
          i += from.length;
          continue outer;
        }
      }
    }
    out.push(tokens[i++]);
  }
  return out;
}

const ASCII_SIMPLE = /^[A-Za-z0-9 ]*$/;
const ASCII_COMMA = /^[A-Za-z0-9 ,]*$/;
const ASCII = /^[\x00-\x7f]*$/;
const APOSTROPHES = /['`]/g;
const SEPARATORS = /[^A-Z0-9]+/;
/** `J.P.` and `L.L.C.`: dotted single letters are one token; so are `A/S` and `S/A`. */
const DOTTED_INITIALS = /(?<![A-Z0-9])(?:[A-Z]\.){2,}|(?<![A-Z0-9])[A-Z]\/[A-Z](?![A-Z0-9])/g;
/** Chinese characters and Hangul syllables: each is a syllable, and syllables are tokens. */
const SYLLABIC = /[\p{Script=Han}\p{Script=Hangul}]/gu;

/** The value in upper-case ASCII: compatibility forms folded, every script transliterated. */
function foldScript(value: string): string {
  if (ASCII.test(value)) return value.toUpperCase();
  const s = value.normalize('NFKC').replace(SYLLABIC, (ch) => ` ${anyAscii(ch)} `);
  return anyAscii(s).toUpperCase();
}

function isSuffixPart(tokens: string[]): boolean {
  return tokens.length > 0 && tokens.every((t) => GENERATIONAL.has(t) || LEGAL_FORMS.has(t) || t === 'THE');
}

/** Canonical tokens of an upper-case ASCII name with `,` still in it. */
function asciiTokens(upper: string): string[] {
  const parts = upper
    .replace(DOTTED_INITIALS, (m) => m.replace(/[./]/g, ''))
    .replace(APOSTROPHES, '')
    .replace(/&/g, ' AND ')
    .split(',')
    .map((p) => p.split(SEPARATORS).filter((t) => t.length > 0))
    .filter((p) => p.length > 0);
  const tail: string[] = [];
  while (parts.length > 1 && isSuffixPart(parts[parts.length - 1])) tail.unshift(...parts.pop()!);
  if (parts.length === 2 && !parts[1].some((t) => LEGAL_FORMS.has(t))) return [...parts[1], ...parts[0], ...tail];
  return [...parts.flat(), ...tail];
}

export function nameTokens(value: string): string[] {
  let tokens: string[];
  if (ASCII_SIMPLE.test(value)) {
    tokens = value
      .toUpperCase()
      .split(' ')
      .filter((t) => t.length > 0);
  } else if (ASCII_COMMA.test(value)) {
    // `LAST, First` in plain ASCII needs none of the Unicode folding: its parts split on spaces.
    tokens = asciiTokens(value.toUpperCase());
  } else {
    tokens = asciiTokens(foldScript(value));
  }
  let start = 0;
  while (start < tokens.length - 1 && LEADING_HONORIFICS.has(tokens[start])) start++;
  return canonicalPhrases(start > 0 ? tokens.slice(start) : tokens);
}

/** Canonical form of a name: its tokens joined by single spaces ('' when it has none). */
export function normalizeName(value: string): string {
  return nameTokens(value).join(' ');
}

/**
 * How a script writes vowels, which decides how its transliteration compares with Latin
 * spellings: `abjad` scripts (Arabic, Hebrew) and `abugida` ones (Thai, Khmer, the Indic
 * scripts) leave short vowels out, `syllabic` ones (Chinese, Korean, Japanese) have romanization
 * systems of their own; `alphabet` (Latin, Cyrillic, Greek, Armenian, Georgian, ...) writes them.
 */
export type ScriptKind = 'alphabet' | 'abjad' | 'abugida' | 'syllabic';

const SCRIPTS: [string, ScriptKind, RegExp][] = [
  ['Arabic', 'abjad', /\p{Script=Arabic}/u],
  ['Hebrew', 'abjad', /\p{Script=Hebrew}/u],
  ['Syriac', 'abjad', /\p{Script=Syriac}/u],
  ['Thaana', 'abjad', /\p{Script=Thaana}/u],
  ['Han', 'syllabic', /\p{Script=Han}/u],
  ['Hangul', 'syllabic', /\p{Script=Hangul}/u],
  ['Kana', 'syllabic', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Cyrillic', 'alphabet', /\p{Script=Cyrillic}/u],
  ['Greek', 'alphabet', /\p{Script=Greek}/u],
  ['Armenian', 'alphabet', /\p{Script=Armenian}/u],
  ['Georgian', 'alphabet', /\p{Script=Georgian}/u],
];
const NON_LATIN_LETTER = /[^\p{Script=Latin}\P{L}]/u;
const ORIGINAL_SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;
/** Vowel points and cantillation of Arabic and Hebrew: optional in writing, left out. */
const POINTING = /[\u0591-\u05c7\u064b-\u065f\u0670\u0640]/g;

export interface NameReading {
  /** Canonical tokens (`nameTokens`). */
  tokens: string[];
  /** The first non-Latin script the name is written in ('Latin' when none). */
  script: string;
  kind: ScriptKind;
  /**
   * Tokens in the original script (compatibility forms folded, upper-case, vowel points left out;
   * one per syllable in Chinese and Korean), or null for a name in Latin script.
   */
  original: string[] | null;
}

export function readName(value: string): NameReading {
  const tokens = nameTokens(value);
  if (ASCII.test(value)) return { tokens, script: 'Latin', kind: 'alphabet', original: null };
  const letter = NON_LATIN_LETTER.exec(value);
  if (!letter) return { tokens, script: 'Latin', kind: 'alphabet', original: null };
  const found = SCRIPTS.find(([, , re]) => re.test(letter[0]));
  const [script, kind] = found ? [found[0], found[1]] : ['Other', 'abugida' as const];
  const original = value
    .normalize('NFKC')
    .toUpperCase()
    .replace(POINTING, '')
    .replace(SYLLABIC, (ch) => ` ${ch} `)
    .split(ORIGINAL_SEPARATORS)
    .filter((t) => t.length > 0);
  return { tokens, script, kind, original };
}
