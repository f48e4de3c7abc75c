/**
 * The terms a candidate index should hold for a prepared name (and look up for a query), so that
 * the index and the scorer see the same tokens: each token that is not a particle, title or
 * initial as transliterated, its spelling fold, its consonant skeleton (vowel spellings and
 * unvocalized scripts meet there), its romanization key (Chinese and Korean variants), the formal
 * name of a nickname, and the original-script tokens.
 */
import { F_INITIAL, F_PARTICLE, F_TITLE, isVowel, type PreparedName } from './prepare.js';
import { nicknameForms } from './nicknames.js';

const SKIP = F_PARTICLE | F_TITLE | F_INITIAL;

function skeleton(folded: string): string {
  let s = '';
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (!isVowel(c) && (s.length === 0 || s.charCodeAt(s.length - 1) !== c)) s += folded[i];
  }
  return s.length >= 2 ? s : '';
}

export function indexTerms(p: PreparedName): string[] {
  const terms = new Set<string>();
  const f = p.latin;
  for (let i = 0; i < f.tokens.length; i++) {
    if (f.flags[i] & SKIP) continue;
    terms.add(f.tokens[i]);
    terms.add(f.folded[i]);
    const sk = skeleton(f.folded[i]);
    if (sk) terms.add(sk);
    const key = f.romanized?.[i];
    if (key) terms.add(key);
    for (const formal of nicknameForms(f.tokens[i])) terms.add(formal);
  }
  if (p.original) for (const t of p.original.tokens) terms.add(t);
  return [...terms];
}
