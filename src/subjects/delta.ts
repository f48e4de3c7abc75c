import type { EntityRecord, EntityType, MatchKind } from '../../engine/model.js';
import { matchOne, screenProbes } from '../../engine/match-one.js';
import {
  nameIndexTerms,
  prepareParty,
  prepareQuery,
  scoreParty,
  type MatchExplanation,
  type PartyType,
  type PreparedParty,
} from '../../engine/names/index.js';
import type { PreparedQuery } from '../../engine/names/party.js';
import { canonicalKey } from '../../engine/normalize/index.js';
import type { KindName } from '../../engine/kinds.js';
import type { ListChange } from '../../loaders/diff.js';
import type { SubjectRecord } from './model.js';

/**
 * The small index of what one list version added, changed or relisted (issue #39, "Watching"):
 * the books stream through it, so its size follows the change, not the books (docs/monitoring.md
 * measures it against an index of the books).
 *
 * - Parties: a `party` record with its names, birth dates, countries and type; the names of a
 *   party whose `party` record did not change (a new alias) or of no party (an operator list's
 *   `name` rows) as a party of those names alone. Candidates come from the same terms the engine's
 *   name index holds (`nameIndexTerms`), each confirmed by `scoreParty` as a screening would.
 * - Values and identifiers: the changed entities' canonical keys, probed exactly as a screening
 *   of the subject's value probes (`screenProbes`), each confirmed by `matchOne`.
 */

/** A subject as the delta reads it. */
export type DeltaSubject = Pick<
  SubjectRecord,
  'external_id' | 'type' | 'names' | 'birth_date' | 'countries' | 'identifiers' | 'values'
>;

export interface DeltaHit {
  /** The subject's name or value that matched. */
  screened: string;
  /** The changed record: the party record, a lone name, or an exact entity. */
  record: EntityRecord;
  /** The party's name that scored best, or the listed value. */
  matched: string;
  match: MatchKind;
  score: number;
  explanation: MatchExplanation | null;
}

interface IndexedParty {
  record: EntityRecord;
  prepared: PreparedParty;
}

const SUBJECT_KINDS: readonly [keyof DeltaSubject['values'], KindName][] = [
  ['crypto', 'crypto'],
  ['email', 'email'],
  ['website', 'website'],
];

const EXACT_TYPES: ReadonlySet<EntityType> = new Set([
  'crypto_address',
  'email',
  'email_domain',
  'website',
  'government_id',
]);

const NONE: readonly number[] = [];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Shorter tokens are not compared within one edit: too many short words are one edit apart. */
const MIN_EDITED_TOKEN = 4;

/** A name's Latin tokens of MIN_EDITED_TOKEN letters or more, upper case, without diacritics. */
function latinTokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((t) => t.length >= MIN_EDITED_TOKEN);
}

/**
 * A token and its one-deletion variants: two tokens within one edit (a substitution, an insertion
 * or a deletion) share at least one of these keys (symmetric deletion).
 */
function tokenKeys(token: string): string[] {
  const keys = [token];
  for (let i = 0; i < token.length; i++) keys.push(token.slice(0, i) + token.slice(i + 1));
  return keys;
}

function partyOf(r: EntityRecord): Parameters<typeof prepareParty>[0] {
  const m = r.metadata;
  const names = [{ value: String(m.name ?? r.value), weak: false }];
  for (const a of Array.isArray(m.aliases) ? (m.aliases as { name?: unknown; weak?: unknown }[]) : [])
    if (typeof a?.name === 'string' && a.name) names.push({ value: a.name, weak: a.weak === true });
  const type = m.party_type;
  return {
    names,
    birth_dates: strings(m.birth_dates),
    countries: strings(m.countries),
    party_type: type === 'person' || type === 'organization' || type === 'vessel' || type === 'aircraft' ? type : null,
  };
}

export class DeltaIndex {
  private readonly parties: IndexedParty[] = [];
  private readonly byTerm = new Map<string, number[]>();
  /** `entity_type \0 key` → the changed exact records. */
  private readonly byKey = new Map<string, EntityRecord[]>();
  private readonly ids: EntityRecord[] = [];
  /** A party name's tokens and their one-deletion variants → the parties (see `tokenKeys`). */
  private readonly byToken = new Map<string, number[]>();
  /** Scratch: candidate party → terms it shares with the name being matched. */
  private readonly shared = new Map<number, number>();
  /** Scratch: candidate party → tokens of the name being matched within one edit of its tokens. */
  private readonly near = new Map<number, number>();

  /** `changes`: one list version's changes; only `listed` and `relisted` ones are indexed. */
  constructor(changes: readonly ListChange[]) {
    const partiesChanged = new Set<string>();
    for (const c of changes)
      if (c.kind !== 'delisted' && c.record.entity_type === 'party') partiesChanged.add(c.record.value);
    for (const c of changes) {
      if (c.kind === 'delisted') continue;
      const r = c.record;
      if (r.entity_type === 'party') this.addParty(r, prepareParty(partyOf(r)));
      else if (r.entity_type === 'name') {
        // The party's record is indexed whole when it changed too.
        const partyId = r.metadata.party_id;
        if (typeof partyId === 'string' && partiesChanged.has(partyId)) continue;
        this.addParty(r, prepareParty({ names: [{ value: r.value, weak: false }] }));
      } else if (EXACT_TYPES.has(r.entity_type)) {
        const key = canonicalKey(r.entity_type, r.value);
        if (key === null) continue;
        const k = `${r.entity_type}\u0000${key}`;
        const list = this.byKey.get(k);
        if (list) list.push(r);
        else this.byKey.set(k, [r]);
        if (r.entity_type === 'government_id') this.ids.push(r);
      }
    }
  }

  get size(): number {
    return this.parties.length + this.byKey.size;
  }

  /** Whether the change holds values or identifiers: a subject's are read only then. */
  get hasValues(): boolean {
    return this.byKey.size > 0;
  }

  private addParty(record: EntityRecord, prepared: PreparedParty): void {
    const n = this.parties.push({ record, prepared }) - 1;
    const terms = new Set<string>();
    for (const name of prepared.names) for (const t of nameIndexTerms(name.value, prepared.party_type)) terms.add(t);
    for (const t of terms) {
      const list = this.byTerm.get(t);
      if (list) list.push(n);
      else this.byTerm.set(t, [n]);
    }
    const keys = new Set<string>();
    for (const name of prepared.names)
      for (const t of latinTokens(name.value)) for (const k of tokenKeys(t)) keys.add(k);
    for (const k of keys) {
      const list = this.byToken.get(k);
      if (list) list.push(n);
      else this.byToken.set(k, [n]);
    }
  }

  /** The changed records `subject` matches at `threshold` (names) or exactly (values, identifiers). */
  match(subject: DeltaSubject, threshold: number): DeltaHit[] {
    const hits: DeltaHit[] = [];
    if (this.parties.length > 0) this.matchNames(subject, threshold, hits);
    if (this.byKey.size > 0) this.matchValues(subject, hits);
    return hits;
  }

  private matchNames(subject: DeltaSubject, threshold: number, hits: DeltaHit[]): void {
    const type: PartyType | null = subject.type === 'unknown' ? null : subject.type;
    // A party is reported once, for the subject's name that scores best.
    const best = new Map<number, DeltaHit>();
    for (const name of subject.names) {
      const terms = nameIndexTerms(name, type);
      const shared = this.shared;
      shared.clear();
      for (const t of terms) for (const n of this.byTerm.get(t) ?? NONE) shared.set(n, (shared.get(n) ?? 0) + 1);
      if (shared.size === 0) continue;
      const near = this.nearTokens(name);
      // A party sharing one term of several (a first name, a two-letter skeleton) scores far below
      // any threshold: scoring it would cost a name comparison per subject for nothing. Unless two
      // of the name's tokens are each within one edit of the party's ("ABDUR REHMAN" and "Abdul
      // Rahman" share only the skeleton RHMN, and score 0.77).
      const needed = Math.min(2, terms.length);
      let query: PreparedQuery | null = null;
      for (const [n, count] of shared) {
        if (count < needed && (near.get(n) ?? 0) < 2) continue;
        query ??= prepareQuery({ name, birth_date: subject.birth_date, party_type: type });
        const party = this.parties[n];
        // The subject's country the party is known in, if any, is the evidence a screening would weigh.
        query.country = subject.countries.find((c) => party.prepared.countries.has(c)) ?? subject.countries[0] ?? null;
        const m = scoreParty(query, party.prepared);
        if (m.score <= 0 || m.score < threshold) continue;
        const prior = best.get(n);
        if (prior && prior.score >= m.score) continue;
        best.set(n, {
          screened: name,
          record: party.record,
          matched: m.name ?? party.record.value,
          match: 'fuzzy',
          score: m.score,
          explanation: m.explanation,
        });
      }
    }
    for (const h of best.values()) hits.push(h);
  }

  /** Party → how many of `name`'s tokens are within one edit of one of the party's tokens. */
  private nearTokens(name: string): Map<number, number> {
    const near = this.near;
    near.clear();
    const seen = new Set<number>();
    for (const token of latinTokens(name)) {
      seen.clear();
      for (const k of tokenKeys(token)) for (const n of this.byToken.get(k) ?? NONE) seen.add(n);
      for (const n of seen) near.set(n, (near.get(n) ?? 0) + 1);
    }
    return near;
  }

  private matchValues(subject: DeltaSubject, hits: DeltaHit[]): void {
    const seen = new Set<EntityRecord>();
    const probe = (kind: KindName, value: string) => {
      for (const p of screenProbes(kind, value)) {
        for (const r of this.byKey.get(`${p.entity_type}\u0000${p.key}`) ?? []) {
          if (seen.has(r)) continue;
          seen.add(r);
          hits.push({ screened: value, record: r, matched: r.value, match: p.match, score: 1, explanation: null });
        }
      }
    };
    for (const [field, kind] of SUBJECT_KINDS) for (const v of subject.values[field]) probe(kind, v);
    for (const id of subject.identifiers) {
      probe('id', id.value);
      // Fuzzy identifiers (one edit) are compared one by one: a version changes few.
      for (const r of this.ids) {
        if (seen.has(r)) continue;
        const m = matchOne('id', id.value, r);
        if (m === null) continue;
        seen.add(r);
        hits.push({
          screened: id.value,
          record: r,
          matched: r.value,
          match: m.match,
          score: m.similarity,
          explanation: null,
        });
      }
    }
  }
}
