/**
 * Japanese names in kana read in Hepburn romaji as passports and the lists write them: small ya,
 * yu, yo join the syllable before (`じゅん` → `JUN`), the small tsu doubles the next consonant
 * (`きっかわ` → `KIKKAWA`, `っち` → `TCH`), long vowels are written short (`しんぞう` → `SHINZO`,
 * `ゆうこ` → `YUKO`, the mark `ー` left out). Katakana read as hiragana; `・` separates words.
 */

/** Hiragana syllables, from ぁ (U+3041) to ゖ (U+3096); '' for the small kana handled apart. */
const SYLLABLES = (
  'a a i i u u e e o o ka ga ki gi ku gu ke ge ko go sa za shi ji su zu se ze so zo ta da chi ji ' +
  '_ tsu zu te de to do na ni nu ne no ha ba pa hi bi pi fu bu pu he be pe ho bo po ma mi mu me mo ' +
  'ya ya yu yu yo yo ra ri ru re ro wa wa i e o n vu ka ke'
).split(' ');

const SMALL_TSU = 0x3063;
const SMALL_Y = new Map([
  [0x3083, 'a'],
  [0x3085, 'u'],
  [0x3087, 'o'],
]);
/** Small vowels after a consonant make the extended katakana syllables (`ティ`, `ファ`, `ジェ`). */
const SMALL_VOWELS = new Map([
  [0x3041, 'a'],
  [0x3043, 'i'],
  [0x3045, 'u'],
  [0x3047, 'e'],
  [0x3049, 'o'],
]);
const LONG_MARK = 0x30fc;
const MIDDLE_DOT = 0x30fb;

function hiragana(c: number): number {
  return c >= 0x30a1 && c <= 0x30f6 ? c - 0x60 : c;
}

function isKana(c: number): boolean {
  return (c >= 0x3041 && c <= 0x3096) || (c >= 0x30a1 && c <= 0x30fa) || c === LONG_MARK;
}

/** A syllable's consonant before a small ya/yu/yo (`き` → `KY`, `し` → `SH`, `ち` → `CH`, `じ` → `J`). */
function palatal(base: string): string {
  if (base === 'shi' || base === 'chi' || base === 'ji') return base.slice(0, -1);
  return `${base.slice(0, -1)}y`;
}

/** Long vowels written short, as on passports (`OU`, `OO` → `O`; `UU` → `U`). */
function shortenVowels(word: string): string {
  return word.replace(/o[ou]/g, 'o').replace(/uu/g, 'u');
}

/** One word of kana in romaji (upper-case). */
function romanizeWord(word: number[]): string {
  let out = '';
  let double = false;
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c === SMALL_TSU) {
      double = true;
      continue;
    }
    if (c === LONG_MARK) continue;
    let syl = SYLLABLES[c - 0x3041] ?? '';
    const next = i + 1 < word.length ? word[i + 1] : 0;
    const y = SMALL_Y.get(next);
    const v = SMALL_VOWELS.get(next);
    if (y !== undefined && syl.length > 1 && syl.endsWith('i')) {
      syl = palatal(syl) + y;
      i++;
    } else if (v !== undefined && (syl.length > 1 || syl === 'u')) {
      if (syl === 'u') syl = 'w';
      syl = syl.replace(/[aiueo]$/, '') + v;
      i++;
    }
    if (double && syl.length > 0) syl = (syl.startsWith('ch') ? 't' : syl[0]) + syl;
    double = false;
    out += syl;
  }
  return shortenVowels(out).toUpperCase();
}

/** The words of a name written in kana only (`・`, spaces and punctuation between words), or null. */
export function readKana(value: string): string[] | null {
  const words: string[] = [];
  let word: number[] = [];
  const flush = () => {
    if (word.length > 0) words.push(romanizeWord(word));
    word = [];
  };
  for (const ch of value.normalize('NFKC')) {
    const c = ch.charCodeAt(0);
    if (isKana(c)) word.push(hiragana(c));
    else if (c === MIDDLE_DOT || /[\s\p{P}]/u.test(ch)) flush();
    else return null;
  }
  flush();
  const tokens = words.filter((w) => w.length > 0);
  return tokens.length > 0 ? tokens : null;
}
