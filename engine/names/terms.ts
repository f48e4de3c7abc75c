/**
 * The terms a candidate index should hold for a prepared name (and look up for a query), so that
 * the index and the scorer see the same tokens: each token that is not a particle, title or
 * initial as transliterated, its spelling fold, its consonant skeleton (vowel spellings and
 * unvocalized scripts meet there), its romanization key (Chinese and Korean variants), the formal
 * name of a nickname, its other spellings (a Korean surname's), and the original-script tokens.
 *
 * `nameIndexTerms(value)` gives the same terms as `indexTerms(prepareName(value))` without
 * preparing the name for the scorer (which a shard does only for the candidates of a query): what
 * a token gives (its traits, fold, skeleton, formal names, romanization key) is worked out once
 * per distinct token and remembered, since tokens repeat across a list's names (`MOHAMMED`, `AL`,
 * `LTD`).
 */
import {
  F_INITIAL,
  F_PARTICLE,
  F_TITLE,
  flagsOf,
  foldToken,
  isVowel,
  MAX_TOKENS,
  otherReadings,
  readNameTokens,
  romanizeTokens,
  tokenFlags,
  tokenTraits,
  type PartyType,
  type PreparedName,
} from './prepare.js';
import { nicknameForms } from './nicknames.js';
import { syllableKey } from './romanization.js';

const SKIP = F_PARTICLE | F_TITLE | F_INITIAL;

const consonants: number[] = [];

function skeleton(folded: string): string {
  consonants.length = 0;
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (!isVowel(c) && (consonants.length === 0 || consonants[consonants.length - 1] !== c)) consonants.push(c);
  }
  return consonants.length >= 2 ? String.fromCharCode.apply(null, consonants) : '';
}

export function indexTerms(p: PreparedName): string[] {
  const terms = new Set<string>();
  const f = p.latin;
  for (let i = 0; i < f.tokens.length; i++) {
    if (flagsOf(f, i) & SKIP) continue;
    terms.add(f.tokens[i]);
    terms.add(f.folded[i]);
    const sk = skeleton(f.folded[i]);
    if (sk) terms.add(sk);
    const key = f.romanized?.[i];
    if (key) terms.add(key);
    for (const formal of nicknameForms(f.tokens[i])) terms.add(formal);
    for (const spelling of f.spellings?.[i] ?? []) terms.add(foldToken(spelling));
  }
  if (p.original) for (const t of p.original.tokens) terms.add(t);
  for (const r of p.readings) for (const t of indexTerms(r)) terms.add(t);
  return [...terms];
}

/** What one distinct Latin token gives the index terms of the names holding it. */
interface TokenTerms {
  token: string;
  traits: number;
  folded: string;
  /** Consonant skeleton of the fold ('' when shorter than two letters). */
  skeleton: string;
  formal: readonly string[];
  /** Romanization key (null: none), computed when a name first needs it. */
  key: string | null | undefined;
}

/**
 * Distinct tokens remembered: the common tokens of the lists fit many times over; the memory
 * starts over when full, so it stays bounded whatever a load holds. An open-addressing table of
 * FNV-1a hashes (at most half full) rather than a `Map`: most of a load's tokens are met once or
 * twice, and a `Map`'s insert and growth cost more than the token's terms.
 */
const TOKENS_REMEMBERED = 1 << 16;

const NO_TERMS: readonly string[] = [];
const remembered: TokenTerms[] = [];
const hashes = new Int32Array(TOKENS_REMEMBERED);
/** Index + 1 in `remembered` by slot (0: empty). */
const slots = new Int32Array(2 * TOKENS_REMEMBERED);

function tokenTerms(token: string): TokenTerms {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  const mask = slots.length - 1;
  let slot = h & mask;
  for (let s = slots[slot]; s !== 0; s = slots[slot]) {
    if (hashes[s - 1] === h && remembered[s - 1].token === token) return remembered[s - 1];
    slot = (slot + 1) & mask;
  }
  const folded = foldToken(token);
  const formal = nicknameForms(token);
  const t: TokenTerms = {
    token,
    traits: tokenTraits(token),
    folded,
    skeleton: skeleton(folded),
    formal: formal.length > 0 ? formal : NO_TERMS,
    key: undefined,
  };
  if (remembered.length === TOKENS_REMEMBERED) {
    remembered.length = 0;
    slots.fill(0);
    slot = h & mask;
  }
  hashes[remembered.length] = h;
  remembered.push(t);
  slots[slot] = remembered.length;
  return t;
}

function keyOf(t: TokenTerms): string | null {
  if (t.key === undefined) t.key = syllableKey(t.token);
  return t.key;
}

const entries: TokenTerms[] = [];
const flags = new Uint8Array(MAX_TOKENS);

function push(out: string[], term: string): void {
  if (!out.includes(term)) out.push(term);
}

/** `indexTerms(prepareName(value, { type }))`, in the same order, from the tokens' remembered terms. */
export function nameIndexTerms(value: string, type: PartyType | null = null): string[] {
  const out: string[] = [];
  const { organization, script } = collectTerms(value, type, out, true);
  // The other readings' terms without their Hangul or kana, as `prepareName` keeps them.
  if (!organization && script === 'Han')
    for (const reading of otherReadings(value)) collectTerms(reading, type, out, false);
  return out;
}

/** Pushes the terms of a name to `out` (its original-script tokens with `withOriginal`). */
function collectTerms(
  value: string,
  type: PartyType | null,
  out: string[],
  withOriginal: boolean,
): { organization: boolean; script: string } {
  const name = readNameTokens(value, type);
  const tokens = name.tokens;
  const n = Math.min(tokens.length, MAX_TOKENS);
  const sparse = name.kind === 'abjad' || name.kind === 'abugida';
  const syllabic = name.kind === 'syllabic';
  for (let i = 0; i < n; i++) {
    const t = tokenTerms(tokens[i]);
    entries[i] = t;
    flags[i] = tokenFlags(t.traits, i, n, name.organization, sparse, syllabic);
  }
  const keys = name.organization
    ? null
    : romanizeTokens(
        (i) => flags[i],
        n,
        syllabic,
        (i) => keyOf(entries[i]),
      );
  for (let i = 0; i < n; i++) {
    if (flags[i] & SKIP) continue;
    const t = entries[i];
    push(out, tokens[i]);
    push(out, t.folded);
    if (t.skeleton) push(out, t.skeleton);
    const key = keys?.[i];
    if (key) push(out, key);
    for (const formal of t.formal) push(out, formal);
    for (const spelling of name.spellings?.[i] ?? []) push(out, foldToken(spelling));
  }
  const original = withOriginal ? name.original : null;
  if (original) for (let i = 0; i < original.length && i < MAX_TOKENS; i++) push(out, original[i]);
  entries.length = 0;
  return { organization: name.organization, script: name.script };
}
