/**
 * The project's one name matcher (pure, no I/O):
 * - `prepareName(value, {type})` → a prepared name (tokens in the original script and
 *   transliterated, spelling folds, weights, legal form), once per indexed alias and per query;
 * - `nameScore(a, b)` → 0..1, fast enough to verify thousands of candidates per query;
 * - `indexTerms(prepared)` → the normalised, transliterated terms a candidate index should hold
 *   (and look up), so index and scorer see the same tokens; `nameIndexTerms(value)` the same
 *   terms without preparing the name for the scorer (a shard's load);
 * - `prepareParty` / `prepareQuery` / `scoreParty` → a listed party's best name qualified by birth
 *   date, country and party type, with an explanation;
 * - `NAME_THRESHOLD` (0.7), the default threshold of a match.
 * How the score is made: see `score.ts` (names) and `party.ts` (evidence).
 */
export { prepareName, type PreparedName, type PartyType } from './prepare.js';
export { nameScore } from './score.js';
export { indexTerms, nameIndexTerms } from './terms.js';
export {
  NAME_THRESHOLD,
  parseBirthDate,
  prepareParty,
  prepareQuery,
  scoreParty,
  type EvidencePolicy,
  type MatchExplanation,
  type PreparedParty,
} from './party.js';
