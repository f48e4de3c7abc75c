/**
 * Romanization variants of Chinese and Korean names: pinyin, Wade-Giles, Korean Revised and
 * McCune-Reischauer write one syllable several ways (`Xi`/`Hsi`/`Shi`, `Zedong`/`Tse-tung`,
 * `Jeong`/`Jong`/`Chong`, `Gim`/`Kim`). A token that splits entirely into such syllables gets a
 * key in which each syllable is reduced to the classes these systems confuse: unaspirated and
 * aspirated stops (B/P, D/T, G/K), the affricates (J/ZH/CH/Q, Z/C/TS/TZ), the sibilants (X/HS/SH/S),
 * and the vowel spellings (EO/O, EU/U, UNG/ONG, IEH/IE, IH/I, EE/I, OO/U). A general syllable
 * mapping from the structure of these systems, not a table of names.
 */

import { recentMemo } from '../normalize/recent-memo.js';

/** Initials, longest first, → their class. */
const INITIALS: [string, string][] = [
  ['TTS', 'Z'],
  ['TCH', 'C'],
  ['ZH', 'C'],
  ['CH', 'C'],
  ['JJ', 'C'],
  ['SH', 'S'],
  ['HS', 'S'],
  ['SS', 'S'],
  ['SZ', 'S'],
  ['TS', 'Z'],
  ['TZ', 'Z'],
  ['DZ', 'Z'],
  ['KK', 'K'],
  ['TT', 'T'],
  ['PP', 'P'],
  ['NG', 'N'],
  ['B', 'P'],
  ['P', 'P'],
  ['D', 'T'],
  ['T', 'T'],
  ['G', 'K'],
  ['K', 'K'],
  ['J', 'C'],
  ['Q', 'C'],
  ['X', 'S'],
  ['S', 'S'],
  ['Z', 'Z'],
  ['C', 'Z'],
  ['M', 'M'],
  ['N', 'N'],
  ['L', 'L'],
  ['R', 'L'],
  ['F', 'F'],
  ['H', 'H'],
  ['Y', 'Y'],
  ['W', 'W'],
  ['', ''],
];

/** Vowel spellings, longest first, → their class. */
const VOWELS: [string, string][] = [
  ['YEO', 'YO'],
  ['IEH', 'IE'],
  ['UEH', 'UE'],
  ['UEI', 'UI'],
  ['YAE', 'YE'],
  ['IAO', 'IAO'],
  ['UAI', 'UAI'],
  ['WAE', 'WE'],
  ['EO', 'O'],
  ['EU', 'U'],
  ['EE', 'I'],
  ['OO', 'U'],
  ['AE', 'E'],
  ['OE', 'E'],
  ['UO', 'O'],
  ['IH', 'I'],
  ['AI', 'AI'],
  ['EI', 'EI'],
  ['AO', 'AO'],
  ['OU', 'OU'],
  ['IA', 'IA'],
  ['IE', 'IE'],
  ['IU', 'IU'],
  ['UA', 'UA'],
  ['UI', 'UI'],
  ['UE', 'UE'],
  ['YA', 'YA'],
  ['YE', 'YE'],
  ['YO', 'YO'],
  ['YU', 'YU'],
  ['WA', 'WA'],
  ['WO', 'WO'],
  ['WE', 'WE'],
  ['WI', 'WI'],
  ['ER', 'ER'],
  ['A', 'A'],
  ['E', 'E'],
  ['I', 'I'],
  ['O', 'O'],
  ['U', 'U'],
  ['V', 'U'],
];

/** Codas, longest first, → their class; a vowel before NG written U is O (`TUNG`/`DONG`). */
const CODAS: [string, string][] = [
  ['RH', 'R'],
  ['NG', 'NG'],
  ['N', 'N'],
  ['M', 'M'],
  ['L', 'L'],
  ['K', 'K'],
  ['G', 'K'],
  ['P', 'P'],
  ['B', 'P'],
  ['T', 'T'],
  ['', ''],
];

/** Chinese and Korean given names have one or two syllables, written as one token at most. */
const MAX_SYLLABLES = 2;

/** The entries of a table that can start at a character code (< 128; 128: any other, or the end): the empty one, and those spelled from it. */
function byFirstCode(table: [string, string][]): [string, string][][] {
  return Array.from({ length: 129 }, (_, c) => table.filter(([s]) => s === '' || (c < 128 && s.charCodeAt(0) === c)));
}

const INITIALS_AT = byFirstCode(INITIALS);
const VOWELS_AT = byFirstCode(VOWELS);
const CODAS_AT = byFirstCode(CODAS);

function codeAt(t: string, at: number): number {
  const c = t.charCodeAt(at);
  return c < 128 ? c : 128;
}

function parse(t: string, at: number, count: number, out: string[]): boolean {
  if (at === t.length) return count > 0;
  if (count === MAX_SYLLABLES) return false;
  // Tried in the tables' order (longest first), only those spelled from the next character.
  for (const [initial, ic] of INITIALS_AT[codeAt(t, at)]) {
    if (!t.startsWith(initial, at)) continue;
    const v0 = at + initial.length;
    for (const [vowel, vc] of VOWELS_AT[codeAt(t, v0)]) {
      if (!t.startsWith(vowel, v0)) continue;
      const c0 = v0 + vowel.length;
      for (const [coda, cc] of CODAS_AT[codeAt(t, c0)]) {
        if (!t.startsWith(coda, c0)) continue;
        const key = ic + (cc === 'NG' && vc === 'U' ? 'O' : vc) + cc;
        out.push(key);
        if (parse(t, c0 + coda.length, count + 1, out)) return true;
        out.pop();
      }
    }
  }
  return false;
}

/** The romanization key of a token (see `romanizationKey`), computed each time. */
export function syllableKey(token: string): string | null {
  if (token.length > 12) return null;
  const out: string[] = [];
  return parse(token, 0, 0, out) ? out.join('') : null;
}

/**
 * The romanization key of a token that splits into one or two Chinese or Korean syllables, or
 * null: `TSETUNG` and `ZEDONG` both give `ZETONG`, `JEONG` and `CHONG` give `CONG`. Tokens repeat
 * across a list's names (the parse tries many spellings): the last keys are remembered.
 */
export const romanizationKey = recentMemo(syllableKey, 16384, 12);
