/**
 * Party-level matching: the best of a listed party's names, then what the birth date, country and
 * party type say about it.
 *
 * - Party type: a query type that differs from the party's (person, organization, vessel,
 *   aircraft) excludes the party (score 0).
 * - Weak names: an alias the source marks weak or low-quality, and a person's name of one token
 *   (`DANIEL`, `NICOLAS`), matches only exactly and only when a birth date or country agrees;
 *   otherwise it is left out.
 * - Birth date (`YYYY`, `YYYY-MM`, `YYYY-MM-DD` against the list's dates, years and `YYYY/YYYY`
 *   ranges): agreement raises the score by a share of what it lacks (a full date 0.3, a month
 *   0.2, a year 0.15); years one apart change nothing; a clear conflict (different dates at the
 *   precision both have, years more than one apart) multiplies it by 0.6, below the threshold.
 * - Country (ISO code or name, against the party's nationalities and countries): agreement raises
 *   the score by 0.15 of what it lacks; a country not among the party's is left to the policy
 *   (sanctions: no change, people move and lists are incomplete; PEP screening lowers it).
 */
import { normalizeCountry } from '../normalize/country.js';
import { F_NUMBER, F_TITLE, flagsOf, prepareName, type PartyType, type PreparedName } from './prepare.js';
import { nameScore } from './score.js';

/** Default threshold of a match. */
export const NAME_THRESHOLD = 0.7;

interface PartyName {
  value: string;
  /** The source marks the alias weak or low-quality. */
  weak?: boolean;
}

export interface Party {
  names: PartyName[];
  /** `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or a range of years `YYYY/YYYY`. */
  birth_dates?: string[];
  /** ISO 3166 codes or country names. */
  countries?: string[];
  party_type?: PartyType | null;
}

export interface PartyQuery {
  name: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birth_date?: string | null;
  /** ISO 3166 code or country name. */
  country?: string | null;
  party_type?: PartyType | null;
}

interface DateValue {
  from: number;
  to: number;
  month: number;
  day: number;
}

interface PreparedPartyName {
  value: string;
  prepared: PreparedName;
  /** Matches only exactly, with a birth date or country agreeing. */
  weak: boolean;
}

export interface PreparedParty {
  names: PreparedPartyName[];
  birth_dates: DateValue[];
  countries: Set<string>;
  party_type: PartyType | null;
}

export interface PreparedQuery {
  name: PreparedName;
  birth_date: DateValue | null;
  country: string | null;
  party_type: PartyType | null;
}

type Effect = 'agrees' | 'near' | 'conflicts' | 'differs' | 'excludes' | 'not_compared';

interface EvidenceEffect {
  effect: Effect;
  /** What it did to the score (new score minus the score before it). */
  change: number;
}

export interface MatchExplanation {
  /** The best name's score before any evidence. */
  name_score: number;
  birth_date: EvidenceEffect;
  country: EvidenceEffect;
  party_type: EvidenceEffect;
  /** Weak or one-token names left out for want of an exact match with supporting evidence. */
  weak_names_left_out: number;
}

export interface PartyMatch {
  score: number;
  /** The party's name that scored best (null when none could be compared). */
  name: string | null;
  explanation: MatchExplanation;
}

/** How evidence changes a name score. */
export interface EvidencePolicy {
  /** Factor for a country the party is not known in. */
  countryMismatch: number;
}

const SANCTIONS_POLICY: EvidencePolicy = { countryMismatch: 1 };

const DATE_CONFLICT = 0.6;
const DATE_AGREE = { day: 0.3, month: 0.2, year: 0.15 };
const COUNTRY_AGREE = 0.15;

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const RANGE = /^(\d{4})\s*(?:\/|\.\.|-)\s*(\d{4})$/;

/** `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY/YYYY`; null for anything else. */
export function parseBirthDate(value: string): DateValue | null {
  const v = value.trim();
  const d = DATE.exec(v);
  if (d) {
    const year = Number(d[1]);
    return { from: year, to: year, month: d[2] ? Number(d[2]) : 0, day: d[3] ? Number(d[3]) : 0 };
  }
  const r = RANGE.exec(v);
  if (r) {
    const a = Number(r[1]);
    const b = Number(r[2]);
    return { from: Math.min(a, b), to: Math.max(a, b), month: 0, day: 0 };
  }
  return null;
}

function countryCode(value: string): string | null {
  const ref = normalizeCountry(value);
  if (!ref) return null;
  return (ref.kind === 'region' && ref.parent ? ref.parent : ref.code).toUpperCase();
}

export function prepareParty(p: Party): PreparedParty {
  const type = p.party_type ?? null;
  const names = p.names.map((n) => {
    const prepared = prepareName(n.value, { type });
    const oneToken = !prepared.organization && namedTokens(prepared) <= 1;
    return { value: n.value, prepared, weak: n.weak === true || oneToken };
  });
  const countries = new Set<string>();
  for (const c of p.countries ?? []) {
    const code = countryCode(c);
    if (code) countries.add(code);
  }
  const birth_dates = (p.birth_dates ?? []).map(parseBirthDate).filter((d): d is DateValue => d !== null);
  return { names, birth_dates, countries, party_type: type };
}

/** Tokens other than titles and numbers (`ABU RUSDAN` has two). */
function namedTokens(p: PreparedName): number {
  let n = 0;
  for (let i = 0; i < p.latin.tokens.length; i++) if (!(flagsOf(p.latin, i) & (F_TITLE | F_NUMBER))) n++;
  return n;
}

export function prepareQuery(q: PartyQuery): PreparedQuery {
  const type = q.party_type ?? null;
  return {
    name: prepareName(q.name, { type }),
    birth_date: q.birth_date ? parseBirthDate(q.birth_date) : null,
    country: q.country ? countryCode(q.country) : null,
    party_type: type,
  };
}

type DateComparison = { effect: 'agrees'; share: number } | { effect: 'near' | 'conflicts' };

function compareDates(q: DateValue, d: DateValue): DateComparison {
  if (q.from < d.from || q.from > d.to) {
    const gap = q.from < d.from ? d.from - q.from : q.from - d.to;
    return { effect: gap <= 1 ? 'near' : 'conflicts' };
  }
  if (d.from !== d.to) return { effect: 'agrees', share: DATE_AGREE.year };
  if (q.month && d.month) {
    if (q.month !== d.month) return { effect: 'conflicts' };
    if (q.day && d.day) return q.day === d.day ? { effect: 'agrees', share: DATE_AGREE.day } : { effect: 'conflicts' };
    return { effect: 'agrees', share: DATE_AGREE.month };
  }
  return { effect: 'agrees', share: DATE_AGREE.year };
}

/** The best agreement of the query's date with any of the party's. */
function dateEvidence(q: DateValue | null, dates: DateValue[]): DateComparison | null {
  if (!q || dates.length === 0) return null;
  let best: DateComparison | null = null;
  for (const d of dates) {
    const c = compareDates(q, d);
    if (c.effect === 'agrees') {
      if (best?.effect !== 'agrees' || c.share > best.share) best = c;
    } else if (c.effect === 'near' && best?.effect !== 'agrees') best = c;
    else best ??= c;
  }
  return best;
}

const NOT_COMPARED: EvidenceEffect = { effect: 'not_compared', change: 0 };

/** Scores a party for a query (prepare both once with `prepareQuery` / `prepareParty`). */
export function scoreParty(q: PreparedQuery, p: PreparedParty, policy: EvidencePolicy = SANCTIONS_POLICY): PartyMatch {
  const explanation: MatchExplanation = {
    name_score: 0,
    birth_date: NOT_COMPARED,
    country: NOT_COMPARED,
    party_type: NOT_COMPARED,
    weak_names_left_out: 0,
  };
  if (q.party_type && p.party_type) {
    if (q.party_type !== p.party_type) {
      explanation.party_type = { effect: 'excludes', change: 0 };
      return { score: 0, name: null, explanation };
    }
    explanation.party_type = { effect: 'agrees', change: 0 };
  }
  const date = dateEvidence(q.birth_date, p.birth_dates);
  const countryAgrees = q.country !== null && p.countries.has(q.country);
  const supported = date?.effect === 'agrees' || countryAgrees;
  let best = 0;
  let name: string | null = null;
  for (const n of p.names) {
    const s = nameScore(q.name, n.prepared);
    if (n.weak && (s < 1 || !supported)) {
      if (s >= NAME_THRESHOLD) explanation.weak_names_left_out++;
      continue;
    }
    if (s > best) {
      best = s;
      name = n.value;
    }
  }
  explanation.name_score = best;
  let score = best;
  if (date) {
    const before = score;
    if (date.effect === 'agrees') score += (1 - score) * date.share;
    else if (date.effect === 'conflicts') score *= DATE_CONFLICT;
    explanation.birth_date = { effect: date.effect, change: score - before };
  }
  if (q.country !== null && p.countries.size > 0) {
    const before = score;
    if (countryAgrees) score += (1 - score) * COUNTRY_AGREE;
    else score *= policy.countryMismatch;
    explanation.country = { effect: countryAgrees ? 'agrees' : 'differs', change: score - before };
  }
  return { score, name, explanation };
}
