import { explainListed, explainPep } from '../../engine/explain.js';
import type { Hit } from '../../engine/engine.js';
import type { Metadata } from '../../engine/model.js';
import { listedKeyOf, type CustomerReviews } from '../alerts/review-view.js';
import type { PepMatchT } from '../pep/schema.js';

/**
 * What every match of a screening answer carries besides the listed entry: its explanation in
 * words (`metadata.explanation_text`) and, for a customer, the review of its alert
 * (`metadata.review`). Matches are finished here, per kind of answer: exact kinds (envelope),
 * names (partyMatch), PEP candidates.
 */

/**
 * The listed entity's metadata with its sentence, one object per entity and way of matching (and
 * screened value, for a match through a parent domain or a region): answers then share the
 * object, and screen-json.ts serializes it once.
 */
interface Explained {
  listName: string;
  match: string;
  value: string;
  /** The screened value when the sentence names it, else ''. */
  screened: string;
  metadata: ExplainedMetadata;
}
type ExplainedMetadata = Metadata & { explanation_text: string };
const explained = new WeakMap<object, Explained>();

/** Ways of matching whose sentence names the screened value, not only the listed entry. */
const NAMES_SCREENED = new Set(['domain', 'subdomain', 'region']);

export function listedMetadata(h: Hit, listName: string, screened: string): ExplainedMetadata {
  const e = h.entity;
  const key = NAMES_SCREENED.has(h.match) ? screened : '';
  const seen = explained.get(e.metadata);
  if (seen && seen.listName === listName && seen.match === h.match && seen.value === e.value && seen.screened === key)
    return seen.metadata;
  const text = explainListed({
    screened,
    listName,
    entityType: e.entity_type,
    match: h.match,
    value: e.value,
    metadata: e.metadata,
  });
  const metadata = { ...e.metadata, explanation_text: text };
  explained.set(e.metadata, { listName, match: h.match, value: e.value, screened: key, metadata });
  return metadata;
}

/**
 * `m` with `metadata.review` when the customer decided the alert of this match; `m` itself
 * otherwise (no reviews: a payer, an anonymous caller, a customer without decisions).
 */
export function reviewed<M extends { list: string; value: string; metadata: object }>(
  m: M,
  screened: string,
  reviews: CustomerReviews | null | undefined,
): M {
  const review = reviews?.get(screened, m.list, listedKeyOf(m));
  return review ? { ...m, metadata: { ...m.metadata, review } } : m;
}

/**
 * A PEP candidate with its sentence and, for a customer, the review of its alert (an alert of a
 * PEP match is keyed by the candidate's caption: the candidate has no metadata).
 */
export function pepCandidate<C extends PepMatchT>(
  c: C,
  screened: string,
  dataset: string,
  threshold: number,
  reviews: CustomerReviews | null | undefined,
): C {
  const review = reviews?.get(screened, dataset, listedKeyOf({ value: c.caption }));
  return {
    ...c,
    explanation_text: explainPep({ ...c, threshold }),
    ...(review ? { review } : {}),
  };
}
