/**
 * Screening of one value against one entity record, without an index: does a screening of value V
 * of kind K match record R, and how. The exact rules are the engine's own table (probes.ts) and
 * the fuzzy one its government-ID similarity, so a monitored value is reported for exactly the
 * listings a screening of it would return.
 *
 * `screenProbes` lists the exact-index probes a screening makes — (entity type, canonical key,
 * match kind) — so a caller holding many values can index them by those keys and confirm each
 * candidate with `matchOne`. Fuzzy government IDs have no key to probe: they need a scan.
 */
import { ENTITY_TYPES, type EntityRecord, type EntityType, type MatchKind } from './model.js';
import { canonicalKey, normalizeGovernmentId } from './normalize/index.js';
import { kindRule, type ScreenKind } from './kinds.js';
import { ProbeList } from './probes.js';
import { FUZZY_ID_THRESHOLD, idSimilarity } from './similarity.js';

export interface Probe {
  entity_type: EntityType;
  key: string;
  match: MatchKind;
}

export interface OneMatch {
  match: MatchKind;
  /** 1 for rule-based matches, the ID similarity for `fuzzy`. */
  similarity: number;
}

/**
 * The exact-index probes of a screening of `value` (probes.ts), in the engine's order, with the
 * lower-case probe of a base58 address a generation holding addresses of unknown case makes;
 * empty when it cannot be normalized.
 */
export function screenProbes(kind: ScreenKind, value: string): Probe[] {
  const probes = new ProbeList().screening(kind, value, true);
  return Array.from({ length: probes.length }, (_, i): Probe => ({
    entity_type: ENTITY_TYPES[probes.types[i]],
    key: probes.keys[i],
    match: probes.matches[i],
  }));
}

/** How a screening of `value` (of `kind`) matches `record`, or null when it does not. */
export function matchOne(
  kind: ScreenKind,
  value: string,
  record: Pick<EntityRecord, 'entity_type' | 'value'>,
): OneMatch | null {
  const key = canonicalKey(record.entity_type, record.value);
  if (key === null) return null;
  for (const p of screenProbes(kind, value)) {
    if (p.entity_type === record.entity_type && p.key === key) return { match: p.match, similarity: 1 };
  }
  if (kindRule(kind).fuzzyIds && record.entity_type === 'government_id') {
    const sim = idSimilarity(normalizeGovernmentId(value), key);
    if (sim >= FUZZY_ID_THRESHOLD) return { match: 'fuzzy', similarity: sim };
  }
  return null;
}
