/**
 * Japanese names written in kanji, read as the lists romanize them: kuromoji (IPADIC) splits the
 * name into words and gives each its reading in katakana (`山田太郎` → `ヤマダ` `タロウ`), which
 * `readKana` writes in passport Hepburn (`YAMADA TARO`). Chinese characters alone do not say
 * whether a name is Japanese or Chinese, so this reading is a second one beside any-ascii's
 * Mandarin (`prepareName` keeps both and the score takes the better).
 *
 * The dictionary takes seconds and hundreds of MB to load, so it is loaded only on demand
 * (`loadKanjiReader`, once per thread); until it is, names are read in Mandarin only.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import kuromoji, { type Tokenizer } from 'kuromoji';
import { readKana } from './kana.js';

const KANJI = /\p{Script=Han}/u;
/** Kanji and kana: what kuromoji reads; anything else in the name leaves it unread. */
const JAPANESE_WORD = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+$/u;
const SEPARATORS = /[\s\p{P}・]+/u;

let tokenizer: Tokenizer | null = null;
let loading: Promise<boolean> | null = null;

/** The name holds a Chinese character (kanji, hanzi or hanja). */
export function holdsKanji(value: string): boolean {
  return KANJI.test(value);
}

/** Whether kanji are read in Japanese now (the dictionary is loaded). */
export function kanjiReaderReady(): boolean {
  return tokenizer !== null;
}

/**
 * Loads the dictionary once; resolves true when kanji can be read, false when the dictionary
 * could not be loaded (names are then read in Mandarin only).
 */
export function loadKanjiReader(): Promise<boolean> {
  loading ??= new Promise((resolve) => {
    const dicPath = join(dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
    kuromoji.builder({ dicPath }).build((err, built) => {
      if (!err) tokenizer = built;
      resolve(!err);
    });
  });
  return loading;
}

/** A person's name (family or given) in the dictionary: it starts a word of its own. */
function isPersonName(pos: string, detail1: string, detail2: string): boolean {
  return pos === '名詞' && detail1 === '固有名詞' && detail2 === '人名';
}

/**
 * The name's Japanese reading in katakana, words separated by `・`, or null: the reader is not
 * loaded, the name holds no kanji, holds something other than kanji and kana, or a word the
 * dictionary cannot read. Words are the parts written apart; within a part, each family or given
 * name the dictionary knows starts a word and other pieces join the word before
 * (`由美` `子` → `ユミコ`).
 */
export function kanjiReading(value: string): string | null {
  if (tokenizer === null || !holdsKanji(value)) return null;
  const words: string[] = [];
  for (const part of value.normalize('NFKC').split(SEPARATORS)) {
    if (part.length === 0) continue;
    if (!JAPANESE_WORD.test(part)) return null;
    let word = '';
    for (const t of tokenizer.tokenize(part)) {
      if (t.word_type !== 'KNOWN' || !t.reading || t.reading === '*') return null;
      if (word.length > 0 && isPersonName(t.pos, t.pos_detail_1, t.pos_detail_2)) {
        words.push(word);
        word = '';
      }
      word += t.reading;
    }
    if (word.length > 0) words.push(word);
  }
  return words.length > 0 ? words.join('・') : null;
}

/** The Japanese reading in Hepburn (`山田太郎` → `YAMADA TARO`), or null (see `kanjiReading`). */
export function readKanji(value: string): string[] | null {
  const reading = kanjiReading(value);
  return reading === null ? null : readKana(reading);
}
