/**
 * Person and organisation names → canonical tokens: Unicode compatibility forms folded, upper-case,
 * Cyrillic/Greek/Arabic transliterated to Latin, accents stripped, `LAST, First` reordered,
 * leading honorifics dropped and spelled-out legal forms abbreviated (`LIMITED` → `LTD`), so that
 * the same name written differently gets the same exact key.
 */

/** Russian-style romanization (close to ICAO 9303 / BGN), plus the Ukrainian and Serbian letters. */
const CYRILLIC: Record<string, string> = {
  А: 'A', Б: 'B', В: 'V', Г: 'G', Д: 'D', Е: 'E', Ё: 'E', Ж: 'ZH', З: 'Z', И: 'I', Й: 'Y', К: 'K', Л: 'L',
  М: 'M', Н: 'N', О: 'O', П: 'P', Р: 'R', С: 'S', Т: 'T', У: 'U', Ф: 'F', Х: 'KH', Ц: 'TS', Ч: 'CH',
  Ш: 'SH', Щ: 'SHCH', Ъ: '', Ы: 'Y', Ь: '', Э: 'E', Ю: 'YU', Я: 'YA', Є: 'YE', І: 'I', Ї: 'YI', Ґ: 'G',
  Ў: 'U', Ђ: 'DJ', Ј: 'J', Љ: 'LJ', Њ: 'NJ', Ћ: 'C', Џ: 'DZ', Ѓ: 'GJ', Ќ: 'KJ', Ѕ: 'DZ', Ѣ: 'E', Ѳ: 'F',
  Ѵ: 'I', Ӏ: '', Қ: 'K', Ғ: 'G', Ң: 'N', Ү: 'U', Ұ: 'U', Һ: 'H', Ә: 'A', Ө: 'O', Ҳ: 'H', Ҷ: 'J',
};

/** ELOT 743 single letters (upper-case, accented capitals included); digraphs are handled first. */
const GREEK: Record<string, string> = {
  Α: 'A', Β: 'V', Γ: 'G', Δ: 'D', Ε: 'E', Ζ: 'Z', Η: 'I', Θ: 'TH', Ι: 'I', Κ: 'K', Λ: 'L', Μ: 'M', Ν: 'N',
  Ξ: 'X', Ο: 'O', Π: 'P', Ρ: 'R', Σ: 'S', Τ: 'T', Υ: 'Y', Φ: 'F', Χ: 'CH', Ψ: 'PS', Ω: 'O',
  Ά: 'A', Έ: 'E', Ή: 'I', Ί: 'I', Ό: 'O', Ύ: 'Y', Ώ: 'O', Ϊ: 'I', Ϋ: 'Y',
};

const GREEK_DIGRAPHS: [RegExp, string][] = [
  [/ΟΥ|ΟΎ/g, 'OU'],
  [/ΑΥ|ΑΎ/g, 'AV'],
  [/ΕΥ|ΕΎ/g, 'EV'],
  [/ΓΓ/g, 'NG'],
  [/(?<!\p{L})ΜΠ/gu, 'B'],
  [/(?<!\p{L})ΝΤ/gu, 'D'],
  [/(?<!\p{L})ΓΚ/gu, 'G'],
];

/**
 * Arabic and Persian consonants. Short vowels are not written (and their marks are dropped), so
 * the similarity's consonant skeleton is what relates `محمد` to `MOHAMMED`.
 */
const ARABIC: Record<string, string> = {
  ا: 'A', أ: 'A', إ: 'I', آ: 'A', ٱ: 'A', ب: 'B', ت: 'T', ث: 'TH', ج: 'J', ح: 'H', خ: 'KH', د: 'D', ذ: 'DH',
  ر: 'R', ز: 'Z', س: 'S', ش: 'SH', ص: 'S', ض: 'D', ط: 'T', ظ: 'Z', ع: 'A', غ: 'GH', ف: 'F', ق: 'Q', ك: 'K',
  ل: 'L', م: 'M', ن: 'N', ه: 'H', ة: 'A', ء: '', ؤ: 'U', ئ: 'I', ى: 'A', پ: 'P', چ: 'CH', ژ: 'ZH', گ: 'G',
  ک: 'K', ڤ: 'V', ۀ: 'H', ہ: 'H', ھ: 'H', ـ: '',
};
/** Weak letters: consonants at the start of a word, long vowels inside it. */
const ARABIC_WEAK: Record<string, [string, string]> = { و: ['W', 'U'], ي: ['Y', 'I'], ی: ['Y', 'I'], ې: ['Y', 'E'] };

/** Latin letters that do not decompose into a base letter and a mark. */
const LATIN_EXTRA: Record<string, string> = {
  Ø: 'O', Đ: 'D', Ł: 'L', Æ: 'AE', Œ: 'OE', Þ: 'TH', Ð: 'D', Ħ: 'H', ẞ: 'SS', Ŋ: 'NG', Ŧ: 'T', ƒ: 'F',
  Ə: 'E', ı: 'I', ß: 'SS',
};

function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && /\p{L}/u.test(ch);
}

function transliterate(upper: string): string {
  let s = upper;
  if (/[\u0370-\u03ff]/.test(s)) for (const [re, to] of GREEK_DIGRAPHS) s = s.replace(re, to);
  let out = '';
  let prev: string | undefined;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    let mapped: string | undefined;
    if (c >= 0x0400 && c <= 0x04ff) mapped = CYRILLIC[ch];
    else if (c >= 0x0370 && c <= 0x03ff) mapped = GREEK[ch];
    else if (c >= 0x0600 && c <= 0x06ff) {
      const weak = ARABIC_WEAK[ch];
      if (weak) mapped = isLetter(prev) && !/[\u064b-\u065f\u0670]/.test(prev!) ? weak[1] : weak[0];
      else if (c >= 0x0660 && c <= 0x0669) mapped = String(c - 0x0660);
      else if (c >= 0x06f0 && c <= 0x06f9) mapped = String(c - 0x06f0);
      else mapped = ARABIC[ch];
    } else mapped = LATIN_EXTRA[ch];
    out += mapped ?? ch;
    prev = ch;
  }
  return out;
}

const HONORIFICS = new Set([
  'MR', 'MRS', 'MS', 'MISS', 'MX', 'DR', 'PROF', 'PROFESSOR', 'SIR', 'DAME', 'LORD', 'LADY', 'REV', 'REVEREND',
  'HON', 'HONORABLE', 'HONOURABLE', 'MME', 'MLLE', 'HERR', 'FRAU', 'MESSRS', 'DOCTOR', 'MADAME', 'MONSIEUR',
]);

/** Generational suffixes: a trailing `, Jr.` is not the given-name part of `LAST, First`. */
const GENERATIONAL = new Set(['JR', 'SR', 'II', 'III', 'IV', 'V', 'JNR', 'SNR']);

/** Legal-form tokens, canonical abbreviated form. */
export const LEGAL_FORMS = new Set([
  'LLC', 'LTD', 'INC', 'CORP', 'CO', 'PLC', 'LLP', 'LP', 'GMBH', 'AG', 'SA', 'SAS', 'SARL', 'SRL', 'SPA', 'BV',
  'NV', 'AB', 'AS', 'ASA', 'OY', 'KG', 'KFT', 'SP', 'ZOO', 'PTY', 'PVT', 'PTE', 'BHD', 'SDN', 'JSC', 'OJSC',
  'CJSC', 'PJSC', 'OAO', 'ZAO', 'PAO', 'AO', 'OOO', 'TOO', 'TOV', 'FZE', 'FZCO', 'FZC', 'FZ', 'WLL', 'EST',
  'SAL', 'SAE', 'DOO', 'AD', 'EOOD', 'OU', 'UAB', 'SIA', 'KK', 'SE', 'SC', 'SCS', 'SNC', 'LTDA', 'CIA', 'SL',
]);

/** Spelled-out legal forms (and a few abbreviations of generic words) → canonical tokens. */
const PHRASES: [string[], string[]][] = (
  [
    ['LIMITED LIABILITY COMPANY', 'LLC'],
    ['LIMITED LIABILITY CO', 'LLC'],
    ['LIMITED LIABILITY PARTNERSHIP', 'LLP'],
    ['LIMITED PARTNERSHIP', 'LP'],
    ['PUBLIC LIMITED COMPANY', 'PLC'],
    ['PUBLIC JOINT STOCK COMPANY', 'PJSC'],
    ['OPEN JOINT STOCK COMPANY', 'OJSC'],
    ['CLOSED JOINT STOCK COMPANY', 'CJSC'],
    ['JOINT STOCK COMPANY', 'JSC'],
    ['JOINT STOCK CO', 'JSC'],
    ['GESELLSCHAFT MIT BESCHRANKTER HAFTUNG', 'GMBH'],
    ['AKTIENGESELLSCHAFT', 'AG'],
    ['SOCIETE ANONYME', 'SA'],
    ['SOCIEDAD ANONIMA', 'SA'],
    ['SOCIETE A RESPONSABILITE LIMITEE', 'SARL'],
    ['SOCIETA PER AZIONI', 'SPA'],
    ['SOCIETA A RESPONSABILITA LIMITATA', 'SRL'],
    ['BESLOTEN VENNOOTSCHAP', 'BV'],
    ['NAAMLOZE VENNOOTSCHAP', 'NV'],
    ['OBSHCHESTVO S OGRANICHENNOY OTVETSTVENNOSTYU', 'OOO'],
    ['PUBLICHNOE AKTSIONERNOE OBSHCHESTVO', 'PAO'],
    ['OTKRYTOE AKTSIONERNOE OBSHCHESTVO', 'OAO'],
    ['ZAKRYTOE AKTSIONERNOE OBSHCHESTVO', 'ZAO'],
    ['AKTSIONERNOE OBSHCHESTVO', 'AO'],
    ['PRIVATE LIMITED', 'PVT LTD'],
    ['PROPRIETARY LIMITED', 'PTY LTD'],
    ['SENDIRIAN BERHAD', 'SDN BHD'],
    ['LIMITED', 'LTD'],
    ['CORPORATION', 'CORP'],
    ['INCORPORATED', 'INC'],
    ['COMPANY', 'CO'],
    ['INTL', 'INTERNATIONAL'],
  ] as const
).map(([from, to]) => [from.split(' '), to.split(' ')]);
const PHRASE_STARTS = new Set(PHRASES.map(([from]) => from[0]));

function canonicalPhrases(tokens: string[]): string[] {
  if (!tokens.some((t) => PHRASE_STARTS.has(t))) return tokens;
  const out: string[] = [];
  outer: for (let i = 0; i < tokens.length; ) {
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
const APOSTROPHES = /['’ʼʻ`´‘]/g;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
/** `J.P.` and `L.L.C.`: dotted single letters are one token. */
const DOTTED_INITIALS = /(?<![\p{L}\p{N}])(?:\p{L}\.){2,}/gu;

/** Tokens of one comma-separated part (after folding, before honorifics and phrases). */
function partTokens(part: string): string[] {
  return part.split(SEPARATORS).filter((t) => t.length > 0);
}

const ASCII = /^[\x00-\x7f]*$/;

function foldScript(value: string): string {
  // Unicode normalization leaves ASCII as it is and it has no marks to strip.
  if (ASCII.test(value)) return value.toUpperCase();
  let s = value.normalize('NFKC').toUpperCase();
  if (/[\u0370-\u06ff]/.test(s)) s = transliterate(s);
  else if (/[^\x00-\x7f]/.test(s)) s = s.replace(/[ØĐŁÆŒÞÐĦẞŊŦƒƏıß]/g, (ch) => LATIN_EXTRA[ch] ?? ch);
  return s.normalize('NFKD').replace(/\p{M}/gu, '');
}

function isSuffixPart(tokens: string[]): boolean {
  return tokens.length > 0 && tokens.every((t) => GENERATIONAL.has(t) || LEGAL_FORMS.has(t) || t === 'THE');
}

export function nameTokens(value: string): string[] {
  let tokens: string[];
  if (ASCII_SIMPLE.test(value)) {
    tokens = value
      .toUpperCase()
      .split(' ')
      .filter((t) => t.length > 0);
  } else {
    // `LAST, First` in plain ASCII needs none of the Unicode folding: its parts split on spaces.
    const parts = ASCII_COMMA.test(value)
      ? value
          .toUpperCase()
          .split(',')
          .map((p) => p.split(' ').filter((t) => t.length > 0))
          .filter((p) => p.length > 0)
      : foldScript(value)
          .replace(DOTTED_INITIALS, (m) => m.replace(/\./g, ''))
          .replace(APOSTROPHES, '')
          .replace(/&/g, ' AND ')
          .split(',')
          .map(partTokens)
          .filter((p) => p.length > 0);
    const tail: string[] = [];
    while (parts.length > 1 && isSuffixPart(parts[parts.length - 1])) tail.unshift(...parts.pop()!);
    if (parts.length === 2 && !parts[1].some((t) => LEGAL_FORMS.has(t))) tokens = [...parts[1], ...parts[0], ...tail];
    else tokens = [...parts.flat(), ...tail];
  }
  let start = 0;
  while (start < tokens.length - 1 && HONORIFICS.has(tokens[start])) start++;
  return canonicalPhrases(start > 0 ? tokens.slice(start) : tokens);
}

/** Canonical form of a name: its tokens joined by single spaces ('' when it has none). */
export function normalizeName(value: string): string {
  return nameTokens(value).join(' ');
}
