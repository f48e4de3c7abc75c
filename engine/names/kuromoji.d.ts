/** The part of kuromoji 0.1.2 (no published types) that engine/names/kanji.ts uses. */
declare module 'kuromoji' {
  export interface IpadicFeatures {
    surface_form: string;
    word_type: 'KNOWN' | 'UNKNOWN';
    pos: string;
    pos_detail_1: string;
    pos_detail_2: string;
    pos_detail_3: string;
    /** In katakana; absent for a word the dictionary does not know. */
    reading?: string;
  }
  export interface Tokenizer {
    tokenize(text: string): IpadicFeatures[];
  }
  export interface TokenizerBuilder {
    build(callback: (err: Error | null, tokenizer: Tokenizer) => void): void;
  }
  const kuromoji: { builder(option: { dicPath: string }): TokenizerBuilder };
  export default kuromoji;
}
