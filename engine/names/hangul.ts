/**
 * Korean names in Hangul read as the UN and OFAC lists spell them: each syllable block split into
 * its initial, medial and final jamo (Unicode's arithmetic of the Hangul syllables block) and
 * written in the McCune-Reischauer style of the DPRK entries without its breves and apostrophes
 * (`김정은` → `KIM JONG UN`, `최룡해` → `CHOE RYONG HAE`), with J for ㅈ as those lists write it.
 * A surname (the first syllable of a word, or a word of one syllable) also carries the spellings
 * South Korean names take in Latin letters (`이` → `LEE`, `YI`, `RI`, `I`; `박` → `PARK`, `PAK`).
 */

const FIRST = 0xac00;
const LAST = 0xd7a3;

/** The 19 initial consonants; ㅇ is silent. */
const INITIALS = ['K', 'KK', 'N', 'T', 'TT', 'R', 'M', 'P', 'PP', 'S', 'SS', '', 'J', 'JJ', 'CH', 'K', 'T', 'P', 'H'];
/** The 21 medial vowels (ㅓ and ㅡ are MR's ŏ and ŭ). */
const MEDIALS = [
  'A',
  'AE',
  'YA',
  'YAE',
  'O',
  'E',
  'YO',
  'YE',
  'O',
  'WA',
  'WAE',
  'OE',
  'YO',
  'U',
  'WO',
  'WE',
  'WI',
  'YU',
  'U',
  'UI',
  'I',
];
/** The 28 finals (none first), as pronounced at the end of a syllable. */
const FINALS = [
  '',
  'K',
  'K',
  'K',
  'N',
  'N',
  'N',
  'T',
  'L',
  'K',
  'M',
  'L',
  'L',
  'L',
  'P',
  'L',
  'M',
  'P',
  'P',
  'T',
  'T',
  'NG',
  'T',
  'T',
  'K',
  'T',
  'P',
  'T',
];

/**
 * Spellings of common surnames besides the systematic one: South Korean customary spellings and
 * Revised Romanization. General knowledge of Korean surnames, not names of the lists.
 */
const SURNAME_SPELLINGS: Record<string, string[]> = {
  김: ['GIM'],
  이: ['LEE', 'YI', 'RI', 'RHEE'],
  리: ['LEE', 'YI', 'I', 'RHEE'],
  박: ['PARK', 'BAK', 'BARK'],
  최: ['CHOI', 'CHOY'],
  정: ['JEONG', 'CHUNG', 'JUNG', 'CHONG'],
  강: ['GANG'],
  조: ['CHO', 'JOE', 'CHOH'],
  윤: ['YOON'],
  장: ['CHANG'],
  임: ['LIM', 'RIM', 'YIM'],
  림: ['LIM', 'IM', 'YIM'],
  오: ['OH'],
  서: ['SEO', 'SUH'],
  신: ['SHIN'],
  권: ['GWON'],
  안: ['AHN'],
  전: ['JEON', 'CHUN', 'CHON'],
  유: ['YOO', 'RYU', 'YOU'],
  류: ['YU', 'YOO', 'RYOO', 'LYU'],
  고: ['GO', 'KOH'],
  문: ['MOON'],
  양: ['RYANG'],
  량: ['YANG'],
  손: ['SOHN'],
  배: ['BAE'],
  백: ['BAEK', 'PAIK', 'BAIK'],
  허: ['HEO', 'HUH'],
  노: ['ROH', 'RO', 'NOH'],
  로: ['NO', 'ROH'],
  주: ['JOO', 'CHU', 'CHOO'],
  구: ['KOO', 'GU'],
  곽: ['GWAK'],
  성: ['SUNG', 'SEONG'],
  우: ['WOO'],
  진: ['CHIN'],
  엄: ['EOM', 'UM', 'OM'],
  천: ['CHEON', 'CHUN'],
  방: ['BANG'],
  공: ['GONG'],
  현: ['HYUN', 'HYEON'],
  변: ['BYUN', 'BYEON'],
  염: ['YEOM', 'YUM', 'RYOM'],
  여: ['YEO', 'RYO'],
  추: ['CHOO'],
  도: ['DO'],
  석: ['SEOK', 'SUK'],
  선: ['SUN', 'SEON'],
  설: ['SEOL', 'SUL'],
  길: ['GIL'],
  연: ['YEON', 'RYON'],
  위: ['WEE'],
  표: ['PYO'],
  명: ['MYUNG', 'MYEONG'],
  기: ['GI'],
  반: ['BAN'],
  금: ['KEUM', 'GEUM', 'KUM'],
  제: ['JE', 'CHE'],
  탁: ['TAK'],
  태: ['TAE', 'THAE'],
};

function isHangulSyllable(c: number): boolean {
  return c >= FIRST && c <= LAST;
}

/** One syllable block in Latin letters (`정` → `JONG`); an initial ㄹ is R, a final one L. */
export function romanizeSyllable(syllable: string): string {
  const s = syllable.charCodeAt(0) - FIRST;
  return INITIALS[Math.floor(s / 588)] + MEDIALS[Math.floor((s % 588) / 28)] + FINALS[s % 28];
}

export interface HangulReading {
  /** One token per syllable. */
  tokens: string[];
  /** Other spellings of each token (surnames), or null. */
  spellings: (readonly string[] | null)[];
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The reading of a name written in Hangul syllables only (words separated by anything else), or
 * null when any letter is not a Hangul syllable.
 */
export function readHangul(value: string): HangulReading | null {
  const tokens: string[] = [];
  const spellings: (readonly string[] | null)[] = [];
  for (const [word] of value.normalize('NFC').matchAll(WORD)) {
    for (let k = 0; k < word.length; k++) {
      if (!isHangulSyllable(word.charCodeAt(k))) return null;
      const syllable = word[k];
      const main = romanizeSyllable(syllable);
      tokens.push(main);
      const other = k === 0 ? SURNAME_SPELLINGS[syllable] : undefined;
      spellings.push(other && other.length > 0 ? other.filter((s) => s !== main) : null);
    }
  }
  return tokens.length > 0 ? { tokens, spellings } : null;
}
